"""What the admin client does: one client instance, and each question answered by a name server or broker request.

The admin client registers itself in a ``MQClientInstance`` under its admin group (no producer or consumer group
of its own) and uses that instance's request layer (``MQClientAPIImpl``) and queue helpers (``MQAdminImpl``).
Questions about the whole cluster go to a name server; questions about a topic first fetch its route and then ask
each broker of the route (its master, else any address) and merge the answers.

Java: org.apache.rocketmq.tools.admin.DefaultMQAdminExtImpl (rocketmq-all-4.9.3)
Also here, because mqlab has no twin for them:

* ``query_message``: the scatter-gather of Java's ``MQAdminImpl#queryMessage`` (mqlab's ``MQAdminImpl`` only has
  the single request, ``MQClientAPIImpl.query_message``).
* ``pull``: the synchronous pull of ``DefaultMQPullConsumerImpl#pullSyncImpl`` that ``mqadmin`` runs under the
  ``TOOLS_CONSUMER`` group (mqlab has no ``DefaultMQPullConsumer``).

Left out: ACL, KV config, the C++ and "new" variants of the offset reset (``resetOffsetNew``,
``resetOffsetByQueueId``), message tracks, order configuration and the cleaning calls.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.communication_mode import CommunicationMode
from mqlab.client.impl.consumer.pull_api_wrapper import PullAPIWrapper
from mqlab.client.impl.mq_client_manager import MQClientManager, nano_time
from mqlab.common import mix_all
from mqlab.common.admin.consume_stats import ConsumeStats
from mqlab.common.admin.offset_wrapper import OffsetWrapper
from mqlab.common.admin.topic_stats_table import TopicStatsTable
from mqlab.common.filter import filter_api
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message import message_const as mc
from mqlab.common.message.message_decoder import decodes
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.body.consumer_connection import ConsumerConnection
from mqlab.common.protocol.body.producer_connection import ProducerConnection
from mqlab.common.protocol.header.broker_headers import (
    QueryMessageRequestHeader,
    QueryMessageResponseHeader,
    UpdateConsumerOffsetRequestHeader,
)
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.service_state import ServiceState
from mqlab.common.sysflag import pull_sys_flag

if TYPE_CHECKING:
    from mqlab.client.consumer.pull_result import PullResult
    from mqlab.client.impl.factory.mq_client_instance import MQClientInstance
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.protocol.body.cluster_info import ClusterInfo
    from mqlab.common.protocol.body.consume_message_directly_result import ConsumeMessageDirectlyResult
    from mqlab.common.protocol.body.consumer_running_info import ConsumerRunningInfo
    from mqlab.common.protocol.body.group_list import GroupList
    from mqlab.common.protocol.body.kv_table import KVTable
    from mqlab.common.protocol.body.query_consume_queue_response_body import QueryConsumeQueueResponseBody
    from mqlab.common.protocol.body.queue_time_span import QueueTimeSpan
    from mqlab.common.protocol.body.topic_list import TopicList
    from mqlab.common.protocol.route.topic_route_data import TopicRouteData
    from mqlab.common.subscription.subscription_group_config import SubscriptionGroupConfig
    from mqlab.common.topic_config import TopicConfig
    from mqlab.remoting.netty.response_future import ResponseFuture
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

# Java: DefaultMQPullConsumer's consumerPullTimeoutMillis and brokerSuspendMaxTimeMillis defaults.
CONSUMER_PULL_TIMEOUT_MILLIS = 1000 * 10
BROKER_SUSPEND_MAX_TIME_MILLIS = 1000 * 20


@dataclass(slots=True)
class RollbackStats:
    """What the old offset reset did on one queue: the offsets before, the one for the time, the one set.

    Java: org.apache.rocketmq.common.admin.RollbackStats (kept here: only the admin tools use it in mqlab)
    """

    broker_name: str
    queue_id: int
    broker_offset: int
    consumer_offset: int
    timestamp_offset: int
    rollback_offset: int


@dataclass(slots=True)
class QueryResult:
    """Messages found through the index, and the newest index update time among the brokers that answered.

    Java: org.apache.rocketmq.client.QueryResult (kept here: only the admin tools use it in mqlab)
    """

    index_last_update_timestamp: int = 0
    message_list: list[MessageExt] = field(default_factory=list)


class DefaultMQAdminExtImpl:
    """The engine behind ``DefaultMQAdminExt``.

    Args:
        default_mq_admin_ext: the façade, which is also the client configuration.
        rpc_hook: called around every request.
        timeout_millis: timeout of each request (Java: 5000 unless the caller says otherwise).
    """

    def __init__(self, default_mq_admin_ext: DefaultMQAdminExt, rpc_hook: RPCHook | None, timeout_millis: int):
        self.default_mq_admin_ext = default_mq_admin_ext
        self.runtime = default_mq_admin_ext.runtime
        self.rpc_hook = rpc_hook
        self.timeout_millis = timeout_millis
        self.service_state = ServiceState.CREATE_JUST
        self.mq_client_instance: MQClientInstance | None = None

    # -- life cycle ------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Get the client instance, register the admin group in it and start it.

        Java: DefaultMQAdminExtImpl#start

        Raises:
            MQClientException: the admin group is already registered in that instance, or started before.
        """
        admin = self.default_mq_admin_ext
        if self.service_state is not ServiceState.CREATE_JUST:
            raise MQClientException(f"The AdminExt service state not OK, maybe started once, {self.service_state.name}")
        self.service_state = ServiceState.START_FAILED
        admin.change_instance_name_to_pid(self.runtime.host.pid, nano_time(self.runtime))
        instance = MQClientManager.get_instance(self.runtime).get_or_create_mq_client_instance(admin, self.rpc_hook)
        if not instance.register_admin_ext(admin.admin_ext_group, self):
            self.service_state = ServiceState.CREATE_JUST
            raise MQClientException(
                f"The adminExt group[{admin.admin_ext_group}] has created already, specifed another name please."
            )
        self.mq_client_instance = instance
        instance.start()
        self.service_state = ServiceState.RUNNING

    def shutdown(self) -> None:
        """Unregister the admin group and shut the instance down (it stops once nothing else uses it).

        Java: DefaultMQAdminExtImpl#shutdown
        """
        if self.service_state is ServiceState.RUNNING and self.mq_client_instance is not None:
            self.mq_client_instance.unregister_admin_ext(self.default_mq_admin_ext.admin_ext_group)
            self.mq_client_instance.shutdown()
            self.service_state = ServiceState.SHUTDOWN_ALREADY

    def _instance(self) -> MQClientInstance:
        if self.mq_client_instance is None or self.service_state is not ServiceState.RUNNING:
            raise MQClientException(f"The AdminExt service state not OK, {self.service_state.name}")
        return self.mq_client_instance

    # -- name server -----------------------------------------------------------------------------------------
    def examine_broker_cluster_info(self) -> ClusterInfo:
        """Every cluster, broker name and broker address. Java: DefaultMQAdminExtImpl#examineBrokerClusterInfo."""
        return self._instance().mq_client_api_impl.get_broker_cluster_info(self.timeout_millis)

    def fetch_all_topic_list(self) -> TopicList:
        """Every topic the name server knows. Java: DefaultMQAdminExtImpl#fetchAllTopicList."""
        return self._instance().mq_client_api_impl.get_topic_list_from_name_server(self.timeout_millis)

    def examine_topic_route_info(self, topic: str) -> TopicRouteData:
        """The topic's route; ``MQClientException`` (code 17) for an unknown topic.

        Java: DefaultMQAdminExtImpl#examineTopicRouteInfo
        """
        return self._instance().mq_client_api_impl.get_topic_route_info_from_name_server(topic, self.timeout_millis)

    # -- brokers ---------------------------------------------------------------------------------------------
    def _route_addrs(self, topic: str) -> list[str]:
        """One address per broker of the topic's route: the master, else a random one (``selectBrokerAddr``)."""
        route = self.examine_topic_route_info(topic)
        addrs = (bd.select_broker_addr(self.runtime.random) for bd in route.broker_datas)
        return [addr for addr in addrs if addr is not None]

    def examine_topic_stats(self, topic: str) -> TopicStatsTable:
        """Min/max offset and last store time of every queue of the topic, merged over its brokers.

        Java: DefaultMQAdminExtImpl#examineTopicStats

        Raises:
            MQClientException: no broker reported a queue ("Not found the topic stats info").
        """
        api = self._instance().mq_client_api_impl
        merged = TopicStatsTable()
        for addr in self._route_addrs(topic):
            merged.offset_table.update(api.get_topic_stats_info(addr, topic, self.timeout_millis).offset_table)
        if not merged.offset_table:
            raise MQClientException("Not found the topic stats info")
        return merged

    def examine_consume_stats(self, consumer_group: str, topic: str | None = None) -> ConsumeStats:
        """The group's offsets against the queues', from every broker of the group's retry topic.

        The brokers a group consumes from are found through its retry topic ``%RETRY%<group>``, which a broker
        creates on the group's first heartbeat.

        Java: DefaultMQAdminExtImpl#examineConsumeStats (both overloads)

        Raises:
            MQClientException: the retry topic has no route (code 17), or no broker reported an offset (code 206,
                CONSUMER_NOT_ONLINE, as Java).
        """
        api = self._instance().mq_client_api_impl
        result = ConsumeStats()
        for addr in self._route_addrs(mix_all.get_retry_topic(consumer_group)):
            # Java gives this call three times the usual timeout: the broker walks every topic of the group.
            stats = api.get_consume_stats(addr, consumer_group, self.timeout_millis * 3, topic=topic)
            result.offset_table.update(stats.offset_table)
            result.consume_tps += stats.consume_tps
        if not result.offset_table:
            raise MQClientException(
                "Not found the consumer group consume stats, because return offset table is empty, "
                "maybe the consumer not consume any message",
                int(ResponseCode.CONSUMER_NOT_ONLINE),
            )
        return result

    def examine_consumer_connection_info(self, consumer_group: str) -> ConsumerConnection:
        """The group's connections and subscriptions, as *one* broker of its retry topic's route knows them.

        4.9.3 picks one broker of ``%RETRY%<group>``'s route at random and asks only it (every consumer sends its
        heartbeat to every broker, so any one of them knows the whole group); the answers are not merged.

        Java: DefaultMQAdminExtImpl#examineConsumerConnectionInfo

        Raises:
            MQClientException: the retry topic has no route (code 17), or the broker reports no connection (code
                206, CONSUMER_NOT_ONLINE, "Not found the consumer group connection").
            MQBrokerException: the broker answered CONSUMER_NOT_ONLINE itself (it has no such group).
        """
        route = self.examine_topic_route_info(mix_all.get_retry_topic(consumer_group))
        result = ConsumerConnection()
        brokers = route.broker_datas
        if brokers:  # Java's Random#nextInt(0) would throw; an empty route just finds no connection here
            broker_data = brokers[self.runtime.random.randrange(len(brokers))]
            addr = broker_data.select_broker_addr(self.runtime.random)
            if addr:
                result = self._instance().mq_client_api_impl.get_consumer_connection_list(
                    addr, consumer_group, self.timeout_millis
                )
        if not result.connection_set:
            raise MQClientException("Not found the consumer group connection", int(ResponseCode.CONSUMER_NOT_ONLINE))
        return result

    def create_and_update_topic_config(self, addr: str, config: TopicConfig) -> None:
        """UPDATE_AND_CREATE_TOPIC on one broker. Java: DefaultMQAdminExtImpl#createAndUpdateTopicConfig."""
        self._instance().mq_client_api_impl.create_topic(
            addr, self.default_mq_admin_ext.create_topic_key, config, self.timeout_millis
        )

    def query_topic_consume_by_who(self, topic: str) -> GroupList | None:
        """The groups consuming ``topic``, as the *first* broker of its route knows them (Java asks only that one).

        Java: DefaultMQAdminExtImpl#queryTopicConsumeByWho
        """
        route = self.examine_topic_route_info(topic)
        for bd in route.broker_datas[:1]:
            addr = bd.select_broker_addr(self.runtime.random)
            if addr is not None:
                return self._instance().mq_client_api_impl.query_topic_consume_by_who(addr, topic, self.timeout_millis)
        return None

    def reset_offset_by_timestamp(
        self, topic: str, group: str, timestamp: int, is_force: bool, is_c: bool = False
    ) -> JavaHashMap[MessageQueue, int]:
        """Ask every broker of the topic's route to reset the group's online consumers to ``timestamp``.

        Each broker (its master, else any address) computes the offsets of its own queues and sends them to the
        group's consumers; the answers are merged. ``timestamp`` -1 means each queue's max offset.

        Java: DefaultMQAdminExtImpl#resetOffsetByTimestamp (both overloads)

        Raises:
            MQClientException: the topic has no route (code 17), or a broker refused (its code: 206,
                CONSUMER_NOT_ONLINE, when no consumer of the group is connected to it).
        """
        api = self._instance().mq_client_api_impl
        all_offset_table: JavaHashMap[MessageQueue, int] = JavaHashMap()
        for addr in self._route_addrs(topic):
            all_offset_table.update(
                api.invoke_broker_to_reset_offset(addr, topic, group, timestamp, is_force, self.timeout_millis, is_c)
            )
        return all_offset_table

    def reset_offset_by_timestamp_old(
        self, consumer_group: str, topic: str, timestamp: int, force: bool
    ) -> list[RollbackStats]:
        """Commit the group's offsets for ``timestamp`` on every queue of the topic, with no consumer involved.

        Per broker of the route: the queues of ``topic`` the group has offsets for (GET_CONSUME_STATS), or, if it
        has none there, every readable queue with its min offset as the consumer offset (GET_TOPIC_STATS_INFO);
        each goes through ``reset_offset_consume_offset``. A consumer running meanwhile would overwrite the
        offsets with its own, hence "requires client restart" in mqadmin's help.

        Java: DefaultMQAdminExtImpl#resetOffsetByTimestampOld
        """
        instance = self._instance()
        api = instance.mq_client_api_impl
        route = self.examine_topic_route_info(topic)
        read_queue_nums = {qd.broker_name: qd.read_queue_nums for qd in route.queue_datas}
        stats_list: list[RollbackStats] = []
        for bd in route.broker_datas:
            addr = bd.select_broker_addr(self.runtime.random)
            if addr is None:
                continue
            consume_stats = api.get_consume_stats(addr, consumer_group, self.timeout_millis)
            queues = [(mq, w) for mq, w in consume_stats.offset_table.items() if mq.topic == topic]
            if not queues:
                topic_status = api.get_topic_stats_info(addr, topic, self.timeout_millis).offset_table
                for queue_id in range(read_queue_nums.get(bd.broker_name, 0)):
                    mq = MessageQueue(topic, bd.broker_name, queue_id)
                    found = topic_status.get(mq)
                    if found is None:  # Java would fail with a NullPointerException here
                        raise MQClientException(f"no stats for {mq} on broker {addr}")
                    queues.append((mq, OffsetWrapper(found.max_offset, found.min_offset)))
            for mq, wrapper in queues:
                stats_list.append(self.reset_offset_consume_offset(addr, consumer_group, mq, wrapper, timestamp, force))
        return stats_list

    def reset_offset_consume_offset(
        self, broker_addr: str, consume_group: str, queue: MessageQueue, offset_wrapper: OffsetWrapper, timestamp: int,
        force: bool,
    ) -> RollbackStats:  # fmt: skip
        """Find the queue's offset for ``timestamp`` and commit it (UPDATE_CONSUMER_OFFSET) if allowed.

        The offset is GET_MAX_OFFSET's for -1, else SEARCH_OFFSET_BY_TIMESTAMP's; without ``force`` it is only
        committed if it does not move the group forward (at most its consumer offset; note ``<=`` here where the
        broker's reset uses ``<``).

        Java: DefaultMQAdminExtImpl#resetOffsetConsumeOffset
        """
        api = self._instance().mq_client_api_impl
        if timestamp == -1:
            reset_offset = api.get_max_offset(broker_addr, queue.topic, queue.queue_id, self.timeout_millis)
        else:
            reset_offset = api.search_offset(broker_addr, queue.topic, queue.queue_id, timestamp, self.timeout_millis)
        stats = RollbackStats(
            queue.broker_name,
            queue.queue_id,
            offset_wrapper.broker_offset,
            offset_wrapper.consumer_offset,
            reset_offset,
            offset_wrapper.consumer_offset,
        )
        if force or reset_offset <= offset_wrapper.consumer_offset:
            stats.rollback_offset = reset_offset
            header = UpdateConsumerOffsetRequestHeader(consume_group, queue.topic, queue.queue_id, reset_offset)
            api.update_consumer_offset(broker_addr, header, self.timeout_millis)
        return stats

    def fetch_broker_runtime_stats(self, broker_addr: str) -> KVTable:
        """A broker's running figures. Java: DefaultMQAdminExtImpl#fetchBrokerRuntimeStats."""
        return self._instance().mq_client_api_impl.get_broker_runtime_info(broker_addr, self.timeout_millis)

    # -- deleting topics, broker configuration, groups -------------------------------------------------------
    def delete_topic_in_broker(self, addrs: list[str], topic: str) -> None:
        """DELETE_TOPIC_IN_BROKER on each broker address. Java: DefaultMQAdminExtImpl#deleteTopicInBroker."""
        api = self._instance().mq_client_api_impl
        for addr in addrs:
            api.delete_topic_in_broker(addr, topic, self.timeout_millis)

    def delete_topic_in_name_server(self, addrs: list[str] | None, topic: str) -> None:
        """DELETE_TOPIC_IN_NAMESRV on each name server (None: the client's own name server list).

        Java: DefaultMQAdminExtImpl#deleteTopicInNameServer
        """
        api = self._instance().mq_client_api_impl
        if addrs is None:
            addrs = [addr for addr in (self.default_mq_admin_ext.namesrv_addr or "").split(";") if addr]
        for addr in addrs:
            api.delete_topic_in_name_server(addr, topic, self.timeout_millis)

    def update_broker_config(self, broker_addr: str, properties: dict[str, str]) -> None:
        """Java: DefaultMQAdminExtImpl#updateBrokerConfig."""
        self._instance().mq_client_api_impl.update_broker_config(broker_addr, properties, self.timeout_millis)

    def get_broker_config(self, broker_addr: str) -> dict[str, str]:
        """Every config entry of a broker. Java: DefaultMQAdminExtImpl#getBrokerConfig."""
        return self._instance().mq_client_api_impl.get_broker_config(broker_addr, self.timeout_millis)

    def examine_producer_connection_info(self, producer_group: str, topic: str) -> ProducerConnection:
        """A producer group's connections, as one broker of ``topic``'s route (picked at random) knows them.

        Java: DefaultMQAdminExtImpl#examineProducerConnectionInfo

        Raises:
            MQClientException: the topic has no route, or the answer has no connection ("Not found the producer
                group connection").
            MQBrokerException: the broker does not know the group.
        """
        brokers = self.examine_topic_route_info(topic).broker_datas
        result = ProducerConnection()
        if brokers:  # Java's Random#nextInt(0) would throw; an empty route just finds no connection here
            addr = brokers[self.runtime.random.randrange(len(brokers))].select_broker_addr(self.runtime.random)
            if addr:
                result = self._instance().mq_client_api_impl.get_producer_connection_list(
                    addr, producer_group, self.timeout_millis
                )
        if not result.connection_set:
            raise MQClientException("Not found the producer group connection")
        return result

    def create_and_update_subscription_group_config(self, addr: str, config: SubscriptionGroupConfig) -> None:
        """Java: DefaultMQAdminExtImpl#createAndUpdateSubscriptionGroupConfig."""
        self._instance().mq_client_api_impl.create_subscription_group(addr, config, self.timeout_millis)

    def delete_subscription_group(self, addr: str, group_name: str, remove_offset: bool = False) -> None:
        """Java: DefaultMQAdminExtImpl#deleteSubscriptionGroup (both overloads)."""
        self._instance().mq_client_api_impl.delete_subscription_group(
            addr, group_name, remove_offset, self.timeout_millis
        )

    # -- questions relayed to consumers, queues, offsets -----------------------------------------------------
    def get_consumer_running_info(self, consumer_group: str, client_id: str, jstack: bool) -> ConsumerRunningInfo:
        """One consumer's running info, relayed by the first broker of ``%RETRY%<group>``'s route (15 s timeout).

        Java: DefaultMQAdminExtImpl#getConsumerRunningInfo (Java returns null for a route without an address)

        Raises:
            MQClientException: no route, no broker address, or the broker's or consumer's refusal.
        """
        route = self.examine_topic_route_info(mix_all.get_retry_topic(consumer_group))
        for bd in route.broker_datas:
            addr = bd.select_broker_addr(self.runtime.random)
            if addr is not None:
                return self._instance().mq_client_api_impl.get_consumer_running_info(
                    addr, consumer_group, client_id, jstack, self.timeout_millis * 3
                )
        raise MQClientException(f"no broker address in the route of {mix_all.get_retry_topic(consumer_group)}")

    def consume_message_directly(
        self, consumer_group: str, client_id: str, msg_id: str
    ) -> ConsumeMessageDirectlyResult:
        """Have one consumer consume the message of an offset message id now (15 s timeout).

        The request goes to the message's store host (read by viewing the message first), which relays it.

        Java: DefaultMQAdminExtImpl#consumeMessageDirectly(String, String, String)
        """
        msg = self.view_message(msg_id)
        store_host = f"{msg.store_host.host}:{msg.store_host.port}"
        return self._instance().mq_client_api_impl.consume_message_directly(
            store_host, consumer_group, client_id, msg_id, self.timeout_millis * 3
        )

    def query_consume_queue(
        self, broker_addr: str, topic: str, queue_id: int, index: int, count: int, consumer_group: str | None
    ) -> QueryConsumeQueueResponseBody:
        """Java: DefaultMQAdminExtImpl#queryConsumeQueue."""
        return self._instance().mq_client_api_impl.query_consume_queue(
            broker_addr, topic, queue_id, index, count, consumer_group, self.timeout_millis
        )

    def clone_group_offset(self, src_group: str, dest_group: str, topic: str | None, is_offline: bool) -> None:
        """CLONE_GROUP_OFFSET to every broker of ``%RETRY%<srcGroup>``'s route (15 s timeout).

        Java: DefaultMQAdminExtImpl#cloneGroupOffset
        """
        api = self._instance().mq_client_api_impl
        for addr in self._route_addrs(mix_all.get_retry_topic(src_group)):
            api.clone_group_offset(addr, src_group, dest_group, topic, is_offline, self.timeout_millis * 3)

    def update_consume_offset(self, broker_addr: str, consume_group: str, mq: MessageQueue, offset: int) -> None:
        """UPDATE_CONSUMER_OFFSET of one queue on one broker. Java: DefaultMQAdminExtImpl#updateConsumeOffset."""
        header = UpdateConsumerOffsetRequestHeader(consume_group, mq.topic, mq.queue_id, offset)
        self._instance().mq_client_api_impl.update_consumer_offset(broker_addr, header, self.timeout_millis)

    def query_consume_time_span(self, topic: str, group: str) -> list[QueueTimeSpan]:
        """Every broker's queue time spans of ``topic`` for ``group``.

        Java: DefaultMQAdminExtImpl#queryConsumeTimeSpan
        """
        api = self._instance().mq_client_api_impl
        spans: list[QueueTimeSpan] = []
        for addr in self._route_addrs(topic):
            spans.extend(api.query_consume_time_span(addr, topic, group, self.timeout_millis))
        return spans

    def get_topic_cluster_list(self, topic: str) -> set[str]:
        """The clusters holding the broker of the topic route's first BrokerData.

        Java: DefaultMQAdminExtImpl#getTopicClusterList
        """
        info = self.examine_broker_cluster_info()
        route = self.examine_topic_route_info(topic)
        if not route.broker_datas:  # Java's get(0) would throw
            raise MQClientException(f"the route of topic {topic} has no broker")
        broker_name = route.broker_datas[0].broker_name
        return {cluster for cluster, names in info.cluster_addr_table.items() if broker_name in names}

    # -- queues and messages ---------------------------------------------------------------------------------
    def search_offset(self, mq: MessageQueue, timestamp: int) -> int:
        """Java: DefaultMQAdminExtImpl#searchOffset (to MQAdminImpl)."""
        return self._instance().mq_admin_impl.search_offset(mq, timestamp)

    def max_offset(self, mq: MessageQueue) -> int:
        """Java: DefaultMQAdminExtImpl#maxOffset (to MQAdminImpl)."""
        return self._instance().mq_admin_impl.max_offset(mq)

    def min_offset(self, mq: MessageQueue) -> int:
        """Java: DefaultMQAdminExtImpl#minOffset (to MQAdminImpl)."""
        return self._instance().mq_admin_impl.min_offset(mq)

    def view_message(self, msg_id: str) -> MessageExt:
        """The message of an offset message id (its store address and CommitLog offset).

        Java: DefaultMQAdminExtImpl#viewMessage(String) (to MQAdminImpl#viewMessage)
        """
        return self._instance().mq_admin_impl.view_message(msg_id)

    def fetch_subscribe_message_queues(self, topic: str) -> list[MessageQueue]:
        """The topic's readable queues, sorted. Java: MQAdminImpl#fetchSubscribeMessageQueues."""
        return sorted(self._instance().mq_admin_impl.fetch_subscribe_message_queues(topic))

    def query_message(self, topic: str, key: str, max_num: int, begin: int, end: int) -> QueryResult:
        """Messages of ``topic`` with key ``key`` stored between ``begin`` and ``end`` (ms), from every broker.

        QUERY_MESSAGE goes to one address per broker of the topic's route, all at once; the answers are merged and
        a message is kept only if one of its keys *and* its topic equal the ones asked for (the index matches by
        hash, so other keys can come back).

        Java: MQAdminImpl#queryMessage (isUniqKey false)

        Raises:
            MQClientException: the topic has no route, or no broker found a matching message (code 208).
        """
        instance = self._instance()
        route = instance.get_an_exist_topic_route_data(topic)
        if route is None:
            instance.update_topic_route_info_from_name_server(topic)
            route = instance.get_an_exist_topic_route_data(topic)
        if route is None:
            raise MQClientException(f"The topic[{topic}] not matched route info")
        addrs = [a for a in (bd.select_broker_addr(self.runtime.random) for bd in route.broker_datas) if a]
        results = self._query_all(addrs, QueryMessageRequestHeader(topic, key, max_num, begin, end))
        merged = QueryResult()
        for result in results:
            merged.index_last_update_timestamp = max(
                merged.index_last_update_timestamp, result.index_last_update_timestamp
            )
            merged.message_list.extend(msg for msg in result.message_list if _has_key(msg, topic, key))
        if not merged.message_list:
            raise MQClientException("query message by key finished, but no message.", int(ResponseCode.NO_MESSAGE))
        return merged

    def _query_all(self, addrs: list[str], header: QueryMessageRequestHeader) -> list[QueryResult]:
        """Send the query to every address and wait (at most 4 timeouts) for the answers; failures are skipped."""
        api = self._instance().mq_client_api_impl
        results: list[QueryResult] = []
        lock = threading.Lock()
        pending = [len(addrs)]
        # A future rather than a latch: the runtime's futures also work inside a simulation.
        all_done = self.runtime.scheduler.new_future()

        def count_down() -> None:
            with lock:
                pending[0] -= 1
                if pending[0] == 0:
                    all_done.set_result(True)

        def on_answer(response_future: ResponseFuture) -> None:
            try:
                response = response_future.response_command
                if response is not None and response.code == ResponseCode.SUCCESS:
                    answer = response.decode_command_custom_header(QueryMessageResponseHeader)
                    found = QueryResult(int(answer.index_last_update_timestamp or 0), decodes(response.body or b""))
                    with lock:
                        results.append(found)
            finally:
                count_down()

        if not addrs:
            return results
        for addr in addrs:
            try:
                api.query_message(addr, header, self.timeout_millis * 3, on_answer, False)
            except Exception:  # as Java: a broker that cannot be asked only misses from the answer
                count_down()
        # On a timeout, keep what arrived (Java logs "maybe some broker failed").
        with contextlib.suppress(Exception):
            all_done.result(self.timeout_millis * 4)
        with lock:
            return list(results)

    def pull(self, mq: MessageQueue, sub_expression: str, offset: int, max_nums: int) -> PullResult:
        """Pull up to ``max_nums`` messages of ``mq`` from ``offset`` as the ``TOOLS_CONSUMER`` group, waiting.

        No offset is committed and the broker does not hold the request (no long polling): an empty queue answers
        NO_NEW_MSG at once.

        Java: DefaultMQPullConsumerImpl#pullSyncImpl (block = false)
        """
        instance = self._instance()
        subscription = filter_api.build_subscription_data(mq.topic, sub_expression)
        wrapper = PullAPIWrapper(instance, mix_all.TOOLS_CONSUMER_GROUP, False)
        sys_flag = pull_sys_flag.build_sys_flag(False, False, True, False)
        result = wrapper.pull_kernel_impl(
            mq,
            subscription.sub_string,
            "TAG",
            0,
            offset,
            max_nums,
            sys_flag,
            0,
            BROKER_SUSPEND_MAX_TIME_MILLIS,
            CONSUMER_PULL_TIMEOUT_MILLIS,
            CommunicationMode.SYNC,
            None,
        )
        assert result is not None  # SYNC always answers
        return wrapper.process_pull_result(mq, result, subscription)


def _has_key(msg: MessageExt, topic: str, key: str) -> bool:
    """Whether one of the message's space-separated keys is ``key`` and its topic is ``topic``."""
    keys = msg.get_keys()
    return keys is not None and msg.topic == topic and key in keys.split(mc.KEY_SEPARATOR)

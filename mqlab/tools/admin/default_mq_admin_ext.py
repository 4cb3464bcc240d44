"""The admin client ``mqadmin`` is built on: configure, ``start()``, ask, ``shutdown()``.

``DefaultMQAdminExt`` is a client configuration (it *is* a ``ClientConfig``, as the Java class extends it) plus a
thin façade over ``DefaultMQAdminExtImpl``, which does the work. Each ``mqlab admin`` command makes one, names its
instance after the current time (so it never shares a client instance with an application in the same process,
as ``mqadmin`` does), starts it, asks one or a few questions and shuts it down.

Java: org.apache.rocketmq.tools.admin.DefaultMQAdminExt (rocketmq-all-4.9.3)
Left out: every method whose command mqlab does not have (see ``DefaultMQAdminExtImpl``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.client.client_config import ClientConfig
from mqlab.common.topic.topic_validator import AUTO_CREATE_TOPIC_KEY_TOPIC
from mqlab.tools.admin.default_mq_admin_ext_impl import DefaultMQAdminExtImpl, QueryResult, RollbackStats

if TYPE_CHECKING:
    from mqlab.client.consumer.pull_result import PullResult
    from mqlab.common.admin.consume_stats import ConsumeStats
    from mqlab.common.admin.topic_stats_table import TopicStatsTable
    from mqlab.common.jdk.hash_map import JavaHashMap
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.message.message_queue import MessageQueue
    from mqlab.common.protocol.body.cluster_info import ClusterInfo
    from mqlab.common.protocol.body.consume_message_directly_result import ConsumeMessageDirectlyResult
    from mqlab.common.protocol.body.consumer_connection import ConsumerConnection
    from mqlab.common.protocol.body.consumer_running_info import ConsumerRunningInfo
    from mqlab.common.protocol.body.group_list import GroupList
    from mqlab.common.protocol.body.kv_table import KVTable
    from mqlab.common.protocol.body.producer_connection import ProducerConnection
    from mqlab.common.protocol.body.query_consume_queue_response_body import QueryConsumeQueueResponseBody
    from mqlab.common.protocol.body.queue_time_span import QueueTimeSpan
    from mqlab.common.protocol.body.topic_list import TopicList
    from mqlab.common.protocol.route.topic_route_data import TopicRouteData
    from mqlab.common.subscription.subscription_group_config import SubscriptionGroupConfig
    from mqlab.common.topic_config import TopicConfig
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.runtime.runtime import Runtime

# Java: DefaultMQAdminExt's adminExtGroup default and its constructor's default timeout.
ADMIN_EXT_GROUP = "admin_ext_group"
DEFAULT_TIMEOUT_MILLIS = 5000


class DefaultMQAdminExt(ClientConfig):
    """An admin client on ``runtime``.

    Args:
        runtime: the node the client runs on (its IP becomes ``client_ip``).
        admin_ext_group: the name it registers under in its client instance.
        timeout_millis: timeout of each request.
        rpc_hook: called around every request.
        **settings: any ``ClientConfig`` field (``namesrv_addr``, ``instance_name`` ...).

    Attributes:
        create_topic_key: the default topic named in UPDATE_AND_CREATE_TOPIC (TBW102).
        default_mq_admin_ext_impl: the engine behind the façade.
    """

    # ClientConfig's dataclass equality would make two admin clients with equal settings "equal".
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __init__(
        self,
        runtime: Runtime,
        *,
        admin_ext_group: str = ADMIN_EXT_GROUP,
        timeout_millis: int = DEFAULT_TIMEOUT_MILLIS,
        rpc_hook: RPCHook | None = None,
        **settings: Any,
    ):
        settings.setdefault("client_ip", runtime.host.ip)
        ClientConfig.__init__(self, **settings)
        self.runtime = runtime
        self.admin_ext_group = admin_ext_group
        self.create_topic_key = AUTO_CREATE_TOPIC_KEY_TOPIC
        self.default_mq_admin_ext_impl = DefaultMQAdminExtImpl(self, rpc_hook, timeout_millis)

    def start(self) -> None:
        """Java: DefaultMQAdminExt#start."""
        self.default_mq_admin_ext_impl.start()

    def shutdown(self) -> None:
        """Java: DefaultMQAdminExt#shutdown."""
        self.default_mq_admin_ext_impl.shutdown()

    def examine_broker_cluster_info(self) -> ClusterInfo:
        """Java: DefaultMQAdminExt#examineBrokerClusterInfo."""
        return self.default_mq_admin_ext_impl.examine_broker_cluster_info()

    def fetch_all_topic_list(self) -> TopicList:
        """Java: DefaultMQAdminExt#fetchAllTopicList."""
        return self.default_mq_admin_ext_impl.fetch_all_topic_list()

    def examine_topic_route_info(self, topic: str) -> TopicRouteData:
        """Java: DefaultMQAdminExt#examineTopicRouteInfo."""
        return self.default_mq_admin_ext_impl.examine_topic_route_info(topic)

    def examine_topic_stats(self, topic: str) -> TopicStatsTable:
        """Java: DefaultMQAdminExt#examineTopicStats."""
        return self.default_mq_admin_ext_impl.examine_topic_stats(topic)

    def examine_consume_stats(self, consumer_group: str, topic: str | None = None) -> ConsumeStats:
        """Java: DefaultMQAdminExt#examineConsumeStats (both overloads)."""
        return self.default_mq_admin_ext_impl.examine_consume_stats(consumer_group, topic)

    def examine_consumer_connection_info(self, consumer_group: str) -> ConsumerConnection:
        """Java: DefaultMQAdminExt#examineConsumerConnectionInfo."""
        return self.default_mq_admin_ext_impl.examine_consumer_connection_info(consumer_group)

    def create_and_update_topic_config(self, addr: str, config: TopicConfig) -> None:
        """Java: DefaultMQAdminExt#createAndUpdateTopicConfig."""
        self.default_mq_admin_ext_impl.create_and_update_topic_config(addr, config)

    def query_topic_consume_by_who(self, topic: str) -> GroupList | None:
        """Java: DefaultMQAdminExt#queryTopicConsumeByWho."""
        return self.default_mq_admin_ext_impl.query_topic_consume_by_who(topic)

    def reset_offset_by_timestamp(
        self, topic: str, group: str, timestamp: int, is_force: bool, is_c: bool = False
    ) -> JavaHashMap[MessageQueue, int]:
        """Java: DefaultMQAdminExt#resetOffsetByTimestamp (both overloads)."""
        return self.default_mq_admin_ext_impl.reset_offset_by_timestamp(topic, group, timestamp, is_force, is_c)

    def reset_offset_by_timestamp_old(
        self, consumer_group: str, topic: str, timestamp: int, force: bool
    ) -> list[RollbackStats]:
        """Java: DefaultMQAdminExt#resetOffsetByTimestampOld."""
        return self.default_mq_admin_ext_impl.reset_offset_by_timestamp_old(consumer_group, topic, timestamp, force)

    def fetch_broker_runtime_stats(self, broker_addr: str) -> KVTable:
        """Java: DefaultMQAdminExt#fetchBrokerRuntimeStats."""
        return self.default_mq_admin_ext_impl.fetch_broker_runtime_stats(broker_addr)

    def delete_topic_in_broker(self, addrs: list[str], topic: str) -> None:
        """Java: DefaultMQAdminExt#deleteTopicInBroker."""
        self.default_mq_admin_ext_impl.delete_topic_in_broker(addrs, topic)

    def delete_topic_in_name_server(self, addrs: list[str] | None, topic: str) -> None:
        """Java: DefaultMQAdminExt#deleteTopicInNameServer."""
        self.default_mq_admin_ext_impl.delete_topic_in_name_server(addrs, topic)

    def update_broker_config(self, broker_addr: str, properties: dict[str, str]) -> None:
        """Java: DefaultMQAdminExt#updateBrokerConfig."""
        self.default_mq_admin_ext_impl.update_broker_config(broker_addr, properties)

    def get_broker_config(self, broker_addr: str) -> dict[str, str]:
        """Java: DefaultMQAdminExt#getBrokerConfig."""
        return self.default_mq_admin_ext_impl.get_broker_config(broker_addr)

    def examine_producer_connection_info(self, producer_group: str, topic: str) -> ProducerConnection:
        """Java: DefaultMQAdminExt#examineProducerConnectionInfo."""
        return self.default_mq_admin_ext_impl.examine_producer_connection_info(producer_group, topic)

    def create_and_update_subscription_group_config(self, addr: str, config: SubscriptionGroupConfig) -> None:
        """Java: DefaultMQAdminExt#createAndUpdateSubscriptionGroupConfig."""
        self.default_mq_admin_ext_impl.create_and_update_subscription_group_config(addr, config)

    def delete_subscription_group(self, addr: str, group_name: str, remove_offset: bool = False) -> None:
        """Java: DefaultMQAdminExt#deleteSubscriptionGroup."""
        self.default_mq_admin_ext_impl.delete_subscription_group(addr, group_name, remove_offset)

    def get_consumer_running_info(self, consumer_group: str, client_id: str, jstack: bool) -> ConsumerRunningInfo:
        """Java: DefaultMQAdminExt#getConsumerRunningInfo."""
        return self.default_mq_admin_ext_impl.get_consumer_running_info(consumer_group, client_id, jstack)

    def consume_message_directly(
        self, consumer_group: str, client_id: str, msg_id: str
    ) -> ConsumeMessageDirectlyResult:
        """Java: DefaultMQAdminExt#consumeMessageDirectly(String, String, String)."""
        return self.default_mq_admin_ext_impl.consume_message_directly(consumer_group, client_id, msg_id)

    def query_consume_queue(
        self, broker_addr: str, topic: str, queue_id: int, index: int, count: int, consumer_group: str | None
    ) -> QueryConsumeQueueResponseBody:
        """Java: DefaultMQAdminExt#queryConsumeQueue."""
        return self.default_mq_admin_ext_impl.query_consume_queue(
            broker_addr, topic, queue_id, index, count, consumer_group
        )

    def clone_group_offset(self, src_group: str, dest_group: str, topic: str | None, is_offline: bool) -> None:
        """Java: DefaultMQAdminExt#cloneGroupOffset."""
        self.default_mq_admin_ext_impl.clone_group_offset(src_group, dest_group, topic, is_offline)

    def update_consume_offset(self, broker_addr: str, consume_group: str, mq: MessageQueue, offset: int) -> None:
        """Java: DefaultMQAdminExt#updateConsumeOffset."""
        self.default_mq_admin_ext_impl.update_consume_offset(broker_addr, consume_group, mq, offset)

    def query_consume_time_span(self, topic: str, group: str) -> list[QueueTimeSpan]:
        """Java: DefaultMQAdminExt#queryConsumeTimeSpan."""
        return self.default_mq_admin_ext_impl.query_consume_time_span(topic, group)

    def get_topic_cluster_list(self, topic: str) -> set[str]:
        """Java: DefaultMQAdminExt#getTopicClusterList."""
        return self.default_mq_admin_ext_impl.get_topic_cluster_list(topic)

    def search_offset(self, mq: MessageQueue, timestamp: int) -> int:
        """Java: DefaultMQAdminExt#searchOffset."""
        return self.default_mq_admin_ext_impl.search_offset(mq, timestamp)

    def max_offset(self, mq: MessageQueue) -> int:
        """Java: DefaultMQAdminExt#maxOffset."""
        return self.default_mq_admin_ext_impl.max_offset(mq)

    def min_offset(self, mq: MessageQueue) -> int:
        """Java: DefaultMQAdminExt#minOffset."""
        return self.default_mq_admin_ext_impl.min_offset(mq)

    def view_message(self, msg_id: str) -> MessageExt:
        """Java: DefaultMQAdminExt#viewMessage(String)."""
        return self.default_mq_admin_ext_impl.view_message(msg_id)

    def query_message(self, topic: str, key: str, max_num: int, begin: int, end: int) -> QueryResult:
        """Java: DefaultMQAdminExt#queryMessage."""
        return self.default_mq_admin_ext_impl.query_message(topic, key, max_num, begin, end)

    def fetch_subscribe_message_queues(self, topic: str) -> list[MessageQueue]:
        """The topic's readable queues, sorted (Java: DefaultMQPullConsumer#fetchSubscribeMessageQueues)."""
        return self.default_mq_admin_ext_impl.fetch_subscribe_message_queues(topic)

    def pull(self, mq: MessageQueue, sub_expression: str, offset: int, max_nums: int) -> PullResult:
        """A synchronous pull as ``TOOLS_CONSUMER`` (Java: DefaultMQPullConsumer#pull, used by mqadmin)."""
        return self.default_mq_admin_ext_impl.pull(mq, sub_expression, offset, max_nums)

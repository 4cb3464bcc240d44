"""The per-client-id engine under every producer and consumer: routes, broker addresses, heartbeats, timers.

Producers and consumers do not talk to the name server or keep broker addresses themselves; they register with
their MQClientInstance, which

* fetches topic routes from a name server (every ``pollNameServerInterval``, 30 s, after 10 ms, and on demand),
  keeps them in ``topic_route_table`` and the brokers' addresses in ``broker_addr_table``, and turns each changed
  route into a TopicPublishInfo for every producer (writable queues of brokers with a master, sorted by broker
  name) and a set of readable queues for every consumer (§10.5 of the facts sheet);
* sends a heartbeat with all its producer and consumer groups to every broker (every ``heartbeatBrokerInterval``,
  30 s, after 1 s; to masters only when it has no consumer), after dropping addresses no route mentions;
* persists every consumer's offsets (every ``persistConsumerOffsetInterval``, 5 s, after 10 s);
* owns the consumer side's PullMessageService and RebalanceService, and an inner producer (group
  ``CLIENT_INNER_PRODUCER``) that consumers use to send messages back when the broker refuses.

A topic without a route of its own is published through the route of the producer's ``createTopicKey`` (TBW102):
each of its QueueData gets ``min(defaultTopicQueueNums, readQueueNums)`` read and write queues
(``update_topic_route_info_from_name_server(topic, True, producer)``), and the broker creates the topic on the
first send.

Java: org.apache.rocketmq.client.impl.factory.MQClientInstance (rocketmq-all-4.9.3)
An admin offset reset (RESET_CONSUMER_CLIENT_OFFSET from a broker) reaches ``reset_offset``: a push consumer of the
group stops pulling, drops the topic's queues, and 10 s later commits the new offsets and takes the queues again.

Left out: the address server, filter-class upload, ``checkClientInBroker`` (SQL92), consumer statistics,
``adjustThreadPool`` (a no-op in 4.9.x).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.find_broker_result import FindBrokerResult
from mqlab.client.impl.mq_admin_impl import MQAdminImpl
from mqlab.client.impl.mq_client_api_impl import MQClientAPIImpl
from mqlab.client.impl.mq_client_manager import MQClientManager
from mqlab.client.impl.producer.topic_publish_info import TopicPublishInfo
from mqlab.common import mix_all
from mqlab.common.constant import perm_name
from mqlab.common.constant.logger_name import CLIENT_LOGGER_NAME, get_logger
from mqlab.common.filter.expression_type import is_tag_type
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.jdk.strings import java_split
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.heartbeat.heartbeat_data import ConsumerData, HeartbeatData, ProducerData
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.service_state import ServiceState
from mqlab.common.topic.topic_validator import AUTO_CREATE_TOPIC_KEY_TOPIC
from mqlab.remoting.exception.remoting_exception import RemotingException
from mqlab.remoting.netty.netty_client_config import NettyClientConfig

if TYPE_CHECKING:
    from random import Random

    from mqlab.client.client_config import ClientConfig
    from mqlab.client.impl.consumer.mq_consumer_inner import MQConsumerInner
    from mqlab.client.impl.producer.mq_producer_inner import MQProducerInner
    from mqlab.client.producer.default_mq_producer import DefaultMQProducer
    from mqlab.common.protocol.route.topic_route_data import TopicRouteData
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.runtime.runtime import Runtime
    from mqlab.runtime.scheduler import TimerHandle

COMPONENT = "MQClientInstance"
_LOG = get_logger(CLIENT_LOGGER_NAME)
# Java: MQClientInstance.LOCK_TIMEOUT_MILLIS (waiting for the name-server lock)
LOCK_TIMEOUT_MILLIS = 3000
# Java: startScheduledTask's initial delays (the periods come from ClientConfig)
UPDATE_ROUTE_INITIAL_DELAY_MS = 10
HEARTBEAT_INITIAL_DELAY_MS = 1000
PERSIST_OFFSET_INITIAL_DELAY_MS = 1000 * 10
# Java: MQClientInstance#resetOffset sleeps 10 s between dropping the queues and committing the new offsets.
RESET_OFFSET_SETTLE_MILLIS = 1000 * 10
# Where the consumer side's services live (created lazily: the producer side works without them).
PULL_MESSAGE_SERVICE = ("mqlab.client.impl.consumer.pull_message_service", "PullMessageService")
REBALANCE_SERVICE = ("mqlab.client.impl.consumer.rebalance_service", "RebalanceService")


def topic_route_data2_topic_publish_info(topic: str, route: TopicRouteData, rng: Random) -> TopicPublishInfo:
    """The queues a producer may write to, from a route.

    With ``orderTopicConf`` (``"broker-a:4;broker-b:4"``): those queues in that order, ``order_topic`` true, no
    permission or master check. Otherwise the route's QueueData, sorted by broker name (in place, as Java's
    ``Collections.sort``), each writable one whose broker has a master giving ``(topic, broker, 0..writeQueueNums-1)``.

    Java: MQClientInstance#topicRouteData2TopicPublishInfo (static; ``rng`` seeds the info's round-robin counter,
    Java's ThreadLocalIndex draws from its own Random)
    """
    info = TopicPublishInfo(rng)
    info.topic_route_data = route
    if route.order_topic_conf:
        for item in java_split(route.order_topic_conf, ";"):  # "broker-a:2;" has one item, as in Java
            broker_name, nums = java_split(item, ":")[:2]
            info.message_queue_list.extend(MessageQueue(topic, broker_name, i) for i in range(int(nums)))
        info.order_topic = True
        return info
    route.queue_datas.sort()
    for qd in route.queue_datas:
        if not perm_name.is_writeable(qd.perm):
            continue
        broker_data = next((bd for bd in route.broker_datas if bd.broker_name == qd.broker_name), None)
        if broker_data is None or mix_all.MASTER_ID not in broker_data.broker_addrs:
            continue
        info.message_queue_list.extend(MessageQueue(topic, qd.broker_name, i) for i in range(qd.write_queue_nums))
    info.order_topic = False
    return info


def topic_route_data2_topic_subscribe_info(topic: str, route: TopicRouteData) -> set[MessageQueue]:
    """The queues a consumer may read: ``0..readQueueNums-1`` of each readable QueueData (unordered).

    Java: MQClientInstance#topicRouteData2TopicSubscribeInfo (static)
    """
    return {
        MessageQueue(topic, qd.broker_name, i)
        for qd in route.queue_datas
        if perm_name.is_readable(qd.perm)
        for i in range(qd.read_queue_nums)
    }


def topic_route_data_is_change(old: TopicRouteData | None, now: TopicRouteData | None) -> bool:
    """Whether two routes differ once their QueueData and BrokerData are sorted by broker name.

    Java: MQClientInstance#topicRouteDataIsChange
    """
    if old is None or now is None:
        return True
    a, b = old.clone_topic_route_data(), now.clone_topic_route_data()
    for route in (a, b):
        route.queue_datas.sort()
        route.broker_datas.sort(key=lambda bd: bd.broker_name)
    return a != b


def _load(where: tuple[str, str]) -> Any:
    """The consumer side's class, or None while its module does not exist yet."""
    import importlib

    module_name, class_name = where
    try:
        return getattr(importlib.import_module(module_name), class_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            return None
        raise


class MQClientInstance:
    """The engine shared by the producers and consumers of one client id.

    Args:
        client_config: a copy of the first client's settings (``MQClientManager`` clones it).
        instance_index: the manager's running number.
        client_id: ``clientIP@instanceName``.
        runtime: clock, scheduler, network, randomness, trace.
        rpc_hook: called around every request.

    Attributes:
        topic_route_table: topic → the last route fetched (a copy).
        broker_addr_table: broker name → (broker id → address), from the routes.
        broker_version_table: broker name → (address → version), from heartbeat answers.
        producer_table, consumer_table: group → the registered producer / consumer.
        pull_message_service, rebalance_service: the consumer side's services (None until that code exists).
        default_mq_producer: the inner producer of group ``CLIENT_INNER_PRODUCER``.
    """

    def __init__(
        self,
        client_config: ClientConfig,
        instance_index: int,
        client_id: str,
        runtime: Runtime,
        rpc_hook: RPCHook | None = None,
    ):
        from mqlab.client.impl.client_remoting_processor import ClientRemotingProcessor
        from mqlab.client.producer.default_mq_producer import DefaultMQProducer  # imports this module

        self.client_config = client_config
        self.instance_index = instance_index
        self.client_id = client_id
        self.runtime = runtime
        self.boot_timestamp = runtime.now_ms()
        self.producer_table: JavaHashMap[str, MQProducerInner] = JavaHashMap()
        # Brokers whose last answer to a heartbeat refused a consumer group (mqlab, HARD-9): address -> remark.
        self.heartbeat_refusals: dict[str, str] = {}
        self.consumer_table: JavaHashMap[str, MQConsumerInner] = JavaHashMap()
        self.admin_ext_table: JavaHashMap[str, Any] = JavaHashMap()
        self.topic_route_table: JavaHashMap[str, TopicRouteData] = JavaHashMap()
        self.broker_addr_table: JavaHashMap[str, JavaHashMap[int, str]] = JavaHashMap()
        self.broker_version_table: JavaHashMap[str, dict[str, int]] = JavaHashMap()
        # Re-entrant: in a simulation a timer may refresh routes inside a send that already holds the lock (one
        # thread, nested event loop); Java's ReentrantLock would make that timer wait instead.
        self.lock_namesrv = threading.RLock()
        # Not re-entrant on purpose: a heartbeat that finds another one in progress is skipped, as Java's tryLock.
        self.lock_heartbeat = threading.Lock()
        # Java's `synchronized` methods (start, shutdown, register/unregister).
        self._lock = threading.RLock()
        self.send_heartbeat_times_total = 0
        self.netty_client_config = NettyClientConfig(
            client_callback_executor_threads=client_config.client_callback_executor_threads,
            use_tls=client_config.use_tls,
        )
        self.client_remoting_processor = ClientRemotingProcessor(self)
        self.mq_client_api_impl = MQClientAPIImpl(
            self.netty_client_config, self.client_remoting_processor, runtime, client_config, rpc_hook
        )
        if client_config.namesrv_addr is not None:
            self.mq_client_api_impl.update_name_server_address_list(client_config.namesrv_addr)
        self.mq_admin_impl = MQAdminImpl(self)
        self.pull_message_service: Any = self._create_service(PULL_MESSAGE_SERVICE)
        self.rebalance_service: Any = self._create_service(REBALANCE_SERVICE)
        self.default_mq_producer: DefaultMQProducer = DefaultMQProducer(mix_all.CLIENT_INNER_PRODUCER_GROUP, runtime)
        self.default_mq_producer.reset_client_config(client_config)
        self.service_state = ServiceState.CREATE_JUST
        self._timers: list[TimerHandle] = []
        self._trace("created", index=instance_index, clientId=client_id)

    def _trace(self, event: str, **fields: Any) -> None:
        self.runtime.trace_event(COMPONENT, event, **fields)

    def _create_service(self, where: tuple[str, str]) -> Any:
        cls = _load(where)
        if cls is None:
            self._trace("serviceMissing", service=where[1], module=where[0])
            return None
        return cls(self)

    # -- life cycle ------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the remoting client, the timers, the consumer services and the inner producer (once).

        Java: MQClientInstance#start

        Raises:
            MQClientException: an earlier start failed.
        """
        with self._lock:
            if self.service_state is ServiceState.CREATE_JUST:
                self.service_state = ServiceState.START_FAILED
                if self.client_config.namesrv_addr is None:
                    self.mq_client_api_impl.fetch_name_server_addr()
                self.mq_client_api_impl.start()
                self.start_scheduled_task()
                for service in (self.pull_message_service, self.rebalance_service):
                    if service is not None:
                        service.start()
                self.default_mq_producer.default_mq_producer_impl.start(False, factory=self)
                self.service_state = ServiceState.RUNNING
                self._trace("start", clientId=self.client_id)
            elif self.service_state is ServiceState.START_FAILED:
                raise MQClientException(f"The Factory object[{self.client_id}] has been created before, and failed.")

    def start_scheduled_task(self) -> None:
        """The instance's timers. Java: MQClientInstance#startScheduledTask."""
        scheduler = self.runtime.scheduler
        config = self.client_config
        if config.namesrv_addr is None:
            self._timers.append(
                scheduler.schedule_at_fixed_rate(
                    1000 * 10,
                    1000 * 60 * 2,
                    self._guarded(self.mq_client_api_impl.fetch_name_server_addr),
                    name="MQClientFactoryScheduledThread-fetchNameServerAddr",
                )
            )
        route, persist = self.update_topic_route_info_from_name_server, self.persist_all_consumer_offset
        tasks = (
            (UPDATE_ROUTE_INITIAL_DELAY_MS, config.poll_name_server_interval, route, "updateTopicRouteInfo"),
            (HEARTBEAT_INITIAL_DELAY_MS, config.heartbeat_broker_interval, self._heartbeat_task, "heartbeat"),
            (
                PERSIST_OFFSET_INITIAL_DELAY_MS,
                config.persist_consumer_offset_interval,
                persist,
                "persistConsumerOffset",
            ),
        )
        for initial, period, fn, name in tasks:
            self._timers.append(
                scheduler.schedule_at_fixed_rate(
                    initial, period, self._guarded(fn), name=f"MQClientFactoryScheduledThread-{name}"
                )
            )

    def _heartbeat_task(self) -> None:
        self.clean_offline_broker()
        self.send_heartbeat_to_all_broker_with_lock()

    def _guarded(self, fn: Any) -> Any:
        """A timer task that logs its failure and keeps the timer alive (Java catches Exception in each task)."""

        def run() -> None:
            try:
                fn()
            except Exception as exc:
                self._trace("scheduledTaskFailed", task=getattr(fn, "__name__", "task"), error=repr(exc))

        return run

    def shutdown(self) -> None:
        """Stop everything once no consumer and no producer but the inner one is left.

        Java: MQClientInstance#shutdown
        """
        if len(self.consumer_table) > 0 or len(self.admin_ext_table) > 0 or len(self.producer_table) > 1:
            return
        with self._lock:
            if self.service_state is not ServiceState.RUNNING:
                return
            self.default_mq_producer.default_mq_producer_impl.shutdown(False)
            self.service_state = ServiceState.SHUTDOWN_ALREADY
            if self.pull_message_service is not None:
                self.pull_message_service.shutdown()
            for timer in self._timers:
                timer.cancel()
            self._timers.clear()
            self.mq_client_api_impl.shutdown()
            if self.rebalance_service is not None:
                self.rebalance_service.shutdown()
            MQClientManager.get_instance(self.runtime).remove_client_factory(self.client_id)
            self._trace("shutdown", clientId=self.client_id)

    # -- registration ----------------------------------------------------------------------------------------
    def register_consumer(self, group: str | None, consumer: MQConsumerInner | None) -> bool:
        """Add a consumer group (False if the group is already registered). Java: #registerConsumer."""
        if group is None or consumer is None:
            return False
        with self._lock:
            if group in self.consumer_table:
                return False
            self.consumer_table[group] = consumer
            return True

    def unregister_consumer(self, group: str) -> None:
        """Drop a consumer group and tell every broker. Java: MQClientInstance#unregisterConsumer."""
        with self._lock:
            self.consumer_table.pop(group, None)
        self.unregister_client(None, group)

    def register_producer(self, group: str | None, producer: MQProducerInner | None) -> bool:
        """Add a producer group (False if the group is already registered). Java: #registerProducer."""
        if group is None or producer is None:
            return False
        with self._lock:
            if group in self.producer_table:
                return False
            self.producer_table[group] = producer
            return True

    def unregister_producer(self, group: str) -> None:
        """Drop a producer group and tell every broker. Java: MQClientInstance#unregisterProducer."""
        with self._lock:
            self.producer_table.pop(group, None)
        self.unregister_client(group, None)

    def register_admin_ext(self, group: str | None, admin: Any) -> bool:
        """Java: MQClientInstance#registerAdminExt."""
        if group is None or admin is None or group in self.admin_ext_table:
            return False
        self.admin_ext_table[group] = admin
        return True

    def unregister_admin_ext(self, group: str) -> None:
        """Java: MQClientInstance#unregisterAdminExt."""
        self.admin_ext_table.pop(group, None)

    def unregister_client(self, producer_group: str | None, consumer_group: str | None) -> None:
        """UNREGISTER_CLIENT to every known broker address; failures are only traced. Java: #unregisterClient."""
        for broker_name, table in list(self.broker_addr_table.items()):
            for addr in list((table or {}).values()):
                if addr is None:
                    continue
                try:
                    self.mq_client_api_impl.unregister_client(
                        addr, self.client_id, producer_group, consumer_group, self.client_config.mq_client_api_timeout
                    )
                    self._trace(
                        "unregisterClient",
                        broker=broker_name,
                        addr=addr,
                        producer=producer_group,
                        consumer=consumer_group,
                    )
                except Exception as exc:
                    self._trace("unregisterClientFailed", addr=addr, error=repr(exc))

    def select_producer(self, group: str) -> MQProducerInner | None:
        """Java: MQClientInstance#selectProducer."""
        return self.producer_table.get(group)

    def select_consumer(self, group: str) -> MQConsumerInner | None:
        """Java: MQClientInstance#selectConsumer."""
        return self.consumer_table.get(group)

    # -- routes ----------------------------------------------------------------------------------------------
    def update_topic_route_info_from_name_server(
        self, topic: str | None = None, is_default: bool = False, default_mq_producer: DefaultMQProducer | None = None
    ) -> bool:
        """Fetch ``topic``'s route and spread it to producers and consumers if it changed; True if it did.

        Without ``topic``: every topic a consumer subscribes to or a producer publishes to (the 30 s timer).
        With ``is_default`` and a producer: the route of the producer's ``createTopicKey`` (TBW102), each QueueData
        cut to ``min(defaultTopicQueueNums, readQueueNums)`` queues, stored under ``topic``.

        An unknown topic (the name server answers TOPIC_NOT_EXIST) returns False; a name server that cannot be
        reached raises ``RuntimeError`` (Java wraps the RemotingException in an IllegalStateException, so a send
        fails with it instead of retrying).

        Java: MQClientInstance#updateTopicRouteInfoFromNameServer (all three overloads)
        """
        if topic is None:
            changed = False
            for name in sorted(self._topics_in_use()):
                changed = self.update_topic_route_info_from_name_server(name) or changed
            return changed
        if not self.lock_namesrv.acquire(timeout=LOCK_TIMEOUT_MILLIS / 1000):
            self._trace("lockTimeout", what="updateTopicRouteInfoFromNameServer", topic=topic)
            return False
        try:
            route = self._fetch_route(topic, is_default, default_mq_producer)
            if route is None:
                return False
            changed = topic_route_data_is_change(self.topic_route_table.get(topic), route)
            if not changed:
                changed = self.is_need_update_topic_route_info(topic)
            if not changed:
                return False
            self._apply_route(topic, route)
            return True
        except MQClientException as exc:
            if not topic.startswith(mix_all.RETRY_GROUP_TOPIC_PREFIX) and topic != AUTO_CREATE_TOPIC_KEY_TOPIC:
                self._trace("routeNotFound", topic=topic, code=exc.response_code)
            return False
        except RemotingException as exc:
            raise RuntimeError(f"{type(exc).__name__}: {exc}") from exc  # Java: IllegalStateException
        finally:
            self.lock_namesrv.release()

    def _topics_in_use(self) -> set[str]:
        topics: set[str] = set()
        for consumer in list(self.consumer_table.values()):
            topics.update(sub.topic for sub in consumer.subscriptions() or [])
        for producer in list(self.producer_table.values()):
            topics.update(producer.get_publish_topic_list())
        return topics

    def _fetch_route(
        self, topic: str, is_default: bool, default_mq_producer: DefaultMQProducer | None
    ) -> TopicRouteData | None:
        """The route of ``topic``, or the cut-down default route (TBW102) for a producer's new topic."""
        timeout = self.client_config.mq_client_api_timeout
        if is_default and default_mq_producer is not None:
            key = default_mq_producer.create_topic_key
            route = self.mq_client_api_impl.get_default_topic_route_info_from_name_server(key, timeout)
            for data in route.queue_datas:
                queue_nums = min(default_mq_producer.default_topic_queue_nums, data.read_queue_nums)
                data.read_queue_nums = queue_nums
                data.write_queue_nums = queue_nums
            self._trace(
                "defaultRoute",
                topic=topic,
                key=key,
                queueNums=",".join(f"{d.broker_name}:{d.write_queue_nums}" for d in route.queue_datas),
            )
            return route
        return self.mq_client_api_impl.get_topic_route_info_from_name_server(topic, timeout)

    def _apply_route(self, topic: str, route: TopicRouteData) -> None:
        """Broker addresses, producers' publish info, consumers' subscribe info, then the route table."""
        clone = route.clone_topic_route_data()
        for bd in route.broker_datas:
            self.broker_addr_table[bd.broker_name] = bd.broker_addrs
        if len(self.producer_table) > 0:
            publish_info = topic_route_data2_topic_publish_info(topic, route, self.runtime.random)
            publish_info.have_topic_router_info = True
            for producer in list(self.producer_table.values()):
                producer.update_topic_publish_info(topic, publish_info)
        if len(self.consumer_table) > 0:
            subscribe_info = topic_route_data2_topic_subscribe_info(topic, route)
            for consumer in list(self.consumer_table.values()):
                consumer.update_topic_subscribe_info(topic, subscribe_info)
        self.topic_route_table[topic] = clone
        self._trace(
            "routeChanged",
            topic=topic,
            brokers=",".join(f"{bd.broker_name}={bd.broker_addrs.get(mix_all.MASTER_ID)}" for bd in route.broker_datas),
        )

    def is_need_update_topic_route_info(self, topic: str) -> bool:
        """Whether any producer or consumer lacks queues for ``topic``. Java: #isNeedUpdateTopicRouteInfo."""
        if any(p.is_publish_topic_need_update(topic) for p in list(self.producer_table.values())):
            return True
        return any(c.is_subscribe_topic_need_update(topic) for c in list(self.consumer_table.values()))

    def get_an_exist_topic_route_data(self, topic: str) -> TopicRouteData | None:
        """Java: MQClientInstance#getAnExistTopicRouteData."""
        return self.topic_route_table.get(topic)

    # -- broker addresses ------------------------------------------------------------------------------------
    def find_broker_address_in_publish(self, broker_name: str | None) -> str | None:
        """The master's address of ``broker_name``, or None. Java: MQClientInstance#findBrokerAddressInPublish."""
        table = self.broker_addr_table.get(broker_name) if broker_name is not None else None
        if table:
            return table.get(mix_all.MASTER_ID)
        return None

    def find_broker_address_in_subscribe(
        self, broker_name: str | None, broker_id: int, only_this_broker: bool
    ) -> FindBrokerResult | None:
        """Where to pull from or commit to: the asked broker id, else a near one.

        The address of ``broker_id`` of ``broker_name``; for a missing slave the next id; else (unless
        ``only_this_broker``) the first address of the table.

        Java: MQClientInstance#findBrokerAddressInSubscribe
        """
        table = self.broker_addr_table.get(broker_name) if broker_name is not None else None
        if not table:
            return None
        addr = table.get(broker_id)
        slave = broker_id != mix_all.MASTER_ID
        found = addr is not None
        if not found and slave:
            addr = table.get(broker_id + 1)
            found = addr is not None
        if not found and not only_this_broker:
            first_id, addr = next(iter(table.items()))
            slave = first_id != mix_all.MASTER_ID
            found = True
        if not found or addr is None:
            return None
        return FindBrokerResult(addr, slave, self.find_broker_version(broker_name, addr))

    def find_broker_version(self, broker_name: str | None, broker_addr: str) -> int:
        """The version a broker reported in its last heartbeat answer, else 0. Java: #findBrokerVersion."""
        return (self.broker_version_table.get(broker_name) or {}).get(broker_addr, 0)

    def check_client_in_broker(self) -> None:
        """Ask a broker of each topic subscribed with SQL92 whether it can filter it; raise if one refuses.

        Java: MQClientInstance#checkClientInBroker (tag subscriptions are not asked about)

        Raises:
            MQClientException: a broker refused, or could not be asked.
        """
        for group, consumer in list(self.consumer_table.items()):
            for subscription in consumer.subscriptions() or []:
                if is_tag_type(subscription.expression_type):
                    continue
                addr = self.find_broker_addr_by_topic(subscription.topic)
                if addr is None:
                    continue
                try:
                    self.mq_client_api_impl.check_client_in_broker(
                        addr, group, self.client_id, subscription, self.client_config.mq_client_api_timeout
                    )
                except MQClientException:
                    raise
                except RemotingException as exc:
                    raise MQClientException(
                        f"Check client in broker error, maybe because you use {subscription.expression_type} to "
                        "filter message, but server has not been upgraded to support!",
                        -1,
                        exc,
                    ) from exc

    def find_broker_addr_by_topic(self, topic: str) -> str | None:
        """A random broker of the topic's route: its master, else a random address. Java: #findBrokerAddrByTopic."""
        route = self.topic_route_table.get(topic)
        if route is None or not route.broker_datas:
            return None
        brokers = route.broker_datas
        return brokers[self.runtime.random.randrange(len(brokers))].select_broker_addr(self.runtime.random)

    def get_any_broker_addr_by_name(self, broker_name: str) -> str | None:
        """The master's address of ``broker_name``, else any of its addresses.

        Java: none in 4.9.3 (5.x adds MQClientInstance#getBrokerAddrByName); a helper for the admin tools.
        """
        table = self.broker_addr_table.get(broker_name)
        if not table:
            return None
        master = table.get(mix_all.MASTER_ID)
        return master if master is not None else next(iter(table.values()))

    def find_consumer_id_list(self, topic: str, group: str) -> list[str] | None:
        """The group's consumer ids as one broker of the topic knows them (None if no broker answered).

        Java: MQClientInstance#findConsumerIdList
        """
        broker_addr = self.find_broker_addr_by_topic(topic)
        if broker_addr is None:
            self.update_topic_route_info_from_name_server(topic)
            broker_addr = self.find_broker_addr_by_topic(topic)
        if broker_addr is None:
            return None
        try:
            return self.mq_client_api_impl.get_consumer_id_list_by_group(
                broker_addr, group, self.client_config.mq_client_api_timeout
            )
        except Exception as exc:
            self._trace("getConsumerIdListFailed", addr=broker_addr, group=group, error=repr(exc))
            return None

    def clean_offline_broker(self) -> None:
        """Forget broker addresses that no route in ``topic_route_table`` mentions any more.

        Java: MQClientInstance#cleanOfflineBroker
        """
        if not self.lock_namesrv.acquire(timeout=LOCK_TIMEOUT_MILLIS / 1000):
            return
        try:
            for broker_name, table in list(self.broker_addr_table.items()):
                kept: JavaHashMap[int, str] = JavaHashMap()
                for broker_id, addr in table.items():
                    if self._is_broker_addr_exist_in_topic_route_table(addr):
                        kept[broker_id] = addr
                    else:
                        self._trace("offlineBroker", broker=broker_name, addr=addr)
                if len(kept) == 0:
                    del self.broker_addr_table[broker_name]
                else:
                    self.broker_addr_table[broker_name] = kept
        finally:
            self.lock_namesrv.release()

    def _is_broker_addr_exist_in_topic_route_table(self, addr: str) -> bool:
        """Java: MQClientInstance#isBrokerAddrExistInTopicRouteTable (and #isBrokerInNameServer, the same test)."""
        return any(
            addr in bd.broker_addrs.values()
            for route in list(self.topic_route_table.values())
            for bd in route.broker_datas
        )

    # -- heartbeats ------------------------------------------------------------------------------------------
    def send_heartbeat_to_all_broker_with_lock(self) -> None:
        """Heartbeat every broker unless another heartbeat is under way. Java: #sendHeartbeatToAllBrokerWithLock."""
        if not self.lock_heartbeat.acquire(blocking=False):
            self._trace("heartbeatSkipped", reason="another heartbeat is running")
            return
        try:
            self.send_heartbeat_to_all_broker()
        except Exception as exc:
            self._trace("heartbeatFailed", error=repr(exc))
        finally:
            self.lock_heartbeat.release()

    def send_heartbeat_to_all_broker(self) -> None:
        """HEART_BEAT to every broker address (only masters when there is no consumer).

        Java: MQClientInstance#sendHeartbeatToAllBroker
        """
        heartbeat = self.prepare_heartbeat_data()
        consumer_empty = not heartbeat.consumer_data_set
        if not heartbeat.producer_data_set and consumer_empty:
            return
        if len(self.broker_addr_table) == 0:
            return
        self.send_heartbeat_times_total += 1
        for broker_name, table in list(self.broker_addr_table.items()):
            for broker_id, addr in list((table or {}).items()):
                if addr is None or (consumer_empty and broker_id != mix_all.MASTER_ID):
                    continue
                try:
                    version = self.mq_client_api_impl.send_heartbeat(
                        addr, heartbeat, self.client_config.mq_client_api_timeout
                    )
                    self.broker_version_table.setdefault(broker_name, {})[addr] = version
                    self._trace(
                        "heartbeat",
                        broker=broker_name,
                        addr=addr,
                        producers=",".join(p.group_name for p in heartbeat.producer_data_set),
                        consumers=",".join(c.group_name for c in heartbeat.consumer_data_set),
                    )
                    self.heartbeat_refusals.pop(addr, None)
                except Exception as exc:
                    self._trace("heartbeatFailed", broker=broker_name, addr=addr, error=repr(exc))
                    _LOG.warning("send heart beat to broker[%s %s] exception: %s", broker_name, addr, exc)
                    if getattr(exc, "response_code", None) == ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST:
                        self.heartbeat_refusals[addr] = str(getattr(exc, "error_message", None) or exc)

    def prepare_heartbeat_data(self) -> HeartbeatData:
        """This client's id, consumer groups (with subscriptions) and producer groups. Java: #prepareHeartbeatData."""
        consumers = [
            ConsumerData(
                impl.group_name(),
                impl.consume_type(),
                impl.message_model(),
                impl.consume_from_where(),
                list(impl.subscriptions()),
                impl.is_unit_mode(),
            )
            for impl in list(self.consumer_table.values())
            if impl is not None
        ]
        producers = [ProducerData(group) for group, impl in list(self.producer_table.items()) if impl is not None]
        return HeartbeatData(self.client_id, producers, consumers)

    # -- consumers -------------------------------------------------------------------------------------------
    def rebalance_immediately(self) -> None:
        """Wake the RebalanceService now. Java: MQClientInstance#rebalanceImmediately."""
        self._trace("rebalanceImmediately")
        if self.rebalance_service is not None:
            self.rebalance_service.wakeup()

    def do_rebalance(self) -> None:
        """Rebalance every consumer (one's failure does not stop the others). Java: MQClientInstance#doRebalance."""
        for group, impl in list(self.consumer_table.items()):
            try:
                impl.do_rebalance()
            except Exception as exc:
                self._trace("rebalanceFailed", group=group, error=repr(exc))

    def persist_all_consumer_offset(self) -> None:
        """Java: MQClientInstance#persistAllConsumerOffset."""
        for impl in list(self.consumer_table.values()):
            impl.persist_consumer_offset()

    def reset_offset(self, topic: str, group: str, offset_table: Mapping[MessageQueue, int]) -> TimerHandle | None:
        """Move a push consumer of ``group`` to the offsets an admin tool reset it to, on the queues of ``topic``.

        1. ``suspend`` the consumer (its pulls wait) and drop and clear the process queue of every queue of
           ``topic`` in ``offset_table``: pulls and consumption still under way on them change nothing from now on;
        2. 10 s later (``finish_reset_offset``) set each such queue's offset, commit it to the broker and forget
           the queue (``remove_unnecessary_message_queue``), then ``resume``, whose rebalance takes the queues again
           and reads the new offsets from the broker.

        Java sleeps the 10 s in the thread that received the request, inside the instance's lock; mqlab schedules
        step 2 on the runtime's scheduler instead (virtual time in a simulation), so the caller returns at once.
        Only a push consumer is reset: for a lite pull consumer, or a group this client does not have, 4.9.3 does
        nothing (it logs "consumer does not exist"), and so does mqlab.

        Java: MQClientInstance#resetOffset

        Returns:
            The timer of step 2, or None when nothing is to be done.
        """
        from mqlab.client.impl.consumer.default_mq_push_consumer_impl import DefaultMQPushConsumerImpl

        with self._lock:
            impl = self.consumer_table.get(group)
            if not isinstance(impl, DefaultMQPushConsumerImpl):
                self._trace("resetOffset.noConsumer", group=group, topic=topic)
                return None
            impl.suspend()
            try:
                for mq, pq in list(impl.rebalance_impl.process_queue_table.items()):
                    if mq.topic == topic and mq in offset_table:
                        pq.dropped = True
                        pq.clear()
            except BaseException:
                impl.resume()
                raise
            self._trace("resetOffset.suspended", group=group, topic=topic, queues=len(offset_table))
            handle: list[TimerHandle] = []

            def finish() -> None:
                with self._lock, contextlib.suppress(ValueError, IndexError):  # shutdown walks it under this lock
                    self._timers.remove(handle[0])
                self.finish_reset_offset(impl, topic, group, offset_table)

            timer = self.runtime.scheduler.call_later(RESET_OFFSET_SETTLE_MILLIS, finish, name="resetOffset")
            handle.append(timer)
            self._timers.append(timer)  # cancelled if the instance shuts down first
            return timer

    def finish_reset_offset(
        self, impl: Any, topic: str, group: str, offset_table: Mapping[MessageQueue, int]
    ) -> list[MessageQueue]:
        """Step 2 of ``reset_offset``: set, commit and forget each reset queue, then resume; the queues reset.

        Java: MQClientInstance#resetOffset (after the sleep)
        """
        done: list[MessageQueue] = []
        with self._lock:
            try:
                table = impl.rebalance_impl.process_queue_table
                for mq in list(table.keys()):
                    offset = offset_table.get(mq)
                    if mq.topic != topic or offset is None:
                        continue
                    try:
                        impl.update_consume_offset(mq, offset)
                        impl.rebalance_impl.remove_unnecessary_message_queue(mq, table.get(mq))
                        table.pop(mq, None)
                        done.append(mq)
                    except Exception as exc:  # Java logs "reset offset failed" and goes on with the next queue
                        self._trace("resetOffset.failed", group=group, mq=str(mq), error=repr(exc))
                self._trace(
                    "resetOffset.done",
                    group=group,
                    topic=topic,
                    offsets=sorted(f"{mq.broker_name}:{mq.queue_id}={offset_table[mq]}" for mq in done),
                )
            finally:
                impl.resume()
        return done

    def consume_message_directly(self, msg: Any, consumer_group: str, broker_name: str | None) -> Any:
        """Let the group's push consumer consume ``msg`` now (its consume service); None for an unknown group.

        Java: MQClientInstance#consumeMessageDirectly (a lite pull consumer's group fails: Java's cast to the push
        implementation throws ClassCastException, which the remoting layer answers as SYSTEM_ERROR)

        Raises:
            TypeError: the group's consumer is not a push consumer.
        """
        impl = self.consumer_table.get(consumer_group)
        if impl is None:
            return None
        service = getattr(impl, "consume_message_service", None)
        if service is None:
            raise TypeError(f"{type(impl).__name__} cannot be cast to DefaultMQPushConsumerImpl")
        return service.consume_message_directly(msg, broker_name)

    def consumer_running_info(self, consumer_group: str) -> Any:
        """The consumer's ``consumer_running_info()`` plus the name servers, consume type and client version.

        None for an unknown group. ``PROP_NAMESERVER_ADDR`` lists the addresses, each followed by ``;``.

        Java: MQClientInstance#consumerRunningInfo
        """
        from mqlab.common.mq_version import CURRENT_VERSION, get_version_desc
        from mqlab.common.protocol.body import consumer_running_info as cri

        impl = self.consumer_table.get(consumer_group)
        info = impl.consumer_running_info() if impl is not None else None
        properties = getattr(info, "properties", None)
        if properties is not None:
            addrs = self.mq_client_api_impl.get_name_server_address_list() or []
            properties[cri.PROP_NAMESERVER_ADDR] = "".join(f"{addr};" for addr in addrs)
            properties[cri.PROP_CONSUME_TYPE] = impl.consume_type().name
            properties[cri.PROP_CLIENT_VERSION] = get_version_desc(CURRENT_VERSION)
        return info

    def __repr__(self) -> str:
        return f"MQClientInstance({self.client_id!r}, index={self.instance_index}, {self.service_state.name})"

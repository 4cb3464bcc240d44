"""Builders and stand-ins shared by the consumer tests (push, lite pull, rebalance, consume services).

* ``ConsumerCluster``: the ``ClientCluster`` of the producer tests plus consumers on their own nodes, a producer that
  sends numbered messages to chosen queues, and the broker's view of offsets and consumer groups.
* ``Recorder``: a listener (concurrent or orderly) that records what it saw, with a pluggable verdict.
* ``FakeFactory`` and friends: just enough of an MQClientInstance for unit tests of the pull loop, rebalance and the
  consume services, on a simulated runtime, recording every request instead of sending it.

Nothing here is library code.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from mqlab.client.consumer.default_lite_pull_consumer import DefaultLitePullConsumer
from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.consumer.listener.consume_orderly_status import ConsumeOrderlyStatus
from mqlab.client.exception.mq_broker_exception import MQBrokerException
from mqlab.client.impl.find_broker_result import FindBrokerResult
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.message.message import Message
from mqlab.common.message.message_client_ext import MessageClientExt
from mqlab.common.message.message_ext import MessageExt
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.service_state import ServiceState
from mqlab.runtime import SimulatedWorld
from mqlab.runtime.runtime import Runtime
from tests.client.cluster_fixtures import ClientCluster

TOPIC = "TopicTest"
BROKER = "broker-a"


# ==================================================================================================================
# A real (simulated) cluster with consumers
# ==================================================================================================================
class ConsumerCluster(ClientCluster):
    """ClientCluster + consumers; everything runs on one simulated world unless ``kind="tcp"``."""

    def __init__(self, tmp_path, kind: str = "sim", **kwargs: Any):
        super().__init__(tmp_path, kind, **kwargs)
        self.consumers: list[Any] = []
        self._sender = None

    def push_consumer(
        self,
        group: str,
        listener: Any,
        *,
        topics: dict[str, str] | None = None,
        orderly: bool | None = None,
        node: str | None = None,
        start: bool = True,
        **settings: Any,
    ) -> DefaultMQPushConsumer:
        settings.setdefault("consume_from_where", ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET)
        consumer = DefaultMQPushConsumer(group, self.client_runtime(node), namesrv_addr=self.namesrv_addr, **settings)
        for topic, expression in (topics or {TOPIC: "*"}).items():
            consumer.subscribe(topic, expression)
        consumer.register_message_listener(listener, orderly=orderly)
        if start:
            consumer.start()
        self.consumers.append(consumer)
        return consumer

    def lite_consumer(self, group: str, *, node: str | None = None, **settings: Any) -> DefaultLitePullConsumer:
        settings.setdefault("consume_from_where", ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET)
        consumer = DefaultLitePullConsumer(group, self.client_runtime(node), namesrv_addr=self.namesrv_addr, **settings)
        self.consumers.append(consumer)
        return consumer

    @property
    def sender(self):
        if self._sender is None:
            self._sender = self.producer("PG", runtime=self.client_runtime("producer"))
        return self._sender

    def send(self, count: int, *, topic: str = TOPIC, queue: int | None = None, tags: str | None = "TagA",
             start: int = 0) -> list[str]:  # fmt: skip
        """Send ``count`` messages with bodies ``b"<i>"`` (to queue ``queue`` if given); returns their UNIQ_KEYs."""
        ids = []
        for i in range(start, start + count):
            msg = Message(topic, tags, None, str(i).encode())
            if queue is None:
                result = self.sender.send(msg)
            else:
                result = self.sender.send(msg, MessageQueue(topic, BROKER, queue))
            ids.append(result.msg_id)
        return ids

    def broker_offset(self, group: str, topic: str, queue_id: int, broker: str = BROKER) -> int:
        return self.brokers[broker].consumer_offset_manager.query_offset(group, topic, queue_id)

    def broker_max_offset(self, topic: str, queue_id: int, broker: str = BROKER) -> int:
        return self.brokers[broker].message_store.get_max_offset_in_queue(topic, queue_id)

    def group_client_ids(self, group: str, broker: str = BROKER) -> list[str]:
        info = self.brokers[broker].consumer_manager.get_consumer_group_info(group)
        return [] if info is None else sorted(info.get_all_client_id())

    def trace(self, component: str, event: str | None = None, node: str | None = None) -> list[dict[str, Any]]:
        assert self.world is not None
        return [e.fields for e in self.world.trace.events(component, node=node, event=event)]

    def close(self) -> None:
        for consumer in self.consumers:
            with contextlib.suppress(Exception):  # a test may have shut it down or broken it on purpose
                consumer.shutdown()
        super().close()


# ==================================================================================================================
# Listeners
# ==================================================================================================================
class Recorder:
    """Records every call; ``verdict(msgs, context)`` decides the answer (success by default).

    ``calls``: (virtual ms, [(topic, queue id, offset, body, reconsumeTimes)]) per call.
    """

    def __init__(self, runtime_now: Callable[[], int], verdict: Callable[[list[MessageExt], Any], Any] | None = None,
                 *, orderly: bool = False):  # fmt: skip
        self.now = runtime_now
        self.verdict = verdict
        self.orderly = orderly
        self.calls: list[tuple[int, list[tuple[str, int, int, bytes, int]]]] = []
        self.messages: list[MessageExt] = []

    def __call__(self, msgs: list[MessageExt], context: Any) -> Any:
        self.calls.append(
            (self.now(), [(m.topic, m.queue_id, m.queue_offset, m.body, m.reconsume_times) for m in msgs])
        )
        self.messages.extend(msgs)
        if self.verdict is not None:
            return self.verdict(msgs, context)
        return ConsumeOrderlyStatus.SUCCESS if self.orderly else ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    @property
    def bodies(self) -> list[bytes]:
        return [body for _, batch in self.calls for *_, body, _ in batch]


# ==================================================================================================================
# Fakes for unit tests
# ==================================================================================================================
class FakePullMessageService:
    """Records what the pull loop puts back (``delay`` None = immediately) and the tasks it schedules."""

    def __init__(self) -> None:
        self.requests: list[tuple[Any, int | None]] = []
        self.tasks: list[tuple[Callable[[], Any], int]] = []

    def execute_pull_request_later(self, pull_request: Any, time_delay: int) -> None:
        self.requests.append((pull_request, time_delay))

    def execute_pull_request_immediately(self, pull_request: Any) -> None:
        self.requests.append((pull_request, None))

    def execute_task_later(self, task: Callable[[], Any], time_delay: int) -> None:
        self.tasks.append((task, time_delay))


class FakeAPI:
    """The MQClientAPIImpl calls consumers make, recorded; answers are settable."""

    def __init__(self) -> None:
        self.pulls: list[tuple[str, Any, int, Any, Any]] = []
        self.send_backs: list[tuple[str, MessageExt, str, int, int, int]] = []
        self.send_back_error: Exception | None = None
        self.locks: list[tuple[str, Any]] = []
        self.unlocks: list[tuple[str, Any, bool]] = []
        self.lockable: set[MessageQueue] | None = None  # None: every queue asked for is granted
        self.offset_updates: list[tuple[str, Any]] = []
        self.broker_offsets: dict[MessageQueue, int] = {}

    def pull_message(self, addr, request_header, timeout_millis, communication_mode, pull_callback=None):
        self.pulls.append((addr, request_header, timeout_millis, communication_mode, pull_callback))
        return None

    def consumer_send_message_back(self, addr, msg, group, delay_level, timeout_millis, max_times):
        self.send_backs.append((addr, msg, group, delay_level, timeout_millis, max_times))
        if self.send_back_error is not None:
            raise self.send_back_error

    def lock_batch_mq(self, addr, request_body, timeout_millis):
        self.locks.append((addr, request_body))
        asked = set(request_body.mq_set)
        return asked if self.lockable is None else asked & self.lockable

    def unlock_batch_mq(self, addr, request_body, timeout_millis, oneway):
        self.unlocks.append((addr, request_body, oneway))

    def query_consumer_offset(self, addr, header, timeout_millis):
        mq = MessageQueue(header.topic, BROKER, header.queue_id)
        if mq not in self.broker_offsets:
            raise MQBrokerException(22, "Not found, V3_0_6_SNAPSHOT maybe not online", addr)
        return self.broker_offsets[mq]

    def update_consumer_offset(self, addr, header, timeout_millis):
        self.offset_updates.append((addr, header))

    def update_consumer_offset_oneway(self, addr, header, timeout_millis):
        self.offset_updates.append((addr, header))


class FakeAdmin:
    """MQAdminImpl's offset questions."""

    def __init__(self) -> None:
        self.max_offsets: dict[MessageQueue, int] = {}
        self.searched: list[tuple[MessageQueue, int]] = []
        self.search_result = 7
        self.error: Exception | None = None

    def max_offset(self, mq: MessageQueue) -> int:
        if self.error is not None:
            raise self.error
        return self.max_offsets.get(mq, 100)

    def min_offset(self, mq: MessageQueue) -> int:
        return 0

    def search_offset(self, mq: MessageQueue, timestamp: int) -> int:
        if self.error is not None:
            raise self.error
        self.searched.append((mq, timestamp))
        return self.search_result


class FakeProducer:
    """The inner producer: records sends, or raises ``error``."""

    def __init__(self) -> None:
        self.sent: list[Message] = []
        self.error: Exception | None = None

    def send(self, msg: Message) -> None:
        if self.error is not None:
            raise self.error
        self.sent.append(msg)


class FakeFactory:
    """Enough of an MQClientInstance for unit tests: one broker, fixed consumer ids, recorded calls."""

    def __init__(self, runtime: Runtime, client_id: str = "10.0.0.9@c1", *, broker_addr: str = "10.0.0.11:10911"):
        self.runtime = runtime
        self.client_id = client_id
        self.broker_addr = broker_addr
        self.pull_message_service = FakePullMessageService()
        self.mq_client_api_impl = FakeAPI()
        self.mq_admin_impl = FakeAdmin()
        self.default_mq_producer = FakeProducer()
        self.cid_all: list[str] | None = [client_id]
        self.heartbeats = 0
        self.route_updates: list[str] = []
        self.slave = False

    def find_broker_address_in_subscribe(self, broker_name, broker_id, only_this_broker):
        if broker_name != BROKER:
            return None
        return FindBrokerResult(self.broker_addr, self.slave, 0)

    def find_broker_address_in_publish(self, broker_name):
        return self.broker_addr if broker_name == BROKER else None

    def find_consumer_id_list(self, topic, group):
        return None if self.cid_all is None else list(self.cid_all)

    def update_topic_route_info_from_name_server(self, topic=None, *args):
        self.route_updates.append(topic)
        return False

    def send_heartbeat_to_all_broker_with_lock(self):
        self.heartbeats += 1


class FakeOffsetStore:
    """An in-memory OffsetStore that records persists (READ_FROM_STORE answers from ``stored``)."""

    def __init__(self) -> None:
        self.offset_table: dict[MessageQueue, int] = {}
        self.stored: dict[MessageQueue, int] = {}
        self.persisted: list[MessageQueue] = []
        self.persist_all_calls: list[set[MessageQueue]] = []
        self.removed: list[MessageQueue] = []
        self.store_answer: int | None = None  # force READ_FROM_STORE to answer this (e.g. -2)

    def load(self) -> None:
        pass

    def update_offset(self, mq, offset, increase_only):
        old = self.offset_table.get(mq)
        if old is None or not increase_only or offset > old:
            self.offset_table[mq] = offset

    def read_offset(self, mq, read_type):
        from mqlab.client.consumer.store.read_offset_type import ReadOffsetType

        if read_type in (ReadOffsetType.READ_FROM_MEMORY, ReadOffsetType.MEMORY_FIRST_THEN_STORE):
            if mq in self.offset_table:
                return self.offset_table[mq]
            if read_type is ReadOffsetType.READ_FROM_MEMORY:
                return -1
        if self.store_answer is not None:
            return self.store_answer
        return self.stored.get(mq, -1)

    def persist_all(self, mqs):
        self.persist_all_calls.append(set(mqs))

    def persist(self, mq):
        self.persisted.append(mq)
        if mq in self.offset_table:
            self.stored[mq] = self.offset_table[mq]

    def remove_offset(self, mq):
        self.removed.append(mq)
        self.offset_table.pop(mq, None)

    def clone_offset_table(self, topic):
        return dict(self.offset_table)

    def update_consume_offset_to_broker(self, mq, offset, is_oneway=True):
        pass


def sim_runtime(node: str = "consumer", seed: int = 5) -> tuple[SimulatedWorld, Runtime]:
    world = SimulatedWorld(seed)
    return world, world.runtime(node, ip="10.0.0.9")


def wired_push_consumer(
    listener: Any = None,
    *,
    orderly: bool = False,
    world_seed: int = 5,
    consume_service: Any = "real",
    **settings: Any,
) -> tuple[SimulatedWorld, DefaultMQPushConsumer, FakeFactory, FakeOffsetStore]:
    """A DefaultMQPushConsumer wired to fakes and set RUNNING, without ``start()`` (no network at all).

    ``consume_service``: "real" builds the consume service of the listener's kind (not started), or pass an
    object to use instead.
    """
    from mqlab.client.impl.consumer.pull_api_wrapper import PullAPIWrapper

    world, runtime = sim_runtime(seed=world_seed)
    consumer = DefaultMQPushConsumer("CG", runtime, **settings)
    if listener is None:
        listener = Recorder(runtime.now_ms, orderly=orderly)
    consumer.register_message_listener(listener, orderly=orderly)
    consumer.subscribe(TOPIC, "*")
    impl = consumer.default_mq_push_consumer_impl
    factory = FakeFactory(runtime)
    store = FakeOffsetStore()
    impl.mq_client_factory = factory
    impl.offset_store = store
    consumer.offset_store = store
    impl.copy_subscription()
    rebalance = impl.rebalance_impl
    rebalance.consumer_group = consumer.consumer_group
    rebalance.message_model = consumer.message_model
    rebalance.allocate_message_queue_strategy = consumer.allocate_message_queue_strategy
    rebalance.mq_client_factory = factory
    impl.pull_api_wrapper = PullAPIWrapper(factory, consumer.consumer_group, False)
    if consume_service == "real":
        impl.consume_message_service = impl._new_consume_message_service()
    else:
        impl.consume_message_service = consume_service
        impl.consume_orderly = orderly
    impl.service_state = ServiceState.RUNNING
    return world, consumer, factory, store


def pulled(offsets: list[int], *, topic: str = TOPIC, queue_id: int = 0, tags: str | None = "TagA",
           body_len: int = 10) -> list[MessageExt]:  # fmt: skip
    """Messages as a pull would hand them over (queue offsets, bodies, a UNIQ_KEY each)."""
    msgs = []
    for offset in offsets:
        msg = MessageClientExt(topic, tags, None, bytes(body_len))
        msg.queue_offset = offset
        msg.queue_id = queue_id
        msg.broker_name = BROKER
        msg.commit_log_offset = 1000 + offset
        msg.put_property("UNIQ_KEY", f"ID{offset:04d}")
        msgs.append(msg)
    return msgs


def queue(queue_id: int = 0, topic: str = TOPIC) -> MessageQueue:
    return MessageQueue(topic, BROKER, queue_id)

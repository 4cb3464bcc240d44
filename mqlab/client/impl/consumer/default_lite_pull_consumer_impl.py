"""The engine of a lite pull consumer: one pull task per queue fills a local cache, and ``poll`` hands it out.

Queues come from ``subscribe`` (rebalance decides, as for a push consumer, and tells ``MessageQueueListenerImpl``) or
from ``assign`` (the user lists them); the two modes exclude each other. For each queue a ``PullTaskImpl`` runs again
and again: skip while paused (1 s) or while the cache is too full (50 ms: more than ``pullThresholdForAll`` messages
waiting for ``poll`` in total, or the queue's count / size / span thresholds), take the next offset (a pending
``seek`` first, then the last pull's ``nextBeginOffset``, else the rebalance start offset), pull ``pullBatchSize``
messages with long polling (the broker holds the request up to ``brokerSuspendMaxTimeMillis``, 20 s), cache what
was found and put it in the consume-request cache, and go again at once.

``poll(timeout)`` takes the next batch from the cache (waiting up to ``timeout``), removes it from its ProcessQueue
and records the returned offset as the queue's *consume offset*; with ``autoCommit`` it first commits every queue's
consume offset when ``autoCommitIntervalMillis`` has passed. Committing writes the offset store in memory; the
client instance pushes it to the broker every 5 s (``persist_consumer_offset``). ``seek`` throws the queue's cached
messages away and restarts its pull task at the new offset.

Java: org.apache.rocketmq.client.impl.consumer.DefaultLitePullConsumerImpl (rocketmq-all-4.9.3), with its inner
classes PullTaskImpl, ConsumeRequest, MessageQueueListenerImpl and the SubscriptionType enum (kept in this module).
Differences: Java's pull task pulls synchronously on a pool thread; mqlab sends the same request asynchronously and
continues in the callback, so a simulated world never nests 20-second waits inside each other (the steps and their
order are unchanged). Left out: hooks, message tracing, namespaces and the topic-metadata change listeners
(``registerTopicMessageQueueChangeListener``).
"""

from __future__ import annotations

import collections
import contextlib
import enum
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqlab.client import validators
from mqlab.client.consumer.pull_status import PullStatus
from mqlab.client.consumer.store.local_file_offset_store import (
    DEFAULT_LOCAL_OFFSET_STORE_DIR_NAME,
    LocalFileOffsetStore,
)
from mqlab.client.consumer.store.read_offset_type import ReadOffsetType
from mqlab.client.consumer.store.remote_broker_offset_store import RemoteBrokerOffsetStore
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.communication_mode import CommunicationMode
from mqlab.client.impl.consumer.assigned_message_queue import AssignedMessageQueue
from mqlab.client.impl.consumer.message_queue_lock import MessageQueueLock
from mqlab.client.impl.consumer.process_queue import ProcessQueue
from mqlab.client.impl.consumer.pull_api_wrapper import PullAPIWrapper
from mqlab.client.impl.consumer.rebalance_lite_pull_impl import RebalanceLitePullImpl
from mqlab.client.impl.mq_client_manager import MQClientManager, nano_time
from mqlab.common import mix_all
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.filter import expression_type, filter_api
from mqlab.common.protocol.body import consumer_running_info as cri
from mqlab.common.protocol.body.consumer_running_info import ConsumerRunningInfo
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.protocol.heartbeat.subscription_data import SUB_ALL
from mqlab.common.service_state import ServiceState
from mqlab.common.sysflag.pull_sys_flag import build_sys_flag
from mqlab.runtime.scheduler import FutureTimeoutError

if TYPE_CHECKING:
    from collections.abc import Collection, Set

    from mqlab.client.consumer.default_lite_pull_consumer import DefaultLitePullConsumer
    from mqlab.client.consumer.message_selector import MessageSelector
    from mqlab.client.consumer.pull_result import PullResult
    from mqlab.client.consumer.store.offset_store import OffsetStore
    from mqlab.client.impl.factory.mq_client_instance import MQClientInstance
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.message.message_queue import MessageQueue
    from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.runtime.runtime import Runtime

COMPONENT = "DefaultLitePullConsumerImpl"
NOT_RUNNING_EXCEPTION_MESSAGE = "The consumer not running, please start it first."
SUBSCRIPTION_CONFLICT_EXCEPTION_MESSAGE = "Subscribe and assign are mutually exclusive."
# Java: the constants of DefaultLitePullConsumerImpl.
PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL = 50
PULL_TIME_DELAY_MILLS_WHEN_PAUSE = 1000
PULL_TIME_DELAY_MILLS_ON_EXCEPTION = 3 * 1000
FLOW_CONTROL_WARN_EVERY = 1000
_MIB = 1024 * 1024


class SubscriptionType(enum.Enum):
    """How the consumer got its queues. Java: DefaultLitePullConsumerImpl$SubscriptionType."""

    NONE = "NONE"
    SUBSCRIBE = "SUBSCRIBE"
    ASSIGN = "ASSIGN"


class ConsumeRequest:
    """A pulled batch waiting for ``poll``. Java: DefaultLitePullConsumerImpl$ConsumeRequest."""

    __slots__ = ("message_exts", "message_queue", "process_queue")

    def __init__(self, message_exts: list[MessageExt], message_queue: MessageQueue, process_queue: ProcessQueue):
        self.message_exts = message_exts
        self.message_queue = message_queue
        self.process_queue = process_queue


class DefaultLitePullConsumerImpl:
    """The lite pull consumer behind a ``DefaultLitePullConsumer`` façade.

    Args:
        default_lite_pull_consumer: the façade, which is also the configuration.
        runtime: the node the consumer runs on.
        rpc_hook: passed to the client instance.
    """

    def __init__(self, default_lite_pull_consumer: DefaultLitePullConsumer, runtime: Runtime, rpc_hook: RPCHook | None):
        self.default_lite_pull_consumer = default_lite_pull_consumer
        self.runtime = runtime
        self.rpc_hook = rpc_hook
        self.consumer_start_timestamp = runtime.now_ms()
        self.service_state = ServiceState.CREATE_JUST
        self.mq_client_factory: MQClientInstance | None = None
        self.pull_api_wrapper: PullAPIWrapper | None = None
        self.offset_store: OffsetStore | None = None
        self.rebalance_impl = RebalanceLitePullImpl(self)
        self.subscription_type = SubscriptionType.NONE
        self.pull_time_delay_mills_when_exception = default_lite_pull_consumer.pull_time_delay_mills_when_exception
        self.task_table: dict[MessageQueue, PullTaskImpl] = {}
        self.assigned_message_queue = AssignedMessageQueue(self._new_process_queue)
        self.consume_request_cache: collections.deque[ConsumeRequest] = collections.deque()
        self.consume_request_flow_control_times = 0
        self.queue_flow_control_times = 0
        self.queue_max_span_flow_control_times = 0
        self.next_auto_commit_deadline = -1
        self.message_queue_lock = MessageQueueLock(runtime.new_lock)
        self._lock = runtime.new_lock()  # Java: the synchronized methods
        self._cache_lock = threading.Lock()
        self._cache_waiters: list[Any] = []

    def _trace(self, event: str, **fields: Any) -> None:
        self.runtime.trace_event(COMPONENT, event, group=self.default_lite_pull_consumer.consumer_group, **fields)

    def _new_process_queue(self) -> ProcessQueue:
        return ProcessQueue(self.runtime.now_ms, lock_factory=self.runtime.new_lock)

    def check_service_state(self) -> None:
        """Raises ``RuntimeError`` (Java: IllegalStateException) unless RUNNING.

        Java: DefaultLitePullConsumerImpl#checkServiceState
        """
        if self.service_state is not ServiceState.RUNNING:
            raise RuntimeError(NOT_RUNNING_EXCEPTION_MESSAGE)

    def set_subscription_type(self, subscription_type: SubscriptionType) -> None:
        """The first of subscribe / assign wins; the other one is refused afterwards.

        Java: DefaultLitePullConsumerImpl#setSubscriptionType
        """
        with self._lock:
            if self.subscription_type is SubscriptionType.NONE:
                self.subscription_type = subscription_type
            elif self.subscription_type is not subscription_type:
                raise RuntimeError(SUBSCRIPTION_CONFLICT_EXCEPTION_MESSAGE)

    # -- life cycle ------------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Check, client instance (registered before it starts), rebalance, pull wrapper, offset store, start.

        Java: DefaultLitePullConsumerImpl#start

        Raises:
            MQClientException: bad configuration, duplicate group, or started before.
        """
        consumer = self.default_lite_pull_consumer
        with self._lock:
            if self.service_state is not ServiceState.CREATE_JUST:
                raise MQClientException(
                    f"The PullConsumer service state not OK, maybe started once, {self.service_state.name}"
                )
            self.service_state = ServiceState.START_FAILED
            self.check_config()
            if consumer.message_model is MessageModel.CLUSTERING:
                consumer.change_instance_name_to_pid(self.runtime.host.pid, nano_time(self.runtime))
            self._init_mq_client_factory()
            self._init_rebalance_impl()
            self.pull_api_wrapper = PullAPIWrapper(self.mq_client_factory, consumer.consumer_group, self.is_unit_mode())
            self._init_offset_store()
            self.mq_client_factory.start()
            self.service_state = ServiceState.RUNNING
            self._trace("start", clientId=self.mq_client_factory.client_id, mode=self.subscription_type.name)
            self._operate_after_running()

    def _init_mq_client_factory(self) -> None:
        """Java: DefaultLitePullConsumerImpl#initMQClientFactory."""
        consumer = self.default_lite_pull_consumer
        factory = MQClientManager.get_instance(self.runtime).get_or_create_mq_client_instance(consumer, self.rpc_hook)
        self.mq_client_factory = factory
        if not factory.register_consumer(consumer.consumer_group, self):
            self.service_state = ServiceState.CREATE_JUST
            raise MQClientException(
                f"The consumer group[{consumer.consumer_group}] has been created before, specify another name please."
            )

    def _init_rebalance_impl(self) -> None:
        """Java: DefaultLitePullConsumerImpl#initRebalanceImpl."""
        consumer = self.default_lite_pull_consumer
        self.rebalance_impl.consumer_group = consumer.consumer_group
        self.rebalance_impl.message_model = consumer.message_model
        self.rebalance_impl.allocate_message_queue_strategy = consumer.allocate_message_queue_strategy
        self.rebalance_impl.mq_client_factory = self.mq_client_factory

    def _init_offset_store(self) -> None:
        """Java: DefaultLitePullConsumerImpl#initOffsetStore."""
        consumer = self.default_lite_pull_consumer
        factory = self.mq_client_factory
        if consumer.offset_store is not None:
            self.offset_store = consumer.offset_store
        elif consumer.message_model is MessageModel.BROADCASTING:
            store_dir = consumer.local_offset_store_dir or Path.home() / DEFAULT_LOCAL_OFFSET_STORE_DIR_NAME
            self.offset_store = LocalFileOffsetStore(factory.client_id, consumer.consumer_group, store_dir)
        else:
            self.offset_store = RemoteBrokerOffsetStore(
                factory.mq_client_api_impl,
                consumer.consumer_group,
                find_broker_address=lambda name, broker_id, only: _addr(
                    factory.find_broker_address_in_subscribe(name, broker_id, only)
                ),
                update_topic_route_info=factory.update_topic_route_info_from_name_server,
                client_id=factory.client_id,
            )
        consumer.offset_store = self.offset_store
        self.offset_store.load()

    def _operate_after_running(self) -> None:
        """Routes of subscribed topics, or the pull tasks of assigned queues. Java: #operateAfterRunning."""
        if self.subscription_type is SubscriptionType.SUBSCRIBE:
            self.update_topic_subscribe_info_when_subscription_changed()
        if self.subscription_type is SubscriptionType.ASSIGN:
            self.update_assign_pull_task(self.assigned_message_queue.message_queues())

    def check_config(self) -> None:
        """Java: DefaultLitePullConsumerImpl#checkConfig."""
        consumer = self.default_lite_pull_consumer
        validators.check_group(consumer.consumer_group)
        if consumer.message_model is MessageModel.BROADCASTING:  # mqlab (HARD-15): these become directories
            validators.check_local_offset_store_names(consumer.instance_name, consumer.unit_name)
        if consumer.consumer_group == mix_all.DEFAULT_CONSUMER_GROUP:
            raise MQClientException(
                f"consumerGroup can not equal {mix_all.DEFAULT_CONSUMER_GROUP}, please specify another one."
            )
        if consumer.message_model is None:
            raise MQClientException("messageModel is null")
        if consumer.allocate_message_queue_strategy is None:
            raise MQClientException("allocateMessageQueueStrategy is null")
        if consumer.consumer_timeout_millis_when_suspend < consumer.broker_suspend_max_time_millis:
            raise MQClientException(
                "Long polling mode, the consumer consumerTimeoutMillisWhenSuspend must greater than "
                "brokerSuspendMaxTimeMillis"
            )

    def shutdown(self) -> None:
        """Persist offsets, leave the group, cancel the pull tasks, stop the instance.

        Java: DefaultLitePullConsumerImpl#shutdown
        """
        with self._lock:
            if self.service_state is not ServiceState.RUNNING:
                return
            self.persist_consumer_offset()
            self.mq_client_factory.unregister_consumer(self.default_lite_pull_consumer.consumer_group)
            for task in list(self.task_table.values()):
                task.cancelled = True
            self.task_table.clear()
            self.mq_client_factory.shutdown()
            self.service_state = ServiceState.SHUTDOWN_ALREADY
            self._trace("shutdown")

    def is_running(self) -> bool:
        """Java: DefaultLitePullConsumerImpl#isRunning."""
        return self.service_state is ServiceState.RUNNING

    # -- queues ----------------------------------------------------------------------------------------------------
    def subscribe(self, topic: str, sub_expression: str | MessageSelector | None) -> None:
        """Subscribe mode: rebalance will assign this topic's queues.

        Java: DefaultLitePullConsumerImpl#subscribe (both overloads)
        """
        if not topic:
            raise MQClientException("subscribe exception", cause=ValueError("Topic can not be null or empty."))
        self.set_subscription_type(SubscriptionType.SUBSCRIBE)
        try:
            if sub_expression is None or isinstance(sub_expression, str):
                data = filter_api.build_subscription_data(topic, sub_expression or SUB_ALL)
            else:
                data = filter_api.build(topic, sub_expression.expression, sub_expression.expression_type)
        except Exception as exc:
            raise MQClientException("subscribe exception", cause=exc) from exc
        self.rebalance_impl.subscription_inner[topic] = data
        self.default_lite_pull_consumer.message_queue_listener = MessageQueueListenerImpl(self)
        self.assigned_message_queue.rebalance_impl = self.rebalance_impl
        if self.service_state is ServiceState.RUNNING:
            self.mq_client_factory.send_heartbeat_to_all_broker_with_lock()
            self.update_topic_subscribe_info_when_subscription_changed()

    def unsubscribe(self, topic: str) -> None:
        """Java: DefaultLitePullConsumerImpl#unsubscribe."""
        with self._lock:
            self.rebalance_impl.subscription_inner.pop(topic, None)
            self.remove_pull_task(topic)
            self.assigned_message_queue.remove_assigned_message_queue(topic)

    def assign(self, message_queues: Collection[MessageQueue]) -> None:
        """Assign mode: pull exactly these queues.

        Java: DefaultLitePullConsumerImpl#assign
        """
        if not message_queues:
            raise ValueError("Message queues can not be null or empty.")
        self.set_subscription_type(SubscriptionType.ASSIGN)
        with self._lock:
            self.assigned_message_queue.update_assigned_message_queue(list(message_queues))
            if self.service_state is ServiceState.RUNNING:
                self.update_assign_pull_task(list(message_queues))

    def update_topic_subscribe_info_when_subscription_changed(self) -> None:
        """Java: DefaultLitePullConsumerImpl#updateTopicSubscribeInfoWhenSubscriptionChanged."""
        for topic in list(self.rebalance_impl.subscription_inner.keys()):
            self.mq_client_factory.update_topic_route_info_from_name_server(topic)

    def update_pull_task(self, topic: str, mq_new_set: Collection[MessageQueue]) -> None:
        """Cancel the tasks of ``topic``'s queues not in the new set; start tasks for new queues.

        Java: DefaultLitePullConsumerImpl#updatePullTask
        """
        for mq, task in list(self.task_table.items()):
            if mq.topic == topic and mq not in mq_new_set:
                task.cancelled = True
                del self.task_table[mq]
        self.start_pull_task(mq_new_set)

    def update_assign_pull_task(self, mq_new_set: Collection[MessageQueue]) -> None:
        """Java: DefaultLitePullConsumerImpl#updateAssignPullTask."""
        for mq, task in list(self.task_table.items()):
            if mq not in mq_new_set:
                task.cancelled = True
                del self.task_table[mq]
        self.start_pull_task(mq_new_set)

    def start_pull_task(self, mq_set: Collection[MessageQueue]) -> None:
        """One task per queue without one, run at once. Java: DefaultLitePullConsumerImpl#startPullTask."""
        for mq in sorted(mq_set):
            if mq not in self.task_table:
                task = PullTaskImpl(self, mq)
                self.task_table[mq] = task
                task.schedule(0)

    def remove_pull_task(self, topic: str) -> None:
        """Java: DefaultLitePullConsumerImpl#removePullTask."""
        for mq, task in list(self.task_table.items()):
            if mq.topic == topic:
                task.cancelled = True
                del self.task_table[mq]

    # -- polling and committing ------------------------------------------------------------------------------------
    def poll(self, timeout: int) -> list[MessageExt]:
        """The next pulled batch (waiting up to ``timeout`` ms), or an empty list.

        Java: DefaultLitePullConsumerImpl#poll
        """
        with self._lock:
            self.check_service_state()
            if timeout < 0:
                raise ValueError("Timeout must not be negative")
            if self.default_lite_pull_consumer.auto_commit:
                self.maybe_auto_commit()
            end_time = self.runtime.now_ms() + timeout
            consume_request = self._take_consume_request(end_time - self.runtime.now_ms())
            if end_time - self.runtime.now_ms() > 0:
                while consume_request is not None and consume_request.process_queue.dropped:
                    consume_request = self._take_consume_request(end_time - self.runtime.now_ms())
                    if end_time - self.runtime.now_ms() <= 0:
                        break
            if consume_request is None or consume_request.process_queue.dropped:
                return []
            messages = consume_request.message_exts
            offset = consume_request.process_queue.remove_message(messages)
            self.assigned_message_queue.update_consume_offset(consume_request.message_queue, offset)
            self._trace("poll", mq=str(consume_request.message_queue), count=len(messages), consumeOffset=offset)
            return messages

    def _take_consume_request(self, timeout_ms: int) -> ConsumeRequest | None:
        """Java: ``consumeRequestCache.poll(timeout)``: the oldest request, waiting for one if the cache is empty."""
        with self._cache_lock:
            if self.consume_request_cache:
                return self.consume_request_cache.popleft()
            if timeout_ms <= 0:
                return None
            waiter = self.runtime.scheduler.new_future()
            self._cache_waiters.append(waiter)
        with contextlib.suppress(FutureTimeoutError):  # a timeout just means nothing arrived
            waiter.result(timeout_ms)
        with self._cache_lock:
            if waiter in self._cache_waiters:
                self._cache_waiters.remove(waiter)
            return self.consume_request_cache.popleft() if self.consume_request_cache else None

    def submit_consume_request(self, consume_request: ConsumeRequest) -> None:
        """Queue a pulled batch for ``poll`` (and wake a waiting ``poll``).

        Java: DefaultLitePullConsumerImpl#submitConsumeRequest
        """
        with self._cache_lock:
            self.consume_request_cache.append(consume_request)
            waiters, self._cache_waiters = self._cache_waiters, []
        for waiter in waiters:
            waiter.set_result(None)

    def maybe_auto_commit(self) -> None:
        """Commit everything when the auto-commit deadline has passed. Java: #maybeAutoCommit."""
        now = self.runtime.now_ms()
        if now >= self.next_auto_commit_deadline:
            self.commit_all()
            self.next_auto_commit_deadline = now + self.default_lite_pull_consumer.auto_commit_interval_millis

    def commit_all(self) -> None:
        """Every queue's consume offset into the offset store; BROADCASTING also writes the file now.

        Java: DefaultLitePullConsumerImpl#commitAll
        """
        with self._lock:
            try:
                committed = {}
                for mq in self.assigned_message_queue.message_queues():
                    consumer_offset = self.assigned_message_queue.get_consumer_offset(mq)
                    if consumer_offset != -1:
                        pq = self.assigned_message_queue.get_process_queue(mq)
                        if pq is not None and not pq.dropped:
                            self.update_consume_offset(mq, consumer_offset)
                            committed[f"{mq.broker_name}:{mq.queue_id}"] = consumer_offset
                if self.default_lite_pull_consumer.message_model is MessageModel.BROADCASTING:
                    self.offset_store.persist_all(set(self.assigned_message_queue.message_queues()))
                self._trace("commitAll", offsets=committed)
            except Exception as exc:  # Java logs "An error occurred when update consume offset Automatically."
                self._trace("commitAllFailed", error=repr(exc))

    def update_consume_offset(self, mq: MessageQueue, offset: int) -> None:
        """Java: DefaultLitePullConsumerImpl#updateConsumeOffset."""
        self.check_service_state()
        self.offset_store.update_offset(mq, offset, False)

    def committed(self, mq: MessageQueue) -> int:
        """The offset store's offset of ``mq`` (memory first).

        Java: DefaultLitePullConsumerImpl#committed

        Raises:
            MQClientException: the broker could not be asked.
        """
        self.check_service_state()
        offset = self.offset_store.read_offset(mq, ReadOffsetType.MEMORY_FIRST_THEN_STORE)
        if offset == -2:
            raise MQClientException("Fetch consume offset from broker exception")
        return offset

    def pause(self, message_queues: Collection[MessageQueue]) -> None:
        """Java: DefaultLitePullConsumerImpl#pause."""
        self.assigned_message_queue.pause(message_queues)

    def resume(self, message_queues: Collection[MessageQueue]) -> None:
        """Java: DefaultLitePullConsumerImpl#resume."""
        self.assigned_message_queue.resume(message_queues)

    def seek(self, mq: MessageQueue, offset: int) -> None:
        """Restart ``mq`` at ``offset`` (within the queue's min and max offsets): cached messages are discarded.

        Java: DefaultLitePullConsumerImpl#seek

        Raises:
            MQClientException: the queue is not assigned, or the offset is out of range.
        """
        with self._lock:
            if mq not in self.assigned_message_queue.message_queues():
                if self.subscription_type is SubscriptionType.SUBSCRIBE:
                    raise MQClientException(
                        f"The message queue is not in assigned list, may be rebalancing, message queue: {mq}"
                    )
                raise MQClientException(f"The message queue is not in assigned list, message queue: {mq}")
            min_offset = self.min_offset(mq)
            max_offset = self.max_offset(mq)
            if offset < min_offset or offset > max_offset:
                raise MQClientException(
                    f"Seek offset illegal, seek offset = {offset}, min offset = {min_offset}, max offset = {max_offset}"
                )
            with self.message_queue_lock.fetch_lock_object(mq):
                self.clear_message_queue_in_cache(mq)
                old_task = self.task_table.pop(mq, None)
                if old_task is not None:
                    old_task.cancelled = True  # Java: tryInterrupt
                self.assigned_message_queue.set_seek_offset(mq, offset)
                task = PullTaskImpl(self, mq)
                self.task_table[mq] = task
                task.schedule(0)
            self._trace("seek", mq=str(mq), offset=offset)

    def seek_to_begin(self, mq: MessageQueue) -> None:
        """Java: DefaultLitePullConsumerImpl#seekToBegin."""
        self.seek(mq, self.min_offset(mq))

    def seek_to_end(self, mq: MessageQueue) -> None:
        """Java: DefaultLitePullConsumerImpl#seekToEnd."""
        self.seek(mq, self.max_offset(mq))

    def max_offset(self, mq: MessageQueue) -> int:
        """Java: DefaultLitePullConsumerImpl#maxOffset."""
        self.check_service_state()
        return self.mq_client_factory.mq_admin_impl.max_offset(mq)

    def min_offset(self, mq: MessageQueue) -> int:
        """Java: DefaultLitePullConsumerImpl#minOffset."""
        self.check_service_state()
        return self.mq_client_factory.mq_admin_impl.min_offset(mq)

    def search_offset(self, mq: MessageQueue, timestamp: int) -> int:
        """Java: DefaultLitePullConsumerImpl#searchOffset."""
        self.check_service_state()
        return self.mq_client_factory.mq_admin_impl.search_offset(mq, timestamp)

    def fetch_message_queues(self, topic: str) -> set[MessageQueue]:
        """The topic's readable queues from a fresh route. Java: DefaultLitePullConsumerImpl#fetchMessageQueues."""
        self.check_service_state()
        return set(self.mq_client_factory.mq_admin_impl.fetch_subscribe_message_queues(topic))

    def clear_message_queue_in_cache(self, mq: MessageQueue) -> None:
        """Empty the queue's ProcessQueue and drop its batches waiting for ``poll``.

        Java: DefaultLitePullConsumerImpl#clearMessageQueueInCache
        """
        pq = self.assigned_message_queue.get_process_queue(mq)
        if pq is not None:
            pq.clear()
        with self._cache_lock:
            kept = [request for request in self.consume_request_cache if request.message_queue != mq]
            self.consume_request_cache.clear()
            self.consume_request_cache.extend(kept)

    def next_pull_offset(self, mq: MessageQueue) -> int:
        """A pending seek (which also becomes the consume offset), else the last pull's next offset, else the start.

        Java: DefaultLitePullConsumerImpl#nextPullOffset
        """
        seek_offset = self.assigned_message_queue.get_seek_offset(mq)
        if seek_offset != -1:
            self.assigned_message_queue.update_consume_offset(mq, seek_offset)
            self.assigned_message_queue.set_seek_offset(mq, -1)
            return seek_offset
        offset = self.assigned_message_queue.get_pull_offset(mq)
        if offset == -1:
            offset = self.fetch_consume_offset(mq)
        return offset

    def fetch_consume_offset(self, mq: MessageQueue) -> int:
        """Java: DefaultLitePullConsumerImpl#fetchConsumeOffset."""
        self.check_service_state()
        return self.rebalance_impl.compute_pull_from_where_with_exception(mq)

    def update_pull_offset(self, mq: MessageQueue, next_pull_offset: int, process_queue: ProcessQueue) -> None:
        """Record the next pull offset unless a seek is pending. Java: #updatePullOffset."""
        if self.assigned_message_queue.get_seek_offset(mq) == -1:
            self.assigned_message_queue.update_pull_offset(mq, next_pull_offset, process_queue)

    def pull_async(
        self, mq: MessageQueue, subscription_data: SubscriptionData, offset: int, max_nums: int, callback: Any
    ) -> None:
        """PULL_MESSAGE with long polling, the subscription and the lite-pull flag (no commit offset).

        Java: DefaultLitePullConsumerImpl#pullSyncImpl (sent ASYNC here; see the module docstring)

        Raises:
            MQClientException: a negative offset or batch size, or an unknown broker.
        """
        if offset < 0:
            raise MQClientException("offset < 0")
        if max_nums <= 0:
            raise MQClientException("maxNums <= 0")
        consumer = self.default_lite_pull_consumer
        sys_flag = build_sys_flag(False, True, True, False, True)
        is_tag_type = expression_type.is_tag_type(subscription_data.expression_type)
        self.pull_api_wrapper.pull_kernel_impl(
            mq,
            subscription_data.sub_string,
            subscription_data.expression_type,
            0 if is_tag_type else subscription_data.sub_version,
            offset,
            max_nums,
            sys_flag,
            0,
            consumer.broker_suspend_max_time_millis,
            consumer.consumer_timeout_millis_when_suspend,
            CommunicationMode.ASYNC,
            callback,
        )

    # -- MQConsumerInner -------------------------------------------------------------------------------------------
    def group_name(self) -> str:
        """Java: DefaultLitePullConsumerImpl#groupName."""
        return self.default_lite_pull_consumer.consumer_group

    def message_model(self) -> MessageModel:
        """Java: DefaultLitePullConsumerImpl#messageModel."""
        return self.default_lite_pull_consumer.message_model

    def consume_type(self) -> ConsumeType:
        """Java: DefaultLitePullConsumerImpl#consumeType."""
        return ConsumeType.CONSUME_ACTIVELY

    def consume_from_where(self) -> ConsumeFromWhere:
        """Always LAST_OFFSET in heartbeats (as Java). Java: DefaultLitePullConsumerImpl#consumeFromWhere."""
        return ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET

    def subscriptions(self) -> list[SubscriptionData]:
        """Java: DefaultLitePullConsumerImpl#subscriptions."""
        return list(self.rebalance_impl.subscription_inner.values())

    def do_rebalance(self) -> None:
        """Java: DefaultLitePullConsumerImpl#doRebalance."""
        self.rebalance_impl.do_rebalance(False)

    def persist_consumer_offset(self) -> None:
        """Persist the offsets of the rebalanced (subscribe) or assigned (assign) queues.

        Java: DefaultLitePullConsumerImpl#persistConsumerOffset
        """
        try:
            self.check_service_state()
            if self.subscription_type is SubscriptionType.SUBSCRIBE:
                mqs = set(self.rebalance_impl.process_queue_table.keys())
            elif self.subscription_type is SubscriptionType.ASSIGN:
                mqs = set(self.assigned_message_queue.get_assigned_message_queues())
            else:
                mqs = set()
            self.offset_store.persist_all(mqs)
        except Exception as exc:  # Java logs "Persist consumer offset error"
            self._trace("persistConsumerOffsetFailed", error=repr(exc))

    def update_topic_subscribe_info(self, topic: str, info: Set[MessageQueue]) -> None:
        """Java: DefaultLitePullConsumerImpl#updateTopicSubscribeInfo."""
        if topic in self.rebalance_impl.subscription_inner:
            self.rebalance_impl.topic_subscribe_info_table[topic] = info

    def is_subscribe_topic_need_update(self, topic: str) -> bool:
        """Java: DefaultLitePullConsumerImpl#isSubscribeTopicNeedUpdate."""
        if topic in self.rebalance_impl.subscription_inner:
            return topic not in self.rebalance_impl.topic_subscribe_info_table
        return False

    def is_unit_mode(self) -> bool:
        """Java: DefaultLitePullConsumerImpl#isUnitMode."""
        return self.default_lite_pull_consumer.unit_mode

    def consumer_running_info(self) -> Any:
        """Settings and subscriptions. Java: DefaultLitePullConsumerImpl#consumerRunningInfo."""
        info = ConsumerRunningInfo()
        info.properties[cri.PROP_CONSUMER_START_TIMESTAMP] = str(self.consumer_start_timestamp)
        info.subscription_set.extend(self.subscriptions())
        return info


class MessageQueueListenerImpl:
    """Rebalance's news for a subscribing lite pull consumer: update the assigned queues and the pull tasks.

    Java: DefaultLitePullConsumerImpl$MessageQueueListenerImpl
    """

    def __init__(self, impl: DefaultLitePullConsumerImpl):
        self.impl = impl

    def message_queue_changed(self, topic: str, mq_all: Set[MessageQueue], mq_divided: Set[MessageQueue]) -> None:
        """BROADCASTING: every queue; CLUSTERING: this consumer's share. Java: #messageQueueChanged."""
        impl = self.impl
        chosen = mq_all if impl.default_lite_pull_consumer.message_model is MessageModel.BROADCASTING else mq_divided
        mqs = sorted(chosen)  # a reproducible order whatever kind of set rebalance handed over
        impl.assigned_message_queue.update_assigned_message_queue(list(mqs), topic)
        impl.update_pull_task(topic, list(mqs))
        impl._trace("messageQueueChanged", topic=topic, queues=sorted(f"{mq.broker_name}:{mq.queue_id}" for mq in mqs))


class PullTaskImpl:
    """The pull loop of one queue of a lite pull consumer.

    Java: DefaultLitePullConsumerImpl$PullTaskImpl
    """

    def __init__(self, impl: DefaultLitePullConsumerImpl, message_queue: MessageQueue):
        self.impl = impl
        self.message_queue = message_queue
        self.cancelled = False
        self._process_queue: ProcessQueue | None = None

    def schedule(self, delay: int) -> None:
        """Run again after ``delay`` ms (Java: ``scheduledThreadPoolExecutor.schedule(this, delay)``)."""
        self.impl.runtime.scheduler.call_later(delay, self.run, name=f"PullMsgThread-{self.impl.group_name()}")

    def run(self) -> None:
        """Checks, next offset, then an asynchronous long-polling pull whose callback continues the loop.

        Java: DefaultLitePullConsumerImpl$PullTaskImpl#run
        """
        impl = self.impl
        if self.cancelled:
            return
        mq = self.message_queue
        if impl.assigned_message_queue.is_paused(mq):
            self.schedule(PULL_TIME_DELAY_MILLS_WHEN_PAUSE)
            return
        process_queue = impl.assigned_message_queue.get_process_queue(mq)
        if process_queue is None or process_queue.dropped:
            return
        if self._flow_controlled(process_queue):
            return
        try:
            offset = impl.next_pull_offset(mq)
        except Exception as exc:  # Java logs "Failed to get next pull offset"
            impl._trace("nextPullOffsetFailed", mq=str(mq), error=repr(exc))
            self.schedule(PULL_TIME_DELAY_MILLS_ON_EXCEPTION)
            return
        if self.cancelled or process_queue.dropped:
            return
        if impl.subscription_type is SubscriptionType.SUBSCRIBE:
            subscription_data = impl.rebalance_impl.subscription_inner.get(mq.topic)
        else:
            subscription_data = filter_api.build_subscription_data(mq.topic, SUB_ALL)
        self._process_queue = process_queue
        callback = _LitePullCallback(self, process_queue, subscription_data)
        try:
            impl.pull_async(mq, subscription_data, offset, impl.default_lite_pull_consumer.pull_batch_size, callback)
        except Exception as exc:  # Java logs "An error occurred in pull message process."
            impl._trace("pullFailed", mq=str(mq), error=repr(exc))
            if not self.cancelled:
                self.schedule(impl.pull_time_delay_mills_when_exception)

    def _flow_controlled(self, process_queue: ProcessQueue) -> bool:
        """The four flow-control checks of Java's run, in order; reschedules in 50 ms when one holds."""
        impl = self.impl
        consumer = impl.default_lite_pull_consumer
        checks = (
            (
                "consumeRequestFlowControl",
                "consume_request_flow_control_times",
                len(impl.consume_request_cache) * consumer.pull_batch_size > consumer.pull_threshold_for_all,
            ),
            (
                "countFlowControl",
                "queue_flow_control_times",
                process_queue.msg_count > consumer.pull_threshold_for_queue,
            ),
            (
                "sizeFlowControl",
                "queue_flow_control_times",
                process_queue.msg_size // _MIB > consumer.pull_threshold_size_for_queue,
            ),
            (
                "spanFlowControl",
                "queue_max_span_flow_control_times",
                process_queue.get_max_span() > consumer.consume_max_span,
            ),
        )
        for reason, counter, held in checks:
            if held:
                self.schedule(PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL)
                times = getattr(impl, counter)
                setattr(impl, counter, times + 1)
                if times % FLOW_CONTROL_WARN_EVERY == 0:
                    impl._trace("flowControl", reason=reason, mq=str(self.message_queue), flowControlTimes=times + 1)
                return True
        return False

    def on_pull_result(
        self, process_queue: ProcessQueue, subscription_data: SubscriptionData, pull_result: PullResult
    ) -> None:
        """FOUND: cache and queue for ``poll`` (unless a seek is pending); record the next offset; go again."""
        impl = self.impl
        mq = self.message_queue
        pull_result = impl.pull_api_wrapper.process_pull_result(mq, pull_result, subscription_data)
        if self.cancelled or process_queue.dropped:
            return
        if pull_result.pull_status is PullStatus.FOUND:
            with impl.message_queue_lock.fetch_lock_object(mq):
                msgs = pull_result.msg_found_list
                if msgs and impl.assigned_message_queue.get_seek_offset(mq) == -1:
                    process_queue.put_message(msgs)
                    impl.submit_consume_request(ConsumeRequest(msgs, mq, process_queue))
                    impl._trace("pullFound", mq=str(mq), offsets=f"{msgs[0].queue_offset}..{msgs[-1].queue_offset}")
        elif pull_result.pull_status is PullStatus.OFFSET_ILLEGAL:
            impl._trace("pullOffsetIllegal", mq=str(mq), nextBeginOffset=pull_result.next_begin_offset)
        impl.update_pull_offset(mq, pull_result.next_begin_offset, process_queue)
        if not self.cancelled:
            self.schedule(0)

    def on_pull_exception(self, exc: BaseException) -> None:
        """Retry after ``pullTimeDelayMillsWhenException`` unless cancelled."""
        self.impl._trace("pullException", mq=str(self.message_queue), error=repr(exc))
        if not self.cancelled:
            self.schedule(self.impl.pull_time_delay_mills_when_exception)


class _LitePullCallback:
    """Java: none (the continuation of PullTaskImpl#run after its synchronous pull)."""

    def __init__(self, task: PullTaskImpl, process_queue: ProcessQueue, subscription_data: SubscriptionData):
        self.task = task
        self.process_queue = process_queue
        self.subscription_data = subscription_data

    def on_success(self, pull_result: PullResult) -> None:
        try:
            self.task.on_pull_result(self.process_queue, self.subscription_data, pull_result)
        except Exception as exc:
            self.task.on_pull_exception(exc)

    def on_exception(self, e: BaseException) -> None:
        self.task.on_pull_exception(e)


def _addr(find_broker_result: Any) -> str | None:
    return None if find_broker_result is None else find_broker_result.broker_addr

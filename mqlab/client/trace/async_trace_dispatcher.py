"""Ships trace contexts to the trace topic: a bounded queue, batches of 100, and a producer of its own.

1. ``append`` offers a context to a queue of 1024; a full queue drops it (``discard_count``).
2. The worker (Java: the daemon thread ``MQ-AsyncTraceDispatcher-Thread-<uuid>`` polling with a 5 ms timeout)
   takes up to 100 contexts per batch and hands each batch to the sender pool (``MQTraceSendThread_``). A batch
   closes at 100 contexts or when the queue is empty: there is no flush interval. mqlab runs the worker's loop
   body, ``run_once``, every 5 ms (the poll timeout): each run drains the queue in batches of 100.
3. ``AsyncAppenderRequest.send_trace_data`` groups a batch by the first bean's topic (plus U+0001 and the region
   id), encodes each context (``TraceDataEncoder``) and sends each group's text in chunks: a chunk is sent as soon
   as it reaches the trace producer's ``maxMessageSize`` (118,000), *after* appending, so a chunk can exceed it.
4. One trace message: topic ``RMQ_SYS_TRACE_TOPIC`` (or the customised one; ``rmq_sys_TRACE_DATA_<region>`` on the
   CLOUD access channel), body = the text, KEYS = the union of the contexts' keys (message ids and business keys)
   joined by spaces. It goes asynchronously (5000 ms) to a queue of the brokers of the trace topic's route,
   chosen round-robin among those brokers' queues; without a route, by the producer's own selection. Failures are
   only recorded.

The trace producer is a plain DefaultMQProducer of group ``_INNER_TRACE_PRODUCER-<group>-<PRODUCE|CONSUME>-<n>``
(``n`` counts dispatchers on the node from 1) with instance name ``PID_CLIENT_INNER_TRACE_PRODUCER_<namesrv>``, so
it has a client instance of its own.

Java: org.apache.rocketmq.client.trace.AsyncTraceDispatcher (rocketmq-all-4.9.3), with its inner classes
AsyncRunnable (``run_once``) and AsyncAppenderRequest (kept in this module).
Left out: the sender pool's bounded queue (2048) and what its rejection does in 4.9.3 (the worker thread dies);
the JVM shutdown hook.
"""

from __future__ import annotations

import collections
import threading
from typing import TYPE_CHECKING, Any

from mqlab.client.common.thread_local_index import ThreadLocalIndex, queue_position
from mqlab.client.impl.producer.topic_publish_info import TopicPublishInfo
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.client.trace import trace_constants as tc
from mqlab.client.trace.trace_data_encoder import encoder_from_context_bean
from mqlab.client.trace.trace_dispatcher import Type
from mqlab.common.jdk.atomic import AtomicInteger
from mqlab.common.jdk.hash_map import JavaHashMap, JavaHashSet
from mqlab.common.message.message import Message
from mqlab.common.topic.topic_validator import RMQ_SYS_TRACE_TOPIC
from mqlab.common.util_all import is_blank

if TYPE_CHECKING:
    from mqlab.client.impl.consumer.default_mq_push_consumer_impl import DefaultMQPushConsumerImpl
    from mqlab.client.impl.producer.default_mq_producer_impl import DefaultMQProducerImpl
    from mqlab.client.trace.trace_context import TraceContext
    from mqlab.client.trace.trace_transfer_bean import TraceTransferBean
    from mqlab.common.message.message_queue import MessageQueue
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.runtime.runtime import Runtime

COMPONENT = "AsyncTraceDispatcher"
# Java: the constructor's constants.
QUEUE_SIZE = 2048
BATCH_SIZE = 100
MAX_MSG_SIZE = 128_000
CONTEXT_QUEUE_CAPACITY = 1024
SENDER_CORE_THREADS = 10
# The worker polls the context queue with this timeout (ms).
POLL_TIMEOUT_MILLIS = 5
# flush() waits at most this long for both queues to empty (ms).
FLUSH_WAIT_MILLIS = 500
TRACE_SEND_TIMEOUT_MILLIS = 5000
# The runtime singleton standing for Java's static AtomicInteger COUNTER (one per JVM: one per node here).
_COUNTER_KEY = "AsyncTraceDispatcher.COUNTER"


class AsyncTraceDispatcher:
    """The dispatcher of one traced producer or push consumer.

    Args:
        group: the host's producer or consumer group.
        type_: PRODUCE or CONSUME (part of the trace producer's group).
        trace_topic_name: the customised trace topic; blank means ``RMQ_SYS_TRACE_TOPIC``.
        rpc_hook: given to the trace producer.
        runtime: the host's node.
    """

    def __init__(
        self, group: str, type_: Type, trace_topic_name: str | None, rpc_hook: RPCHook | None, runtime: Runtime
    ):
        self.runtime = runtime
        self.queue_size = QUEUE_SIZE
        self.batch_size = BATCH_SIZE
        self.max_msg_size = MAX_MSG_SIZE
        self.discard_count = 0
        self.trace_context_queue: collections.deque[TraceContext] = collections.deque()
        self._queue_lock = threading.Lock()
        self.group = group
        self.type = type_
        self.trace_topic_name = trace_topic_name if not is_blank(trace_topic_name) else RMQ_SYS_TRACE_TOPIC
        self.trace_executor = runtime.scheduler.new_executor("MQTraceSendThread_", SENDER_CORE_THREADS)
        self.pending_requests = 0  # Java: appenderQueue.size(), the batches not yet picked up by a sender
        self.send_which_queue = ThreadLocalIndex(runtime.random)
        self.access_channel = "LOCAL"
        self.host_producer: DefaultMQProducerImpl | None = None
        self.host_consumer: DefaultMQPushConsumerImpl | None = None
        self.stopped = False
        self.is_started = False
        self._worker: Any = None
        self.trace_producer = self._get_and_create_trace_producer(rpc_hook)

    def _trace(self, event: str, **fields: Any) -> None:
        self.runtime.trace_event(COMPONENT, event, **fields)

    def _get_and_create_trace_producer(self, rpc_hook: RPCHook | None) -> DefaultMQProducer:
        """The inner producer: 5000 ms timeout, no VIP channel, 118,000-byte limit.

        Java: AsyncTraceDispatcher#getAndCreateTraceProducer
        """
        return DefaultMQProducer(
            self.gen_group_name_for_trace(),
            self.runtime,
            rpc_hook=rpc_hook,
            send_msg_timeout=TRACE_SEND_TIMEOUT_MILLIS,
            vip_channel_enabled=False,
            max_message_size=self.max_msg_size - 10 * 1000,
        )

    def gen_group_name_for_trace(self) -> str:
        """``_INNER_TRACE_PRODUCER-<group>-<type>-<n>``. Java: AsyncTraceDispatcher#genGroupNameForTrace."""
        counter = self.runtime.singleton(_COUNTER_KEY, AtomicInteger)  # Java: the static COUNTER, one per node
        return f"{tc.GROUP_NAME_PREFIX}-{self.group}-{self.type.name}-{counter.increment_and_get()}"

    # -- life cycle ------------------------------------------------------------------------------------------
    def start(self, name_srv_addr: str | None, access_channel: str = "LOCAL") -> None:
        """Start the trace producer (once) and the worker.

        Java: AsyncTraceDispatcher#start
        """
        if not self.is_started:
            self.is_started = True
            self.trace_producer.namesrv_addr = name_srv_addr
            self.trace_producer.instance_name = f"{tc.TRACE_INSTANCE_NAME}_{name_srv_addr}"
            self.trace_producer.start()
        self.access_channel = access_channel
        self._worker = self.runtime.scheduler.schedule_with_fixed_delay(
            POLL_TIMEOUT_MILLIS, POLL_TIMEOUT_MILLIS, self._worker_loop, name="MQ-AsyncTraceDispatcher-Thread"
        )
        self._trace("start", group=self.trace_producer.producer_group, topic=self.trace_topic_name)

    def _worker_loop(self) -> None:
        self.run_once()
        if self.stopped and not self.trace_context_queue and self._worker is not None:
            self._worker.cancel()  # Java: the stop flag ends the loop after an empty poll
            self._worker = None

    def append(self, ctx: TraceContext) -> bool:
        """Offer ``ctx`` to the queue; False (and counted) when 1024 are waiting.

        Java: AsyncTraceDispatcher#append
        """
        with self._queue_lock:
            if len(self.trace_context_queue) >= CONTEXT_QUEUE_CAPACITY:
                self.discard_count += 1
                self._trace("bufferFull", discardCount=self.discard_count)
                return False
            self.trace_context_queue.append(ctx)
            return True

    def run_once(self) -> list[int]:
        """Take batches of up to 100 contexts until the queue is empty and submit each; the batch sizes.

        Java: AsyncTraceDispatcher$AsyncRunnable#run (one pass of its loop per batch)
        """
        sizes = []
        while True:
            with self._queue_lock:
                contexts = [
                    self.trace_context_queue.popleft()
                    for _ in range(min(self.batch_size, len(self.trace_context_queue)))
                ]
                if contexts:
                    self.pending_requests += 1
            if not contexts:
                return sizes
            request = AsyncAppenderRequest(self, contexts)
            self.trace_executor.submit(request.run)
            sizes.append(len(contexts))
            self._trace("batch", contexts=len(contexts))

    def flush(self) -> None:
        """Wait at most 500 ms for both queues to empty. Java: AsyncTraceDispatcher#flush."""
        self.runtime.scheduler.wait_until(
            lambda: not self.trace_context_queue and self.pending_requests == 0, FLUSH_WAIT_MILLIS
        )

    def shutdown(self) -> None:
        """Stop the worker after the queue drains, flush, stop the pool and the trace producer.

        Java: AsyncTraceDispatcher#shutdown
        """
        self.stopped = True
        self.flush()
        self.trace_executor.shutdown()
        if self.is_started:
            self.trace_producer.shutdown()
        if self._worker is not None:
            self._worker.cancel()
            self._worker = None

    # -- sending ---------------------------------------------------------------------------------------------
    def send_trace_data_by_mq(self, key_set: JavaHashSet[str], data: str, data_topic: str, region_id: str | None):
        """One trace message with ``data`` as body and the keys as KEYS, sent asynchronously.

        Java: AsyncTraceDispatcher$AsyncAppenderRequest#sendTraceDataByMQ
        """
        trace_topic = self.trace_topic_name
        if self.access_channel == "CLOUD":
            trace_topic = tc.TRACE_TOPIC_PREFIX + str(region_id)
        message = Message(trace_topic, None, None, data.encode("utf-8"))
        message.set_keys(list(key_set))
        callback = _TraceSendCallback(self, data)
        try:
            producer_impl = self.trace_producer.default_mq_producer_impl
            broker_set = self.try_get_message_queue_broker_set(producer_impl, trace_topic)
            if not broker_set:
                self.trace_producer.send_async(message, callback, timeout=TRACE_SEND_TIMEOUT_MILLIS)
            else:
                self.trace_producer.send_async(message, callback, self._select_among_brokers, broker_set)
        except Exception as exc:  # Java logs "send trace data failed"
            self._trace("sendTraceDataFailed", error=repr(exc))

    def _select_among_brokers(self, mqs: list[MessageQueue], msg: Message, broker_set: set[str]) -> MessageQueue:
        """The next queue, round-robin, among the queues of the trace topic's brokers."""
        queues = [mq for mq in mqs if mq.broker_name in broker_set]
        return queues[queue_position(self.send_which_queue.increment_and_get(), len(queues))]

    def try_get_message_queue_broker_set(self, producer: DefaultMQProducerImpl, topic: str) -> set[str]:
        """The broker names of ``topic``'s publish info (looked up from the name server when missing).

        Java: AsyncTraceDispatcher$AsyncAppenderRequest#tryGetMessageQueueBrokerSet
        """
        info = producer.topic_publish_info_table.get(topic)
        if info is None or not info.ok():
            producer.topic_publish_info_table.setdefault(topic, TopicPublishInfo(self.runtime.random))
            assert producer.mq_client_factory is not None
            producer.mq_client_factory.update_topic_route_info_from_name_server(topic)
            info = producer.topic_publish_info_table[topic]
        if info.have_topic_router_info or info.ok():
            return {mq.broker_name for mq in info.message_queue_list}
        return set()


class _TraceSendCallback:
    """Success is ignored; a failure is only recorded (Java logs the lost trace data)."""

    def __init__(self, dispatcher: AsyncTraceDispatcher, data: str):
        self.dispatcher, self.data = dispatcher, data

    def on_success(self, send_result: Any) -> None:
        self.dispatcher._trace("traceSent", msgId=send_result.msg_id, queue=str(send_result.message_queue))

    def on_exception(self, e: BaseException) -> None:
        self.dispatcher._trace("sendTraceDataFailed", error=repr(e))


class AsyncAppenderRequest:
    """One batch of contexts, encoded and sent by a sender thread.

    Java: AsyncTraceDispatcher$AsyncAppenderRequest (rocketmq-all-4.9.3)
    """

    def __init__(self, dispatcher: AsyncTraceDispatcher, context_list: list[TraceContext] | None):
        self.dispatcher = dispatcher
        self.context_list = context_list if context_list is not None else []

    def run(self) -> None:
        """Java: AsyncAppenderRequest#run."""
        with self.dispatcher._queue_lock:
            self.dispatcher.pending_requests -= 1
        self.send_trace_data(self.context_list)

    def send_trace_data(self, context_list: list[TraceContext]) -> None:
        """Group by ``topic`` (+ U+0001 + region id), encode, and flush each group.

        Java: AsyncTraceDispatcher$AsyncAppenderRequest#sendTraceData
        """
        trans_bean_map: JavaHashMap[str, list[TraceTransferBean]] = JavaHashMap()
        for context in context_list:
            if not context.trace_beans:
                continue
            key = str(context.trace_beans[0].topic)
            if not is_blank(context.region_id):
                key += tc.CONTENT_SPLITOR + str(context.region_id)
            transfer = encoder_from_context_bean(context)
            assert transfer is not None
            trans_bean_map.setdefault(key, []).append(transfer)
        for key, beans in trans_bean_map.items():
            topic, _, region_id = key.partition(tc.CONTENT_SPLITOR)
            self.flush_data(beans, topic, region_id or None)

    def flush_data(self, trans_bean_list: list[TraceTransferBean], data_topic: str, region_id: str | None) -> list[str]:
        """Append encoded contexts to a buffer; send it each time it reaches ``maxMessageSize``, then the rest.

        Returns the texts sent (one per trace message).

        Java: AsyncTraceDispatcher$AsyncAppenderRequest#flushData
        """
        sent: list[str] = []
        if not trans_bean_list:
            return sent
        limit = self.dispatcher.trace_producer.max_message_size
        buffer: list[str] = []
        length = 0
        key_set: JavaHashSet[str] = JavaHashSet()
        for bean in trans_bean_list:
            for key in bean.trans_key:
                key_set.add(key)
            buffer.append(bean.trans_data)
            length += len(bean.trans_data)
            if length >= limit:  # checked after appending: a chunk may exceed the limit (quirk kept)
                sent.append(self._send("".join(buffer), key_set, data_topic, region_id))
                buffer, length, key_set = [], 0, JavaHashSet()
        if buffer:
            sent.append(self._send("".join(buffer), key_set, data_topic, region_id))
        trans_bean_list.clear()
        return sent

    def _send(self, data: str, key_set: JavaHashSet[str], data_topic: str, region_id: str | None) -> str:
        self.dispatcher.send_trace_data_by_mq(key_set, data, data_topic, region_id)
        return data

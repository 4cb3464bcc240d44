"""The producer applications use: configure, ``start()``, ``send(msg)``, ``shutdown()``.

``DefaultMQProducer`` is the configuration (it *is* a ``ProducerConfig``, as the Java class extends ClientConfig)
plus a thin façade: every call goes to its ``DefaultMQProducerImpl`` (see that module for the send algorithm).
The Java overloads of ``send`` become one method that looks at what it is given:

=================================  ==================================================================
``send(msg)``                      round robin over the topic's queues, retries on another broker
``send(msg, mq)``                  that queue, one attempt
``send(msg, selector, arg)``       the queue ``selector.select(queues, msg, arg)`` returns, one attempt
``send([msg, msg, ...])``          one SEND_BATCH_MESSAGE (``send(msgs, mq)`` for a given queue)
``send_async(msg, callback, ...)`` the same targets, the outcome goes to ``callback``
``send_oneway(msg, ...)``          the same targets, no answer awaited
=================================  ==================================================================

A selector may be a ``MessageQueueSelector`` or a plain function ``(queues, msg, arg) -> MessageQueue``.

Java: org.apache.rocketmq.client.producer.DefaultMQProducer (rocketmq-all-4.9.3)
With ``enable_msg_trace=True`` the producer gets an AsyncTraceDispatcher (its own trace producer) and the
SendMessageTraceHookImpl: every send that gets a result leaves a Pub record in ``RMQ_SYS_TRACE_TOPIC`` (or
``customized_trace_topic``). The dispatcher starts after the producer and stops after it.

Left out: namespaces (``withNamespace``) and request-reply. Transactions: the subclass ``TransactionMQProducer``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from mqlab.client import validators
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.producer.default_mq_producer_impl import DefaultMQProducerImpl
from mqlab.client.producer.producer_config import ProducerConfig
from mqlab.common.message.message import Message
from mqlab.common.message.message_batch import MessageBatch
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.mix_all import DEFAULT_PRODUCER_GROUP

if TYPE_CHECKING:
    from mqlab.client.producer.send_callback import SendCallback
    from mqlab.client.producer.send_result import SendResult
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.runtime.runtime import Runtime


class DefaultMQProducer(ProducerConfig):
    """A producer of group ``producer_group`` on ``runtime``.

    Args:
        producer_group: the group (must be set to something other than ``DEFAULT_PRODUCER`` before ``start``).
        runtime: the node the producer runs on (its IP becomes ``client_ip``).
        rpc_hook: called around every request.
        enable_msg_trace: record a Pub trace of every send (Java: the constructors with ``enableMsgTrace``).
        customized_trace_topic: the trace topic when not blank (default ``RMQ_SYS_TRACE_TOPIC``).
        **settings: any ``ProducerConfig`` / ``ClientConfig`` field (``namesrv_addr``, ``send_msg_timeout``,
            ``retry_times_when_send_failed``, ``instance_name`` ...).

    Attributes:
        default_mq_producer_impl: the engine behind the façade.
        trace_dispatcher: the AsyncTraceDispatcher when tracing is on, else None.
    """

    # The dataclass equality of ProducerConfig would make two producers with equal settings "equal": a producer
    # is an object with an identity, as in Java.
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __init__(
        self,
        producer_group: str | None = DEFAULT_PRODUCER_GROUP,
        runtime: Runtime | None = None,
        *,
        rpc_hook: RPCHook | None = None,
        enable_msg_trace: bool = False,
        customized_trace_topic: str | None = None,
        **settings: Any,
    ):
        if runtime is None:
            raise TypeError("a DefaultMQProducer needs the runtime it runs on")
        settings.setdefault("client_ip", runtime.host.ip)
        ProducerConfig.__init__(self, producer_group=producer_group or DEFAULT_PRODUCER_GROUP, **settings)
        self.runtime = runtime
        self.default_mq_producer_impl = DefaultMQProducerImpl(self, runtime, rpc_hook)
        self.trace_dispatcher = None
        if enable_msg_trace:
            self._enable_msg_trace(customized_trace_topic, rpc_hook)

    def _enable_msg_trace(self, customized_trace_topic: str | None, rpc_hook: RPCHook | None) -> None:
        """A dispatcher of type PRODUCE, the send trace hook and the end-transaction trace hook.

        Java: DefaultMQProducer's constructor with ``enableMsgTrace``
        """
        from mqlab.client.trace.async_trace_dispatcher import AsyncTraceDispatcher
        from mqlab.client.trace.hook.end_transaction_trace_hook_impl import EndTransactionTraceHookImpl
        from mqlab.client.trace.hook.send_message_trace_hook_impl import SendMessageTraceHookImpl
        from mqlab.client.trace.trace_dispatcher import Type

        dispatcher = AsyncTraceDispatcher(
            self.producer_group, Type.PRODUCE, customized_trace_topic, rpc_hook, self.runtime
        )
        dispatcher.host_producer = self.default_mq_producer_impl
        self.trace_dispatcher = dispatcher
        self.default_mq_producer_impl.register_send_message_hook(SendMessageTraceHookImpl(dispatcher, self.runtime))
        self.default_mq_producer_impl.register_end_transaction_hook(
            EndTransactionTraceHookImpl(dispatcher, self.runtime)
        )

    # -- life cycle ------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the producer, then the trace dispatcher (whose failure is only recorded).

        Java: DefaultMQProducer#start
        """
        self.default_mq_producer_impl.start()
        if self.trace_dispatcher is not None:
            try:
                self.trace_dispatcher.start(self.namesrv_addr, self.access_channel)
            except MQClientException as exc:  # Java logs "trace dispatcher start failed"
                self.runtime.trace_event("DefaultMQProducer", "traceDispatcherStartFailed", error=repr(exc))

    def shutdown(self) -> None:
        """Stop the producer, then the trace dispatcher. Java: DefaultMQProducer#shutdown."""
        self.default_mq_producer_impl.shutdown()
        if self.trace_dispatcher is not None:
            self.trace_dispatcher.shutdown()

    def set_namesrv_addr(self, namesrv_addr: str) -> None:
        """``"host:port;host:port"`` of the name servers (before ``start``). Java: ClientConfig#setNamesrvAddr."""
        self.namesrv_addr = namesrv_addr

    def set_send_latency_fault_enable(self, enable: bool) -> None:
        """Turn MQFaultStrategy's broker isolation on or off. Java: DefaultMQProducer#setSendLatencyFaultEnable."""
        self.default_mq_producer_impl.mq_fault_strategy.send_latency_fault_enable = enable

    def is_send_latency_fault_enable(self) -> bool:
        """Java: DefaultMQProducer#isSendLatencyFaultEnable."""
        return self.default_mq_producer_impl.mq_fault_strategy.send_latency_fault_enable

    # -- sending ---------------------------------------------------------------------------------------------
    def send(
        self, msg: Message | Iterable[Message], target: Any = None, arg: Any = None, *, timeout: int | None = None
    ) -> SendResult:
        """Send and wait for the result (see the module docstring for the forms).

        Java: DefaultMQProducer#send (the synchronous overloads, batches included)

        Raises:
            MQClientException, MQBrokerException, RemotingException: as DefaultMQProducerImpl.
        """
        impl = self.default_mq_producer_impl
        if not isinstance(msg, Message):
            return impl.send(self.batch(msg), mq=self._queue(target), timeout=timeout)
        if isinstance(target, MessageQueue):
            return impl.send(msg, mq=target, timeout=timeout)
        if target is not None:
            return impl.send(msg, selector=target, arg=arg, timeout=timeout)
        return impl.send(msg, timeout=timeout)

    def send_async(
        self,
        msg: Message | Iterable[Message],
        send_callback: SendCallback,
        target: Any = None,
        arg: Any = None,
        *,
        timeout: int | None = None,
    ) -> None:
        """Send in the background; ``send_callback.on_success`` / ``on_exception`` hears the outcome.

        Java: DefaultMQProducer#send (the overloads with a SendCallback)
        """
        impl = self.default_mq_producer_impl
        if not isinstance(msg, Message):
            impl.send_async(self.batch(msg), send_callback, mq=self._queue(target), timeout=timeout)
        elif isinstance(target, MessageQueue):
            impl.send_async(msg, send_callback, mq=target, timeout=timeout)
        elif target is not None:
            impl.send_async(msg, send_callback, selector=target, arg=arg, timeout=timeout)
        else:
            impl.send_async(msg, send_callback, timeout=timeout)

    def send_oneway(self, msg: Message, target: Any = None, arg: Any = None) -> None:
        """Send without waiting for anything. Java: DefaultMQProducer#sendOneway (all three)."""
        impl = self.default_mq_producer_impl
        if isinstance(target, MessageQueue):
            impl.send_oneway(msg, mq=target)
        elif target is not None:
            impl.send_oneway(msg, selector=target, arg=arg)
        else:
            impl.send_oneway(msg)

    @staticmethod
    def _queue(target: Any) -> MessageQueue | None:
        if target is None or isinstance(target, MessageQueue):
            return target
        raise TypeError("a batch goes to the round robin or to one MessageQueue, not through a selector")

    def batch(self, msgs: Iterable[Message]) -> MessageBatch:
        """Check each message, give each its UNIQ_KEY, and encode them as one batch body.

        Java: DefaultMQProducer#batch

        Raises:
            MQClientException: "Failed to initiate the MessageBatch" (mixed topics, delay, retry topic, bad message).
        """
        try:
            msg_batch = MessageBatch.generate_from_list(list(msgs))
            id_setter = MessageClientIDSetter.for_runtime(self.runtime)
            for message in msg_batch:
                validators.check_message(message, self.max_message_size)
                id_setter.set_uniq_id(message)
            msg_batch.body = msg_batch.encode()
        except Exception as exc:
            raise MQClientException("Failed to initiate the MessageBatch", cause=exc) from exc
        return msg_batch

    # -- admin -----------------------------------------------------------------------------------------------
    def create_topic(self, key: str, new_topic: str, queue_num: int, topic_sys_flag: int = 0) -> None:
        """Create ``new_topic`` on every master of ``key``'s route. Java: DefaultMQProducer#createTopic."""
        self.default_mq_producer_impl.create_topic(key, new_topic, queue_num, topic_sys_flag)

    def fetch_publish_message_queues(self, topic: str) -> list[MessageQueue]:
        """Java: DefaultMQProducer#fetchPublishMessageQueues."""
        return self.default_mq_producer_impl.fetch_publish_message_queues(topic)

    def search_offset(self, mq: MessageQueue, timestamp: int) -> int:
        """Java: DefaultMQProducer#searchOffset."""
        return self.default_mq_producer_impl.search_offset(mq, timestamp)

    def max_offset(self, mq: MessageQueue) -> int:
        """Java: DefaultMQProducer#maxOffset."""
        return self.default_mq_producer_impl.max_offset(mq)

    def min_offset(self, mq: MessageQueue) -> int:
        """Java: DefaultMQProducer#minOffset."""
        return self.default_mq_producer_impl.min_offset(mq)

    def earliest_msg_store_time(self, mq: MessageQueue) -> int:
        """Java: DefaultMQProducer#earliestMsgStoreTime."""
        return self.default_mq_producer_impl.earliest_msg_store_time(mq)

    def view_message(self, offset_msg_id: str) -> MessageExt:
        """The stored message with this offset message id. Java: DefaultMQProducer#viewMessage(String)."""
        return self.default_mq_producer_impl.view_message(offset_msg_id)

    def __repr__(self) -> str:
        return f"DefaultMQProducer(group={self.producer_group!r}, namesrv={self.namesrv_addr!r})"

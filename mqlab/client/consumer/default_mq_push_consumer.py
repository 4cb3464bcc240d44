"""The push consumer applications use: subscribe, register a listener, ``start()``; messages arrive by themselves.

``DefaultMQPushConsumer`` is the configuration (it *is* a ``PushConsumerConfig``, as the Java class extends
ClientConfig) plus a thin façade over ``DefaultMQPushConsumerImpl``, where the pull loop, rebalance and the consume
services are wired. Behind "push" is a pull loop with long polling (see the impl's module docstring).

Java overloads become keywords: ``subscribe(topic, "TagA || TagB")`` or ``subscribe(topic,
MessageSelector.by_tag(...))``; ``register_message_listener(listener)`` takes a ``MessageListenerConcurrently`` or a
``MessageListenerOrderly`` object (decided by its declared base, as Java's ``instanceof``) or a plain function
``(msgs, context) -> status``, which is concurrent unless registered with ``orderly=True``.

Java: org.apache.rocketmq.client.consumer.DefaultMQPushConsumer (rocketmq-all-4.9.3)
With ``enable_msg_trace=True`` the consumer gets an AsyncTraceDispatcher and the ConsumeMessageTraceHookImpl: each
listener call leaves SubBefore and SubAfter records in ``RMQ_SYS_TRACE_TOPIC`` (or ``customized_trace_topic``).

Left out: namespaces, the deprecated admin and query methods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.client.consumer.listener.consume_concurrently_context import ConsumeConcurrentlyContext
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.consumer.listener.consume_orderly_context import ConsumeOrderlyContext
from mqlab.client.consumer.listener.consume_orderly_status import ConsumeOrderlyStatus
from mqlab.client.consumer.listener.message_listener_concurrently import MessageListenerConcurrently
from mqlab.client.consumer.listener.message_listener_orderly import MessageListenerOrderly
from mqlab.client.consumer.push_consumer_config import PushConsumerConfig, default_consume_timestamp
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.consumer.default_mq_push_consumer_impl import DefaultMQPushConsumerImpl
from mqlab.common.mix_all import DEFAULT_CONSUMER_GROUP

if TYPE_CHECKING:
    from collections.abc import Set
    from pathlib import Path

    from mqlab.client.consumer.message_selector import MessageSelector
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.message.message_queue import MessageQueue
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.runtime.runtime import Runtime


class OrderlyListenerAdapter(MessageListenerOrderly):
    """A function or an undeclared object registered with ``orderly=True``, made a MessageListenerOrderly.

    Java: none (Python has no overloads; this carries the "orderly" of Java's static type)
    """

    def __init__(self, target: Any):
        self.target = target

    def consume_message(self, msgs: list[MessageExt], context: ConsumeOrderlyContext) -> ConsumeOrderlyStatus | None:
        """Call the wrapped listener."""
        fn = getattr(self.target, "consume_message", self.target)
        return fn(msgs, context)


class ConcurrentlyListenerAdapter(MessageListenerConcurrently):
    """A function or an undeclared object registered as a concurrent listener.

    Java: none (Python has no overloads; this carries the "concurrently" of Java's static type)
    """

    def __init__(self, target: Any):
        self.target = target

    def consume_message(
        self, msgs: list[MessageExt], context: ConsumeConcurrentlyContext
    ) -> ConsumeConcurrentlyStatus | None:
        """Call the wrapped listener."""
        fn = getattr(self.target, "consume_message", self.target)
        return fn(msgs, context)


def as_declared_listener(listener: Any, orderly: bool | None) -> Any:
    """``listener`` itself if it declares the wanted kind, else wrapped in the adapter of that kind.

    ``orderly=None`` keeps what the object declares (concurrent for anything that declares nothing).

    Java: none (see the module docstring)
    """
    declares_orderly = MessageListenerOrderly in type(listener).__mro__
    declares_concurrently = MessageListenerConcurrently in type(listener).__mro__
    if orderly is None:
        orderly = declares_orderly
    if orderly:
        return listener if declares_orderly else OrderlyListenerAdapter(listener)
    return listener if declares_concurrently else ConcurrentlyListenerAdapter(listener)


class DefaultMQPushConsumer(PushConsumerConfig):
    """A push consumer of group ``consumer_group`` on ``runtime``.

    Args:
        consumer_group: the group (anything but ``DEFAULT_CONSUMER`` before ``start``).
        runtime: the node the consumer runs on (its IP becomes ``client_ip``).
        rpc_hook: called around every request.
        local_offset_store_dir: where a BROADCASTING consumer keeps ``<clientId>/<group>/offsets.json`` (Java:
            ``-Drocketmq.client.localOffsetStoreDir``, default ``~/.rocketmq_offsets``).
        **settings: any ``PushConsumerConfig`` / ``ClientConfig`` field (``namesrv_addr``, ``message_model``,
            ``consume_from_where``, ``pull_batch_size``, ``max_reconsume_times``...).
        enable_msg_trace: trace every consume call (Java: the constructors with ``enableMsgTrace``).
        customized_trace_topic: the trace topic when not blank (default ``RMQ_SYS_TRACE_TOPIC``).

    Attributes:
        default_mq_push_consumer_impl: the engine behind the façade.
    """

    # A consumer is an object with an identity, not a value (the dataclass equality would compare settings).
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __init__(
        self,
        consumer_group: str | None = DEFAULT_CONSUMER_GROUP,
        runtime: Runtime | None = None,
        *,
        rpc_hook: RPCHook | None = None,
        local_offset_store_dir: str | Path | None = None,
        enable_msg_trace: bool = False,
        customized_trace_topic: str | None = None,
        **settings: Any,
    ):
        if runtime is None:
            raise TypeError("a DefaultMQPushConsumer needs the runtime it runs on")
        settings.setdefault("client_ip", runtime.host.ip)
        PushConsumerConfig.__init__(self, consumer_group=consumer_group or DEFAULT_CONSUMER_GROUP, **settings)
        if self.consume_timestamp is None:
            # Java's field initialiser: half an hour before the consumer is built, in the JVM's time zone.
            self.consume_timestamp = default_consume_timestamp(runtime.now_ms(), runtime.tz)
        self.runtime = runtime
        self.local_offset_store_dir = local_offset_store_dir
        self.default_mq_push_consumer_impl = DefaultMQPushConsumerImpl(self, runtime, rpc_hook)
        self.trace_dispatcher = None
        if enable_msg_trace:
            self._enable_msg_trace(customized_trace_topic, rpc_hook)

    def _enable_msg_trace(self, customized_trace_topic: str | None, rpc_hook: RPCHook | None) -> None:
        """A dispatcher of type CONSUME and the consume trace hook.

        Java: DefaultMQPushConsumer's constructor with ``enableMsgTrace``
        """
        from mqlab.client.trace.async_trace_dispatcher import AsyncTraceDispatcher
        from mqlab.client.trace.hook.consume_message_trace_hook_impl import ConsumeMessageTraceHookImpl
        from mqlab.client.trace.trace_dispatcher import Type

        dispatcher = AsyncTraceDispatcher(
            self.consumer_group, Type.CONSUME, customized_trace_topic, rpc_hook, self.runtime
        )
        dispatcher.host_consumer = self.default_mq_push_consumer_impl
        self.trace_dispatcher = dispatcher
        self.default_mq_push_consumer_impl.register_consume_message_hook(
            ConsumeMessageTraceHookImpl(dispatcher, self.runtime)
        )

    # -- life cycle ------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the consumer, then the trace dispatcher (whose failure is only recorded).

        Java: DefaultMQPushConsumer#start
        """
        self.default_mq_push_consumer_impl.start()
        if self.trace_dispatcher is not None:
            try:
                self.trace_dispatcher.start(self.namesrv_addr, self.access_channel)
            except MQClientException as exc:  # Java logs "trace dispatcher start failed"
                self.runtime.trace_event("DefaultMQPushConsumer", "traceDispatcherStartFailed", error=repr(exc))

    def shutdown(self) -> None:
        """Stop the consumer, then the trace dispatcher. Java: DefaultMQPushConsumer#shutdown."""
        self.default_mq_push_consumer_impl.shutdown(self.await_termination_millis_when_shutdown)
        if self.trace_dispatcher is not None:
            self.trace_dispatcher.shutdown()

    def set_namesrv_addr(self, namesrv_addr: str) -> None:
        """``"host:port;host:port"`` of the name servers (before ``start``). Java: ClientConfig#setNamesrvAddr."""
        self.namesrv_addr = namesrv_addr

    # -- subscriptions and the listener ----------------------------------------------------------------------
    def subscribe(self, topic: str, sub_expression: str | MessageSelector | None = "*") -> None:
        """Subscribe to ``topic``: a tag expression (``"*"``, ``"TagA || TagB"``) or a MessageSelector.

        Java: DefaultMQPushConsumer#subscribe(String, String) and #subscribe(String, MessageSelector)
        """
        self.default_mq_push_consumer_impl.subscribe(topic, sub_expression)

    def unsubscribe(self, topic: str) -> None:
        """Java: DefaultMQPushConsumer#unsubscribe."""
        self.default_mq_push_consumer_impl.unsubscribe(topic)

    def register_message_listener(self, message_listener: Any, *, orderly: bool | None = None) -> None:
        """Register the listener (see the module docstring for how its kind is decided).

        Java: DefaultMQPushConsumer#registerMessageListener (the concurrently and orderly overloads)
        """
        listener = as_declared_listener(message_listener, orderly)
        self.message_listener = listener
        self.default_mq_push_consumer_impl.register_message_listener(listener)

    # -- running -----------------------------------------------------------------------------------------------
    def suspend(self) -> None:
        """Stop pulling (the queues stay assigned). Java: DefaultMQPushConsumer#suspend."""
        self.default_mq_push_consumer_impl.suspend()

    def resume(self) -> None:
        """Java: DefaultMQPushConsumer#resume."""
        self.default_mq_push_consumer_impl.resume()

    def update_core_pool_size(self, core_pool_size: int) -> None:
        """Java: DefaultMQPushConsumer#updateCorePoolSize."""
        self.default_mq_push_consumer_impl.update_core_pool_size(core_pool_size)

    def send_message_back(self, msg: MessageExt, delay_level: int, broker_name: str | None = None) -> None:
        """Give ``msg`` back for a retry after ``delay_level`` (broker from ``broker_name`` or the store host).

        Java: DefaultMQPushConsumer#sendMessageBack (both overloads)
        """
        self.default_mq_push_consumer_impl.send_message_back(msg, delay_level, broker_name)

    def fetch_subscribe_message_queues(self, topic: str) -> Set[MessageQueue]:
        """Java: DefaultMQPushConsumer#fetchSubscribeMessageQueues."""
        return self.default_mq_push_consumer_impl.fetch_subscribe_message_queues(topic)

    def __repr__(self) -> str:
        return (
            f"DefaultMQPushConsumer(group={self.consumer_group!r}, model={self.message_model.name}, "
            f"namesrv={self.namesrv_addr!r})"
        )

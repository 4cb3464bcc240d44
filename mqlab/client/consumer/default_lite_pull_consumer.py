"""The pull consumer applications drive themselves: ``subscribe`` or ``assign``, ``start()``, then ``poll()`` in a loop.

Background pull tasks keep a local cache full; ``poll`` returns the next batch. Offsets are committed automatically
every ``auto_commit_interval_millis`` (checked at each ``poll``) or by ``commit_sync()``; ``seek`` moves a queue.

Java: org.apache.rocketmq.client.consumer.DefaultLitePullConsumer (rocketmq-all-4.9.3)
Left out: namespaces, message tracing, topic-metadata change listeners.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.client.consumer.lite_pull_consumer_config import MIN_AUTOCOMMIT_INTERVAL_MILLIS, LitePullConsumerConfig
from mqlab.client.consumer.push_consumer_config import default_consume_timestamp
from mqlab.client.impl.consumer.default_lite_pull_consumer_impl import DefaultLitePullConsumerImpl
from mqlab.common.mix_all import DEFAULT_CONSUMER_GROUP

if TYPE_CHECKING:
    from collections.abc import Collection
    from pathlib import Path

    from mqlab.client.consumer.message_selector import MessageSelector
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.message.message_queue import MessageQueue
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.runtime.runtime import Runtime


class DefaultLitePullConsumer(LitePullConsumerConfig):
    """A lite pull consumer of group ``consumer_group`` on ``runtime``.

    Args:
        consumer_group: the group (anything but ``DEFAULT_CONSUMER`` before ``start``).
        runtime: the node the consumer runs on (its IP becomes ``client_ip``).
        rpc_hook: called around every request.
        local_offset_store_dir: where a BROADCASTING consumer keeps its offsets file (Java:
            ``-Drocketmq.client.localOffsetStoreDir``, default ``~/.rocketmq_offsets``).
        **settings: any ``LitePullConsumerConfig`` / ``ClientConfig`` field.

    Attributes:
        default_lite_pull_consumer_impl: the engine behind the façade.
    """

    # A consumer is an object with an identity, not a value.
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __init__(
        self,
        consumer_group: str | None = DEFAULT_CONSUMER_GROUP,
        runtime: Runtime | None = None,
        *,
        rpc_hook: RPCHook | None = None,
        local_offset_store_dir: str | Path | None = None,
        **settings: Any,
    ):
        if runtime is None:
            raise TypeError("a DefaultLitePullConsumer needs the runtime it runs on")
        settings.setdefault("client_ip", runtime.host.ip)
        LitePullConsumerConfig.__init__(self, consumer_group=consumer_group or DEFAULT_CONSUMER_GROUP, **settings)
        if self.consume_timestamp is None:
            self.consume_timestamp = default_consume_timestamp(runtime.now_ms(), runtime.tz)
        self.runtime = runtime
        self.local_offset_store_dir = local_offset_store_dir
        self.default_lite_pull_consumer_impl = DefaultLitePullConsumerImpl(self, runtime, rpc_hook)

    def start(self) -> None:
        """Java: DefaultLitePullConsumer#start."""
        self.default_lite_pull_consumer_impl.start()

    def shutdown(self) -> None:
        """Java: DefaultLitePullConsumer#shutdown."""
        self.default_lite_pull_consumer_impl.shutdown()

    def is_running(self) -> bool:
        """Java: DefaultLitePullConsumer#isRunning."""
        return self.default_lite_pull_consumer_impl.is_running()

    def subscribe(self, topic: str, sub_expression: str | MessageSelector | None = "*") -> None:
        """Subscribe mode (rebalance assigns the queues). Java: DefaultLitePullConsumer#subscribe (both)."""
        self.default_lite_pull_consumer_impl.subscribe(topic, sub_expression)

    def unsubscribe(self, topic: str) -> None:
        """Java: DefaultLitePullConsumer#unsubscribe."""
        self.default_lite_pull_consumer_impl.unsubscribe(topic)

    def assign(self, message_queues: Collection[MessageQueue]) -> None:
        """Assign mode (exactly these queues). Java: DefaultLitePullConsumer#assign."""
        self.default_lite_pull_consumer_impl.assign(message_queues)

    def poll(self, timeout: int | None = None) -> list[MessageExt]:
        """The next batch, waiting up to ``timeout`` ms (default ``poll_timeout_millis``, 5 s).

        Java: DefaultLitePullConsumer#poll (both overloads)
        """
        return self.default_lite_pull_consumer_impl.poll(self.poll_timeout_millis if timeout is None else timeout)

    def seek(self, message_queue: MessageQueue, offset: int) -> None:
        """Java: DefaultLitePullConsumer#seek."""
        self.default_lite_pull_consumer_impl.seek(message_queue, offset)

    def seek_to_begin(self, message_queue: MessageQueue) -> None:
        """Java: DefaultLitePullConsumer#seekToBegin."""
        self.default_lite_pull_consumer_impl.seek_to_begin(message_queue)

    def seek_to_end(self, message_queue: MessageQueue) -> None:
        """Java: DefaultLitePullConsumer#seekToEnd."""
        self.default_lite_pull_consumer_impl.seek_to_end(message_queue)

    def pause(self, message_queues: Collection[MessageQueue]) -> None:
        """Java: DefaultLitePullConsumer#pause."""
        self.default_lite_pull_consumer_impl.pause(message_queues)

    def resume(self, message_queues: Collection[MessageQueue]) -> None:
        """Java: DefaultLitePullConsumer#resume."""
        self.default_lite_pull_consumer_impl.resume(message_queues)

    def fetch_message_queues(self, topic: str) -> set[MessageQueue]:
        """Java: DefaultLitePullConsumer#fetchMessageQueues."""
        return self.default_lite_pull_consumer_impl.fetch_message_queues(topic)

    def offset_for_timestamp(self, message_queue: MessageQueue, timestamp: int) -> int:
        """Java: DefaultLitePullConsumer#offsetForTimestamp."""
        return self.default_lite_pull_consumer_impl.search_offset(message_queue, timestamp)

    def commit_sync(self) -> None:
        """Commit every queue's consumed offset now. Java: DefaultLitePullConsumer#commitSync."""
        self.default_lite_pull_consumer_impl.commit_all()

    def committed(self, message_queue: MessageQueue) -> int:
        """Java: DefaultLitePullConsumer#committed."""
        return self.default_lite_pull_consumer_impl.committed(message_queue)

    def set_auto_commit_interval_millis(self, auto_commit_interval_millis: int) -> None:
        """Ignored below 1000 ms, as in Java. Java: DefaultLitePullConsumer#setAutoCommitIntervalMillis."""
        if auto_commit_interval_millis >= MIN_AUTOCOMMIT_INTERVAL_MILLIS:
            self.auto_commit_interval_millis = auto_commit_interval_millis

    def __repr__(self) -> str:
        return f"DefaultLitePullConsumer(group={self.consumer_group!r}, model={self.message_model.name})"

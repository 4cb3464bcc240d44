"""What the pull loop hands pulled messages to: a concurrent or an orderly consume service.

After each FOUND pull the push consumer caches the messages in the queue's ProcessQueue and calls
``submit_consume_request(msgs, process_queue, message_queue, dispatch_to_consume)``. The concurrent service splits
``msgs`` into batches of ``consumeMessageBatchMaxSize`` and runs each batch on its pool; the orderly service ignores
``msgs`` and, when ``dispatch_to_consume`` says no request is running for that queue yet, starts one that takes
messages from the head of the ProcessQueue in order.

``consume_message_directly`` hands one message to the listener at once (CONSUME_MESSAGE_DIRECTLY from an admin
tool, relayed by a broker).

Java: org.apache.rocketmq.client.impl.consumer.ConsumeMessageService (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mqlab.client.impl.consumer.process_queue import ProcessQueue
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.message.message_queue import MessageQueue
    from mqlab.common.protocol.body.consume_message_directly_result import ConsumeMessageDirectlyResult


class ConsumeMessageService(Protocol):
    """A consume service's life cycle and its one entry point."""

    def start(self) -> None:
        """Start the periodic tasks (expired-message sweep, or lock renewal). Java: ConsumeMessageService#start."""
        ...

    def shutdown(self, await_terminate_millis: int) -> None:
        """Stop the pool and the periodic tasks. Java: ConsumeMessageService#shutdown."""
        ...

    def update_core_pool_size(self, core_pool_size: int) -> None:
        """Java: ConsumeMessageService#updateCorePoolSize (mqlab's pools have a fixed size: recorded only)."""
        ...

    def inc_core_pool_size(self) -> None:
        """A no-op in 4.9.3. Java: ConsumeMessageService#incCorePoolSize."""
        ...

    def dec_core_pool_size(self) -> None:
        """A no-op in 4.9.3. Java: ConsumeMessageService#decCorePoolSize."""
        ...

    def get_core_pool_size(self) -> int:
        """Java: ConsumeMessageService#getCorePoolSize."""
        ...

    def consume_message_directly(self, msg: MessageExt, broker_name: str | None) -> ConsumeMessageDirectlyResult:
        """Give one message to the listener now and report its answer. Java: #consumeMessageDirectly."""
        ...

    def submit_consume_request(
        self,
        msgs: list[MessageExt] | None,
        process_queue: ProcessQueue,
        message_queue: MessageQueue,
        dispatch_to_consume: bool,
    ) -> None:
        """Consume a freshly pulled batch of ``message_queue``. Java: ConsumeMessageService#submitConsumeRequest."""
        ...

"""The user's code for orderly consumption: one queue's messages, one batch at a time, under the queue's lock.

A listener is an object with ``consume_message(msgs, context)`` or a plain callable with the same two parameters;
:func:`as_message_listener_orderly` turns either into the protocol. Returning None or raising counts as
SUSPEND_CURRENT_QUEUE_A_MOMENT (``ConsumeMessageOrderlyService$ConsumeRequest#run``).

Java: org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from mqlab.client.consumer.listener.consume_orderly_context import ConsumeOrderlyContext
from mqlab.client.consumer.listener.consume_orderly_status import ConsumeOrderlyStatus
from mqlab.common.message.message_ext import MessageExt

ConsumeOrderlyFunction = Callable[[list[MessageExt], ConsumeOrderlyContext], ConsumeOrderlyStatus | None]


class MessageListenerOrderly(Protocol):
    """Consume a batch taken from the head of one queue's ProcessQueue."""

    def consume_message(self, msgs: list[MessageExt], context: ConsumeOrderlyContext) -> ConsumeOrderlyStatus | None:
        """Consume ``msgs`` in order; SUSPEND_CURRENT_QUEUE_A_MOMENT puts them back and pauses the queue.

        Java: MessageListenerOrderly#consumeMessage
        """
        ...


@dataclass(frozen=True, slots=True)
class _FunctionListenerOrderly:
    function: ConsumeOrderlyFunction

    def consume_message(self, msgs: list[MessageExt], context: ConsumeOrderlyContext) -> ConsumeOrderlyStatus | None:
        return self.function(msgs, context)


def as_message_listener_orderly(
    listener: MessageListenerOrderly | ConsumeOrderlyFunction,
) -> MessageListenerOrderly:
    """The listener itself if it has ``consume_message``, else the callable wrapped as one.

    Java: none (Python accepts a plain function where Java takes an anonymous class)
    """
    if hasattr(listener, "consume_message"):
        return listener  # type: ignore[return-value]
    return _FunctionListenerOrderly(listener)  # type: ignore[arg-type]

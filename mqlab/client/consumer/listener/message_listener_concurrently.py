"""The user's code for concurrent consumption: called with batches from any queue, on any consume thread.

A listener is an object with ``consume_message(msgs, context)`` or a plain callable with the same two parameters;
:func:`as_message_listener_concurrently` turns either into the protocol. Returning None or raising counts as
RECONSUME_LATER (``ConsumeMessageConcurrentlyService$ConsumeRequest#run``).

Java: org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from mqlab.client.consumer.listener.consume_concurrently_context import ConsumeConcurrentlyContext
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.common.message.message_ext import MessageExt

ConsumeConcurrentlyFunction = Callable[[list[MessageExt], ConsumeConcurrentlyContext], ConsumeConcurrentlyStatus | None]


class MessageListenerConcurrently(Protocol):
    """Consume a batch (``consumeMessageBatchMaxSize`` messages at most, 1 by default) of one queue."""

    def consume_message(
        self, msgs: list[MessageExt], context: ConsumeConcurrentlyContext
    ) -> ConsumeConcurrentlyStatus | None:
        """Consume ``msgs``; the status (and ``context.ack_index``) decide which are sent back for a retry.

        Java: MessageListenerConcurrently#consumeMessage
        """
        ...


@dataclass(frozen=True, slots=True)
class _FunctionListenerConcurrently:
    function: ConsumeConcurrentlyFunction

    def consume_message(
        self, msgs: list[MessageExt], context: ConsumeConcurrentlyContext
    ) -> ConsumeConcurrentlyStatus | None:
        return self.function(msgs, context)


def as_message_listener_concurrently(
    listener: MessageListenerConcurrently | ConsumeConcurrentlyFunction,
) -> MessageListenerConcurrently:
    """The listener itself if it has ``consume_message``, else the callable wrapped as one.

    Java: none (Python accepts a plain function where Java takes an anonymous class)
    """
    if hasattr(listener, "consume_message"):
        return listener  # type: ignore[return-value]
    return _FunctionListenerConcurrently(listener)  # type: ignore[arg-type]

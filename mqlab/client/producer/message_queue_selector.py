"""The hook that lets the caller choose the queue of a send, usually to keep related messages in order.

Messages that must be consumed in order go to one queue: the selector maps a business key (``arg``, e.g. an order
id) to one of the topic's writable queues, so every message with that key lands in the same queue. A send with a
selector is attempted once (no retry on another queue, which would break the order).

Java: org.apache.rocketmq.client.producer.MessageQueueSelector (rocketmq-all-4.9.3)
Ready-made selectors: ``mqlab.client.producer.selector``
"""

from __future__ import annotations

from typing import Any, Protocol

from mqlab.common.message.message import Message
from mqlab.common.message.message_queue import MessageQueue


class MessageQueueSelector(Protocol):
    """Choose one of ``mqs`` (the topic's writable queues, in route order) for ``msg``, given the caller's ``arg``."""

    def select(self, mqs: list[MessageQueue], msg: Message, arg: Any) -> MessageQueue | None:
        """The queue to send to (None makes the send fail, as in Java).

        Java: MessageQueueSelector#select
        """
        ...

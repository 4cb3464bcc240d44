"""Same key, same queue: the selector for ordered messages keyed by an order id or similar.

The queue index is ``arg.hashCode() % size``, made non-negative with ``Math.abs`` when Java's remainder comes out
negative. Because it uses Java's hash codes (``String.hashCode`` for str, ``Integer.hashCode`` for ints in the int
range, ``Long.hashCode`` beyond it), a Python producer and a Java producer route the same key to the same queue.
The 4.9.3 order (remainder first, then ``Math.abs``) never fails, even for a key whose hash is
``Integer.MIN_VALUE`` such as ``"polygenelubricants"``.

Java: org.apache.rocketmq.client.producer.selector.SelectMessageQueueByHash (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import Any

from mqlab.client.common.thread_local_index import java_int_rem
from mqlab.common.jdk.hash_map import java_hash_code
from mqlab.common.message.message import Message
from mqlab.common.message.message_queue import MessageQueue


class SelectMessageQueueByHash:
    """``mqs[abs(hashCode(arg) % len(mqs))]``; ``arg`` must have a Java hash code (str, int, bool, MessageQueue...)."""

    def select(self, mqs: list[MessageQueue], msg: Message, arg: Any) -> MessageQueue:
        """The queue for ``arg``'s hash code.

        Java: SelectMessageQueueByHash#select
        """
        value = java_int_rem(java_hash_code(arg), len(mqs))
        if value < 0:
            value = abs(value)
        return mqs[value]

"""A uniformly random queue for each send (no ordering; spreads load without a counter).

Java seeds its own ``java.util.Random`` with the current time; mqlab draws from the random stream it is given, so a
simulation picks the same queues for the same seed.

Java: org.apache.rocketmq.client.producer.selector.SelectMessageQueueByRandom (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.common.message.message import Message
from mqlab.common.message.message_queue import MessageQueue

if TYPE_CHECKING:
    from random import Random


class SelectMessageQueueByRandom:
    """``mqs[random.nextInt(len(mqs))]``.

    Args:
        rng: The node's random stream.
    """

    def __init__(self, rng: Random):
        self.random = rng

    def select(self, mqs: list[MessageQueue], msg: Message, arg: Any) -> MessageQueue:
        """A random queue; ``msg`` and ``arg`` are ignored.

        Java: SelectMessageQueueByRandom#select
        """
        return mqs[self.random.randrange(len(mqs))]

"""A per-thread round-robin counter that starts at a random point: how a producer spreads sends over queues.

Each thread that asks gets its own counter, first set to ``Math.abs(random.nextInt())`` and then pre-incremented on
every call, so two producer threads do not walk the queues in lock step and a restarted producer does not always
begin with queue 0. The counter is a Java ``int``: after ``Integer.MAX_VALUE`` it wraps to ``Integer.MIN_VALUE``,
and ``Math.abs(Integer.MIN_VALUE)`` is still negative. mqlab keeps that wrap; :func:`queue_position` applies the guard
every Java caller writes after the modulo (``if (pos < 0) pos = 0``).

In a simulation there is one thread, so there is one counter per ``ThreadLocalIndex``; the random starting point
comes from the node's injected random stream, which makes the queue sequence reproducible from the seed.

Java: org.apache.rocketmq.client.common.ThreadLocalIndex (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from mqlab.common.jdk.string_hash import java_int_abs, to_int32

if TYPE_CHECKING:
    from random import Random


def java_int_rem(dividend: int, divisor: int) -> int:
    """Java's ``%`` on ints: the remainder takes the sign of the dividend (Python's ``%`` takes the divisor's).

    Java: none (the ``%`` operator of the Java language)
    """
    remainder = abs(dividend) % abs(divisor)
    return -remainder if dividend < 0 else remainder


def queue_position(index: int, size: int) -> int:
    """``Math.abs(index) % size``, then 0 if that is negative: how every caller turns a counter into a list index.

    Only ``Integer.MIN_VALUE`` gives a negative ``Math.abs``; Java's remainder is then ≤ 0 and the guard makes it 0.

    Java: the index arithmetic of TopicPublishInfo#selectOneMessageQueue and MQFaultStrategy#selectOneMessageQueue
    """
    position = java_int_rem(java_int_abs(index), size)
    return 0 if position < 0 else position


class ThreadLocalIndex:
    """``increment_and_get()`` returns this thread's next counter value (non-negative except after a wrap).

    Args:
        rng: The node's random stream; one 32-bit draw per thread seeds that thread's counter (Java: a
            ``java.util.Random`` owned by the index).
    """

    __slots__ = ("_local", "_random")

    def __init__(self, rng: Random):
        self._random = rng
        self._local = threading.local()

    def increment_and_get(self) -> int:
        """Pre-increment this thread's counter (wrapping as a Java int) and return ``Math.abs`` of it.

        Java: ThreadLocalIndex#incrementAndGet
        """
        index: int | None = getattr(self._local, "index", None)
        if index is None:
            # Random#nextInt(): 32 random bits as a signed int.
            index = java_int_abs(to_int32(self._random.getrandbits(32)))
        index = to_int32(index + 1)
        self._local.index = index
        return java_int_abs(index)

    def __str__(self) -> str:
        index = getattr(self._local, "index", None)
        return f"ThreadLocalIndex{{threadLocalIndex={'null' if index is None else index}}}"

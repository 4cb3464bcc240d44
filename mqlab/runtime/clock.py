"""Clocks: the wall clock for real runs, a virtual clock for simulations.

Java: none (RocketMQ calls ``System.currentTimeMillis()`` directly; mqlab injects the clock).
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """Milliseconds since the Unix epoch, like ``System.currentTimeMillis()``."""

    def now_ms(self) -> int:
        """Current time in epoch milliseconds."""
        ...


class SystemClock:
    """The machine's wall clock."""

    def now_ms(self) -> int:
        """Current wall-clock time in epoch milliseconds."""
        return time.time_ns() // 1_000_000


class VirtualClock:
    """A clock that moves only when the simulation moves it, and never backwards."""

    def __init__(self, start_ms: int):
        self._now = start_ms

    def now_ms(self) -> int:
        """Current virtual time in epoch milliseconds."""
        return self._now

    def advance_to(self, when_ms: int) -> None:
        """Move forward to ``when_ms`` (a time in the past leaves the clock where it is)."""
        if when_ms > self._now:
            self._now = when_ms


def wall_seconds() -> float:
    """Seconds on the machine's monotonic clock, for tools that report how long a run took (never for the engine).

    A campaign or a generator measures its own wall time with this; everything it simulates keeps the virtual clock.
    """
    return time.perf_counter()

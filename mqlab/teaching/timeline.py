"""Virtual times as a reader wants them: ``+1,250 ms`` since the simulation started, or a wall-clock time.

Java: none (teaching helper).

Notebooks print when things happen relative to the start of their simulated world, so every printed time is the
same on every run. ``since_start(world)`` gives the small function notebooks used to define as ``at``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, tzinfo
from typing import Protocol


class _Clock(Protocol):
    def now_ms(self) -> int: ...


def format_elapsed(ms: int, *, thousands: bool = False, unit: str = "ms") -> str:
    """``+1250 ms`` (``+1,250 ms`` with ``thousands``; ``+1.25 s`` with ``unit="s"``); negative stays ``-``."""
    if unit == "s":
        return f"{ms / 1000:+g} s"
    if unit != "ms":
        raise ValueError(f"unit is 'ms' or 's', not {unit!r}")
    return f"{ms:+,} ms" if thousands else f"{ms:+} ms"


def since_start(
    clock: _Clock, *, origin_ms: int | None = None, thousands: bool = False, unit: str = "ms"
) -> Callable[[int | None], str]:
    """A function ``at(ms=None)``: ``ms`` (default: now) as time since ``origin_ms``.

    Args:
        clock: a ``SimulatedWorld`` (its ``start_ms`` is the default origin) or anything with ``now_ms()``.
        origin_ms: the time printed as ``+0 ms`` (required when ``clock`` has no ``start_ms``).
        thousands: group digits (``+12,500 ms``).
        unit: ``"ms"`` or ``"s"`` (``+12.5 s``).
    """
    origin = origin_ms if origin_ms is not None else getattr(clock, "start_ms", None)
    if origin is None:
        raise ValueError("give origin_ms: this clock has no start_ms")
    format_elapsed(0, unit=unit)  # refuse a bad unit now, not at the first call

    def at(ms: int | None = None) -> str:
        """``ms`` (default: now) since the origin."""
        return format_elapsed((clock.now_ms() if ms is None else ms) - origin, thousands=thousands, unit=unit)

    return at


def wall_clock(ms: int, *, fmt: str = "%a %H:%M:%S", tz: tzinfo = UTC) -> str:
    """An epoch-ms time as a wall-clock string (UTC unless told: a simulated world's default time zone)."""
    return datetime.fromtimestamp(ms / 1000, tz).strftime(fmt)

"""Structured trace of what the library did: time, node, component, event, fields.

Java: none (teaching infrastructure). Library code records an event at each interesting step of a call chain;
notebooks print the trace (or one component of it) to show a flow step by step. In a simulation the times are
virtual, so a trace is identical, byte for byte, across runs with the same seed.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One recorded step."""

    time_ms: int
    node: str
    component: str
    event: str
    fields: dict[str, Any] = field(default_factory=dict)

    def format(self, origin_ms: int = 0) -> str:
        """One line: ``+<ms since origin> <node> <component> <event> key=value ...``."""
        detail = " ".join(f"{k}={_format_value(v)}" for k, v in self.fields.items())
        line = f"+{self.time_ms - origin_ms:>8}ms {self.node:<10} {self.component:<24} {self.event}"
        return f"{line} {detail}" if detail else line


def _format_value(value: Any) -> str:
    if isinstance(value, bytes):
        return value.hex().upper() if len(value) <= 32 else f"<{len(value)} bytes>"
    return str(value)


class Trace:
    """An append-only list of ``TraceEvent``, safe to record into from several threads.

    Args:
        origin_ms: printed times are relative to this (the start of the run).
        capacity: keep at most this many events (oldest dropped); 0 keeps all.
    """

    def __init__(self, origin_ms: int = 0, capacity: int = 0):
        self.origin_ms = origin_ms
        self.capacity = capacity
        self.enabled = True
        # a deque drops the oldest event in constant time when a capacity is set
        self._events: deque[TraceEvent] = deque(maxlen=capacity or None)
        self._lock = threading.Lock()
        self._listeners: list[Callable[[TraceEvent], None]] = []

    def record(self, time_ms: int, node: str, component: str, event: str, **fields: Any) -> None:
        """Append one event (ignored while ``enabled`` is false)."""
        if not self.enabled:
            return
        item = TraceEvent(time_ms, node, component, event, fields)
        with self._lock:
            self._events.append(item)
            listeners = list(self._listeners)
        for listener in listeners:
            listener(item)

    def subscribe(self, listener: Callable[[TraceEvent], None]) -> None:
        """Call ``listener`` with every event recorded from now on (e.g. to print live)."""
        with self._lock:
            self._listeners.append(listener)

    def events(
        self, component: str | Iterable[str] | None = None, node: str | None = None, event: str | None = None
    ) -> list[TraceEvent]:
        """Recorded events, optionally only those of some components, one node or one event name."""
        wanted = {component} if isinstance(component, str) else set(component) if component is not None else None
        with self._lock:
            items = list(self._events)
        return [
            e
            for e in items
            if (wanted is None or e.component in wanted)
            and (node is None or e.node == node)
            and (event is None or e.event == event)
        ]

    def lines(self, component: str | Iterable[str] | None = None, node: str | None = None) -> list[str]:
        """Formatted lines of ``events``."""
        return [e.format(self.origin_ms) for e in self.events(component, node)]

    def dump(self, component: str | Iterable[str] | None = None, node: str | None = None) -> str:
        """All formatted lines joined with newlines."""
        return "\n".join(self.lines(component, node))

    def print(self, component: str | Iterable[str] | None = None, node: str | None = None) -> None:
        """Print the trace, one line per event."""
        text = self.dump(component, node)
        if text:
            print(text)

    def to_mermaid(self, **options: Any) -> str:
        """The remoting requests and responses as a mermaid sequence diagram (``mqlab.teaching.trace_to_mermaid``)."""
        from mqlab.teaching.sequence import trace_to_mermaid  # the teaching layer imports this module

        return trace_to_mermaid(self, **options)

    def clear(self) -> None:
        """Forget all events recorded so far."""
        with self._lock:
            self._events.clear()

    def __iter__(self) -> Iterator[TraceEvent]:
        return iter(self.events())

    def __len__(self) -> int:
        with self._lock:
            return len(self._events)

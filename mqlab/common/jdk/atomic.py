"""``java.util.concurrent.atomic.AtomicInteger``, as far as mqlab uses it.

Java: java.util.concurrent.atomic.AtomicInteger (the JDK)
"""

from __future__ import annotations

import threading


class AtomicInteger:
    """An int that threads increment without losing an update."""

    def __init__(self, value: int = 0) -> None:
        self._value = value
        self._lock = threading.Lock()

    def increment_and_get(self) -> int:
        """Add one and return the new value."""
        with self._lock:
            self._value += 1
            return self._value

    def get(self) -> int:
        """The current value."""
        return self._value

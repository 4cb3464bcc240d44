"""Reference counting that lets a file be destroyed only when no reader holds it (or after a grace period).

Java: org.apache.rocketmq.store.ReferenceResource (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod


class ReferenceResource(ABC):
    """``hold``/``release`` around every use; ``shutdown`` marks it unavailable and cleans up at zero references."""

    def __init__(self) -> None:
        self._ref_count = 1
        self.available = True
        self.cleanup_over = False
        self.first_shutdown_timestamp = 0
        self._ref_lock = threading.Lock()

    def hold(self) -> bool:
        """Take a reference; ``False`` once the resource is shutting down.

        Java: ReferenceResource#hold
        """
        with self._ref_lock:
            if self.available and self._ref_count > 0:
                self._ref_count += 1
                return True
            return False

    def release(self) -> None:
        """Drop a reference; the last one triggers ``cleanup``.

        Java: ReferenceResource#release
        """
        with self._ref_lock:
            self._ref_count -= 1
            if self._ref_count > 0:
                return
        self.cleanup_over = self.cleanup(self._ref_count)

    def shutdown(self, now_ms: int, interval_forcibly_ms: int) -> None:
        """First call: mark unavailable and drop the initial reference; later calls force it after the interval.

        Java: ReferenceResource#shutdown (the current time is passed in)
        """
        if self.available:
            self.available = False
            self.first_shutdown_timestamp = now_ms
            self.release()
        elif self._ref_count > 0 and now_ms - self.first_shutdown_timestamp >= interval_forcibly_ms:
            self._ref_count = -1000 - self._ref_count
            self.release()

    @property
    def ref_count(self) -> int:
        """Current number of references."""
        return self._ref_count

    def is_cleanup_over(self) -> bool:
        """Whether the resource is released for good.

        Java: ReferenceResource#isCleanupOver
        """
        return self._ref_count <= 0 and self.cleanup_over

    @abstractmethod
    def cleanup(self, current_ref: int) -> bool:
        """Free the underlying resource; return whether that worked."""

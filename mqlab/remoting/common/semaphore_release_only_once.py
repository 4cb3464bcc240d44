"""A permit that can be given back only once, however many paths try (response, timeout scan, send failure).

Java: org.apache.rocketmq.remoting.common.SemaphoreReleaseOnlyOnce (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import threading

from mqlab.runtime.semaphore import RuntimeSemaphore


class SemaphoreReleaseOnlyOnce:
    """Wraps one acquired permit of ``semaphore``."""

    def __init__(self, semaphore: RuntimeSemaphore | None):
        self.semaphore = semaphore
        self._released = False
        self._lock = threading.Lock()

    def release(self) -> None:
        """Give the permit back the first time; later calls do nothing. Java: SemaphoreReleaseOnlyOnce#release."""
        if self.semaphore is None:
            return
        with self._lock:
            if self._released:
                return
            self._released = True
        self.semaphore.release()

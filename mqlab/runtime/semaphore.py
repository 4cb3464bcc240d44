"""A fair counting semaphore whose timed acquire waits correctly in both runtimes.

Java: none (stands in for ``java.util.concurrent.Semaphore`` created fair, as ``NettyRemotingAbstract`` creates its
oneway and async permits). A ``threading.Semaphore`` would block the single thread of a simulation for ever; this
one parks a waiter on a runtime future, so in a simulation the wait *drives* the world until a permit is released
or the virtual timeout passes, and on real threads it blocks on a condition variable.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

from mqlab.runtime.scheduler import Future, FutureTimeoutError, Scheduler


class RuntimeSemaphore:
    """``permits`` permits, handed out first come, first served.

    Args:
        scheduler: makes the futures a waiter parks on.
        permits: the initial number of permits.
    """

    def __init__(self, scheduler: Scheduler, permits: int):
        self._scheduler = scheduler
        self._permits = permits
        self._waiters: deque[Future[Any]] = deque()
        self._lock = threading.Lock()

    def try_acquire(self, timeout_ms: int = 0) -> bool:
        """Take a permit, waiting up to ``timeout_ms`` for one; whether it was taken.

        Java: Semaphore#tryAcquire(long, TimeUnit) (fair: nobody overtakes a thread already waiting)
        """
        with self._lock:
            if self._permits > 0 and not self._waiters:
                self._permits -= 1
                return True
            if timeout_ms <= 0:
                return False
            waiter = self._scheduler.new_future()
            self._waiters.append(waiter)
        try:
            waiter.result(timeout_ms)
            return True
        except FutureTimeoutError:
            with self._lock:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                    return False
            return True  # a release handed us the permit just as the wait ran out

    def release(self) -> None:
        """Give a permit back (to the longest waiter, if any). Java: Semaphore#release."""
        with self._lock:
            if not self._waiters:
                self._permits += 1
                return
            waiter = self._waiters.popleft()
        waiter.set_result(True)

    def available_permits(self) -> int:
        """Permits free right now. Java: Semaphore#availablePermits."""
        with self._lock:
            return self._permits

    def get_queue_length(self) -> int:
        """Callers waiting for a permit. Java: Semaphore#getQueueLength."""
        with self._lock:
            return len(self._waiters)

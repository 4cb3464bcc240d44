"""Base of every background service: a loop that waits, then does one round of work.

Java: org.apache.rocketmq.common.ServiceThread (rocketmq-all-4.9.3)

Java's subclasses each write ``while (!isStopped()) { waitForRunning(interval); doWork(); }`` in ``run()``.
mqlab splits that loop into named parts the runtime drives: ``wait_interval_ms`` (the argument of
``waitForRunning``), ``on_wait_end`` and ``run_once`` (the body). The threaded runtime runs the loop on a
thread of its own; the simulated runtime turns each wait into an event on the virtual clock, and a notebook can call
``run_once`` by hand to take one step.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime

# Java: ServiceThread.JOIN_TIME
JOIN_TIME_MS = 90 * 1000


class ServiceThread(ABC):
    """A background loop. Subclasses implement ``run_once`` and usually ``wait_interval_ms``.

    Args:
        runtime: the runtime whose scheduler runs the loop.

    Attributes:
        notified: Java's ``hasNotified``: a wakeup arrived since the last wait ended.
        wakeup_interrupts_wait: ``False`` for services whose Java loop uses ``Thread.sleep`` (a wakeup does not
            shorten the wait) instead of ``waitForRunning``.
    """

    wakeup_interrupts_wait = True

    def __init__(self, runtime: Runtime):
        self.runtime = runtime
        self.notified = False
        self._stopped = False
        self._started = False

    def get_service_name(self) -> str:
        """The thread name.

        Java: ServiceThread#getServiceName
        """
        return type(self).__name__

    def wait_interval_ms(self) -> int:
        """How long the loop waits before each round (Java: the argument of ``waitForRunning``)."""
        return 1000

    def on_wait_end(self) -> None:
        """Hook run when a wait ends, before ``run_once``.

        Java: ServiceThread#onWaitEnd
        """
        return  # most services have nothing to do here

    @abstractmethod
    def run_once(self) -> Any:
        """One round of the service's work; returns something a notebook can print or a test can check."""

    def on_stopped(self) -> None:
        """Hook run once on the service's own thread after the loop ends (threaded runtime)."""
        return  # most services have nothing to finish

    def start(self) -> None:
        """Start the loop (once).

        Java: ServiceThread#start
        """
        if self._started:
            return
        self._started = True
        self._stopped = False
        self.runtime.trace_event(self.get_service_name(), "start")
        self.runtime.scheduler.start_service(self)

    def shutdown(self) -> None:
        """Stop the loop and wait for a round in progress to finish.

        Java: ServiceThread#shutdown
        """
        if self._stopped:
            return
        self._stopped = True
        self.runtime.trace_event(self.get_service_name(), "shutdown")
        self.wakeup()
        if self._started:
            self.runtime.scheduler.stop_service(self, JOIN_TIME_MS)
        self._started = False

    def make_stop(self) -> None:
        """Mark stopped without waiting (the loop ends after the current round).

        Java: ServiceThread#makeStop
        """
        self._stopped = True

    def is_stopped(self) -> bool:
        """Whether stop was requested.

        Java: ServiceThread#isStopped
        """
        return self._stopped

    def wakeup(self) -> None:
        """End the current wait early (or make the next wait return at once).

        Java: ServiceThread#wakeup
        """
        if not self.notified:
            self.notified = True
            if self._started:
                self.runtime.scheduler.wake_service(self)

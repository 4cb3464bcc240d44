"""Base of every background service: a loop that waits, then does one round of work.

Java: org.apache.rocketmq.common.ServiceThread (rocketmq-all-4.9.3)

Java's subclasses each write ``while (!isStopped()) { waitForRunning(interval); doWork(); }`` in ``run()``.
mqlab splits that loop into named parts the runtime drives: ``wait_interval_ms`` (the argument of
``waitForRunning``), ``on_wait_end`` and ``run_once`` (the body). The threaded runtime runs the loop on a
thread of its own; the simulated runtime turns each wait into an event on the virtual clock, and a notebook can call
``run_once`` by hand to take one step.

The last wait (4.9.3's semantics, kept): ``ServiceThread#shutdown`` sets ``stopped``, then notifies the wait point;
``waitForRunning`` calls ``onWaitEnd`` in its ``finally`` whatever ended the wait, and the loop body goes on to its
work before ``while (!isStopped())`` is checked again. A service that is waiting when it is shut down therefore
runs one last round (``end_wait``): ``TransactionalMessageCheckService`` checks the half queues once more, which on
a broker that never had a half message creates ``RMQ_SYS_TRANS_HALF_TOPIC``. A service shut down in the middle of a
round does not start another. ``make_stop`` (Java: ``makeStop``, used where 4.9.3 ends a loop without waking it, and
by the crash simulation) ends the loop without that last round.
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
    #: Java's loop waits first and works after (``waitForRunning(..); doWork();``), so the wait that a shutdown ends
    #: is followed by one more round of work. ``False`` for loops that work first and wait last (or block in an
    #: interruptible ``take``): after the shutdown's wakeup only ``on_wait_end`` runs.
    works_after_last_wait = True

    def __init__(self, runtime: Runtime):
        self.runtime = runtime
        self.notified = False
        self._stopped = False
        self._started = False
        self._shut_down = False  # stopped by shutdown() (which wakes the wait), not by make_stop()

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

    def is_idle(self) -> bool:
        """Whether a round now would find nothing to do and change nothing, until some other event gives it work.

        Java: none. A promise to the simulator, which then need not run each round of a service that polls (the
        reput service every millisecond) while nothing else happens (RT-10). It must not depend on the clock: a
        service whose round looks at the time is never idle in this sense. ``False`` (always run) by default.
        """
        return False

    @abstractmethod
    def run_once(self) -> Any:
        """One round of the service's work; returns something a notebook can print or a test can check."""

    def end_wait(self) -> Any:
        """The wait is over: clear the notification, run ``on_wait_end``, then the round; returns ``run_once``'s result.

        Java: the ``finally`` of ServiceThread#waitForRunning (``hasNotified`` cleared, ``onWaitEnd``), then the rest
        of the loop body. The runtimes call this after every wait, including the one a shutdown ends (the last
        round, see the module docstring); a service stopped by ``make_stop`` does nothing and returns ``None``, as
        does the work of a ``works_after_last_wait = False`` service after its last wait.
        """
        self.notified = False
        if self._stopped and not self._shut_down:
            return None  # make_stop: the loop ends without another round
        self.on_wait_end()
        if self._stopped and not self.works_after_last_wait:
            return None
        return self.run_once()

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
        self._shut_down = False
        self.runtime.trace_event(self.get_service_name(), "start")
        self.runtime.scheduler.start_service(self)

    def shutdown(self) -> None:
        """Stop the loop and wait for a round in progress to finish.

        Java: ServiceThread#shutdown
        """
        if self._stopped:
            return
        self._stopped = True
        self._shut_down = True
        self.runtime.trace_event(self.get_service_name(), "shutdown")
        self.wakeup()
        if self._started:
            self.runtime.scheduler.stop_service(self, JOIN_TIME_MS)
        self._started = False

    def make_stop(self) -> None:
        """Mark stopped without waiting or waking (the loop ends after the current round, with no last round).

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

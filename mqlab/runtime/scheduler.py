"""What a runtime offers for time and concurrency: timers, executors, futures and service loops.

Java: none (stands in for ``ScheduledExecutorService``, ``ExecutorService``, ``CompletableFuture``,
``CountDownLatch`` and the thread inside each ``ServiceThread``).

Both runtimes implement ``Scheduler``. The threaded one uses real threads and the wall clock. The simulated one
is a single-threaded discrete-event loop over a virtual clock: timers and tasks are events ordered by (time, sequence
number), and a *blocking* call (``Future.result``, ``Scheduler.sleep``) runs the loop inline until the awaited thing
happens or the virtual timeout passes. That is how RocketMQ's blocking client API (``send`` returns a ``SendResult``)
stays deterministic in a simulation: the caller blocks, the simulation moves on underneath it, and the call returns
at a virtual time that depends only on the seed and the inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from mqlab.common.service_thread import ServiceThread

T = TypeVar("T")


class FutureTimeoutError(TimeoutError):
    """A blocking wait ran out of (real or virtual) time."""


class TimerHandle(Protocol):
    """A scheduled timer or periodic task."""

    def cancel(self) -> None:
        """Stop it from running again (a run in progress finishes)."""
        ...


class Future(Protocol[T]):
    """A result that arrives later (Java: ``CompletableFuture``)."""

    def done(self) -> bool:
        """Whether a result or an exception has been set."""
        ...

    def set_result(self, value: T) -> None:
        """Complete with a value (only the first completion counts)."""
        ...

    def set_exception(self, exc: BaseException) -> None:
        """Complete with an exception (only the first completion counts)."""
        ...

    def result(self, timeout_ms: int | None = None) -> T:
        """Wait for the result (raising ``FutureTimeoutError`` after ``timeout_ms``)."""
        ...

    def add_done_callback(self, fn: Callable[[Future[T]], None]) -> None:
        """Call ``fn(self)`` once completed (at once if already completed)."""
        ...


class Executor(Protocol):
    """A pool that runs submitted tasks (Java: ``ThreadPoolExecutor``)."""

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Run ``fn(*args)`` on the pool."""
        ...

    def shutdown(self) -> None:
        """Stop accepting tasks."""
        ...


class Scheduler(Protocol):
    """Timers, executors, futures and service loops on one clock."""

    def now_ms(self) -> int:
        """Current time (epoch ms) on this scheduler's clock."""
        ...

    def call_later(self, delay_ms: int, fn: Callable[[], Any], *, name: str = "") -> TimerHandle:
        """Run ``fn`` once after ``delay_ms``."""
        ...

    def schedule_at_fixed_rate(
        self, initial_delay_ms: int, period_ms: int, fn: Callable[[], Any], *, name: str = ""
    ) -> TimerHandle:
        """Run ``fn`` after ``initial_delay_ms`` and then every ``period_ms`` (start to start)."""
        ...

    def schedule_with_fixed_delay(
        self, initial_delay_ms: int, delay_ms: int, fn: Callable[[], Any], *, name: str = ""
    ) -> TimerHandle:
        """Run ``fn`` after ``initial_delay_ms`` and then ``delay_ms`` after each run ends."""
        ...

    def new_executor(
        self, name: str, threads: int, *, core_threads: int | None = None, queue_capacity: int = 0
    ) -> Executor:
        """A task pool of ``threads`` workers (in simulation tasks run one at a time, in submission order).

        With ``core_threads``, the pool grows as Java's ``ThreadPoolExecutor`` does: a thread per task up to
        ``core_threads``, then tasks queue, and only a task that finds ``queue_capacity`` tasks already waiting
        starts another thread, up to ``threads``. Without it, a task starts a thread whenever none is idle.
        """
        ...

    def new_future(self) -> Future[Any]:
        """An uncompleted future whose ``result`` blocks correctly on this scheduler."""
        ...

    def sleep(self, ms: int) -> None:
        """Block the caller for ``ms`` (in simulation: let the simulation run for ``ms``)."""
        ...

    def wait_until(self, predicate: Callable[[], bool], timeout_ms: int) -> bool:
        """Let time pass until ``predicate()`` holds or ``timeout_ms`` pass; returns whether it holds.

        Threads poll it every 5 ms; a simulation runs its events meanwhile and stops as soon as it holds.
        """
        ...

    def start_service(self, service: ServiceThread) -> None:
        """Start running ``service``'s loop: wait, ``on_wait_end``, ``run_once``, repeat."""
        ...

    def wake_service(self, service: ServiceThread) -> None:
        """The service was notified: end its current wait early (if its wait is interruptible)."""
        ...

    def stop_service(self, service: ServiceThread, join_timeout_ms: int) -> None:
        """Stop the loop (waiting up to ``join_timeout_ms`` for a running ``run_once`` to finish)."""
        ...


class CompletedFuture(Generic[T]):
    """A future born complete: no lock and no waiting, the same in both runtimes (e.g. an ASYNC_FLUSH put)."""

    __slots__ = ("_value",)

    def __init__(self, value: T):
        self._value = value

    def done(self) -> bool:
        """Always true."""
        return True

    def set_result(self, value: T) -> None:
        """Ignored: the first completion counts."""

    def set_exception(self, exc: BaseException) -> None:
        """Ignored: the first completion counts."""

    def result(self, timeout_ms: int | None = None) -> T:
        """The value, at once."""
        return self._value

    def exception(self) -> BaseException | None:
        """Never an exception."""
        return None

    def add_done_callback(self, fn: Callable[[CompletedFuture[T]], None]) -> None:
        """Call ``fn`` now."""
        fn(self)

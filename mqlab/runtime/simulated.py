"""The simulated runtime: one thread, a virtual clock, an ordered event queue and seeded randomness.

Java: none (teaching infrastructure, in the spirit of discrete-event simulators).

Every timer, task and service wake-up is an event ``(time, sequence)`` in one heap; the world pops them in that order
and advances the virtual clock to each event's time. Nothing depends on the machine: the same seed and the same
inputs give the same order of events, the same trace and the same bytes on disk.

Blocking calls run the loop inline: ``Future.result(timeout)`` pops events until the future completes or the virtual
timeout passes; ``sleep(ms)`` pops events for ``ms`` of virtual time. A blocking call made from inside an event
handler simply nests the loop (events are still taken strictly in heap order, and the clock never moves backwards).
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections.abc import Callable
from datetime import UTC, tzinfo
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from mqlab.runtime.clock import VirtualClock
from mqlab.runtime.disk import SimulatedDisk
from mqlab.runtime.host import HostIdentity
from mqlab.runtime.runtime import Runtime
from mqlab.runtime.scheduler import FutureTimeoutError
from mqlab.runtime.sim_network import SimNetwork
from mqlab.runtime.trace import Trace

if TYPE_CHECKING:
    from mqlab.common.service_thread import ServiceThread

T = TypeVar("T")

# 2022-04-15 05:20:00 UTC: a fixed, readable default start for simulations (any value works).
DEFAULT_START_MS = 1_650_000_000_000


class SimulationStalledError(RuntimeError):
    """A blocking call waited for something no pending event can bring about."""


def _nothing() -> None:
    """What a cancelled timer runs (never, in fact)."""


class _Event:
    __slots__ = ("cancelled", "fn", "name", "seq", "time_ms")

    def __init__(self, time_ms: int, seq: int, fn: Callable[[], Any], name: str):
        self.time_ms, self.seq, self.fn, self.name = time_ms, seq, fn, name
        self.cancelled = False

    def __lt__(self, other: _Event) -> bool:
        return (self.time_ms, self.seq) < (other.time_ms, other.seq)

    def cancel(self) -> None:
        # Drop the callback now: a cancelled timer waits in the heap until its due time, and whatever its callback
        # holds (a closed connection and its buffered bytes) must not wait with it (HARD-8).
        self.cancelled = True
        self.fn = _nothing


class _PeriodicHandle:
    __slots__ = ("cancelled", "current")

    def __init__(self) -> None:
        self.cancelled = False
        self.current: _Event | None = None

    def cancel(self) -> None:
        self.cancelled = True
        if self.current is not None:
            self.current.cancel()


class SimFuture(Generic[T]):
    """A future whose ``result`` drives the simulation until it completes."""

    __slots__ = ("_callbacks", "_done", "_exception", "_result", "_world")

    def __init__(self, world: SimulatedWorld):
        self._world = world
        self._done = False
        self._result: T | None = None
        self._exception: BaseException | None = None
        self._callbacks: list[Callable[[SimFuture[T]], None]] = []

    def done(self) -> bool:
        """Whether completed."""
        return self._done

    def _complete(self) -> None:
        self._done = True
        callbacks, self._callbacks = self._callbacks, []
        for fn in callbacks:
            fn(self)

    def set_result(self, value: T) -> None:
        """Complete with ``value`` (later completions are ignored)."""
        if not self._done:
            self._result = value
            self._complete()

    def set_exception(self, exc: BaseException) -> None:
        """Complete with ``exc`` (later completions are ignored)."""
        if not self._done:
            self._exception = exc
            self._complete()

    def result(self, timeout_ms: int | None = None) -> T:
        """Run the simulation until completed, or raise ``FutureTimeoutError`` after ``timeout_ms``."""
        if not self._done:
            self._world.run_until(self.done, timeout_ms=timeout_ms)
        if not self._done:
            raise FutureTimeoutError(f"no result within {timeout_ms} ms of virtual time")
        if self._exception is not None:
            raise self._exception
        return self._result  # type: ignore[return-value]

    def exception(self) -> BaseException | None:
        """The exception it completed with, if any (without waiting)."""
        return self._exception

    def add_done_callback(self, fn: Callable[[SimFuture[T]], None]) -> None:
        """Call ``fn(self)`` on completion (now, if already complete)."""
        if self._done:
            fn(self)
        else:
            self._callbacks.append(fn)


class SimExecutor:
    """A "thread pool" whose tasks become events at the current virtual time, run in submission order."""

    def __init__(self, world: SimulatedWorld, name: str, threads: int):
        self.world, self.name, self.threads = world, name, threads
        self._shutdown = False

    def submit(self, fn: Callable[..., T], *args: Any) -> SimFuture[T]:
        """Queue ``fn(*args)``; its future completes when the event runs."""
        if self._shutdown:
            raise RuntimeError(f"executor {self.name} is shut down")
        future: SimFuture[T] = SimFuture(self.world)

        def task() -> None:
            try:
                future.set_result(fn(*args))
            except Exception as exc:  # the task's failure belongs to its future, as in Java's FutureTask
                future.set_exception(exc)

        self.world.schedule(0, task, name=f"{self.name}-task")
        return future

    def shutdown(self) -> None:
        """Refuse further tasks (queued ones still run)."""
        self._shutdown = True


class _ServiceDriver:
    """Runs one ServiceThread's loop as events: wait → on_wait_end → run_once → wait ..."""

    def __init__(self, world: SimulatedWorld, service: ServiceThread):
        self.world, self.service = world, service
        self.pending: _Event | None = None
        self.running = False
        self.stopped = False

    def arm(self, delay_ms: int) -> None:
        self.pending = self.world.schedule(delay_ms, self.fire, name=self.service.get_service_name())

    def fire(self) -> None:
        self.pending = None
        if self.stopped:
            return
        self.running = True
        try:
            self.service.end_wait()  # nothing when make_stop() ended the loop during this wait
        finally:
            self.running = False
        if self.stopped or self.service.is_stopped():
            return
        # Java's waitForRunning returns at once when a notify came in while the service was working.
        self.arm(0 if self.service.notified else self.service.wait_interval_ms())

    def wake(self) -> None:
        if self.running or self.stopped or not self.service.wakeup_interrupts_wait:
            return
        if self.pending is not None and self.pending.time_ms > self.world.clock.now_ms():
            self.pending.cancel()
            self.arm(0)


class SimScheduler:
    """The ``Scheduler`` of a simulated world (shared by all its nodes)."""

    def __init__(self, world: SimulatedWorld):
        self.world = world
        self._drivers: dict[int, _ServiceDriver] = {}

    def now_ms(self) -> int:
        """Virtual time."""
        return self.world.clock.now_ms()

    def call_later(self, delay_ms: int, fn: Callable[[], Any], *, name: str = "") -> _Event:
        """Run ``fn`` once, ``delay_ms`` of virtual time from now."""
        return self.world.schedule(delay_ms, fn, name=name)

    def _periodic(self, initial_delay_ms: int, next_delay: Callable[[int], int], fn: Callable[[], Any], name: str):
        handle = _PeriodicHandle()

        def run() -> None:
            if handle.cancelled:
                return
            started = self.now_ms()
            try:
                fn()
            finally:
                if not handle.cancelled:
                    handle.current = self.world.schedule(next_delay(started), run, name=name)

        handle.current = self.world.schedule(initial_delay_ms, run, name=name)
        return handle

    def schedule_at_fixed_rate(
        self, initial_delay_ms: int, period_ms: int, fn: Callable[[], Any], *, name: str = ""
    ) -> _PeriodicHandle:
        """Run every ``period_ms`` from start to start (late runs are not bunched up, as in Java)."""
        return self._periodic(initial_delay_ms, lambda started: max(0, started + period_ms - self.now_ms()), fn, name)

    def schedule_with_fixed_delay(
        self, initial_delay_ms: int, delay_ms: int, fn: Callable[[], Any], *, name: str = ""
    ) -> _PeriodicHandle:
        """Run ``delay_ms`` after each run ends."""
        return self._periodic(initial_delay_ms, lambda started: delay_ms, fn, name)

    def new_executor(
        self, name: str, threads: int, *, core_threads: int | None = None, queue_capacity: int = 0
    ) -> SimExecutor:
        """A deterministic task queue standing in for a thread pool (no threads: the sizes change nothing)."""
        return SimExecutor(self.world, name, threads)

    def new_future(self) -> SimFuture[Any]:
        """A future whose ``result`` drives the simulation."""
        return SimFuture(self.world)

    def sleep(self, ms: int) -> None:
        """Let the simulation run for ``ms`` of virtual time."""
        self.world.run_for(ms)

    def wait_until(self, predicate: Callable[[], bool], timeout_ms: int) -> bool:
        """Run events until ``predicate()`` holds, at most ``timeout_ms`` of virtual time; returns whether it holds."""
        return self.world.run_until(predicate, timeout_ms=timeout_ms)

    def start_service(self, service: ServiceThread) -> None:
        """Arm the service's first wait."""
        driver = _ServiceDriver(self.world, service)
        self._drivers[id(service)] = driver
        driver.arm(service.wait_interval_ms())

    def wake_service(self, service: ServiceThread) -> None:
        """Bring the service's next run forward to now (if it waits interruptibly)."""
        driver = self._drivers.get(id(service))
        if driver is not None:
            driver.wake()

    def stop_service(self, service: ServiceThread, join_timeout_ms: int) -> None:
        """Cancel the service's pending wake-up; a waiting service runs its last round now, then never again."""
        driver = self._drivers.pop(id(service), None)
        if driver is not None:
            driver.stopped = True
            if driver.pending is not None:
                driver.pending.cancel()
                driver.pending = None
                if not driver.running:
                    # It was waiting: the shutdown's wakeup ends the wait and Java's shutdown joins the thread,
                    # so the last round (ServiceThread#end_wait) runs now, before shutdown returns.
                    service.end_wait()


class SimulatedWorld:
    """A deterministic world: virtual clock, one event heap, seeded randomness, a shared trace.

    Args:
        seed: fixes every random choice of every node.
        start_ms: virtual epoch time at the start.
        tz: time zone every node sees (UTC by default, so file names do not depend on the machine).
    """

    def __init__(self, seed: int = 0, start_ms: int = DEFAULT_START_MS, tz: tzinfo = UTC):
        self.seed = seed
        self.clock = VirtualClock(start_ms)
        self.start_ms = start_ms
        self.tz = tz
        self.trace = Trace(origin_ms=start_ms)
        self.disk = SimulatedDisk()
        self.scheduler = SimScheduler(self)
        # Connections between the world's nodes, with seeded latency and fault injection (see sim_network).
        self.network = SimNetwork(self)
        self._heap: list[_Event] = []
        self._seq = itertools.count()
        self._nodes: dict[str, Runtime] = {}
        self.events_run = 0

    # -- nodes -------------------------------------------------------------------------------------------------
    def runtime(self, node: str, *, ip: str | None = None, pid: int | None = None) -> Runtime:
        """The runtime of node ``node`` (created on first use with a fixed ip/pid unless given)."""
        if node in self._nodes:
            return self._nodes[node]
        index = len(self._nodes) + 1
        rng = random.Random(f"{self.seed}:{node}")
        host = HostIdentity(
            ip=ip or f"10.0.0.{index}",
            pid=pid if pid is not None else 1000 + index,
            class_loader_hash=rng.randint(-(2**31), 2**31 - 1),
            hostname=node,
        )
        runtime = Runtime(
            node=node,
            clock=self.clock,
            scheduler=self.scheduler,
            rng=rng,
            host=host,
            tz=self.tz,
            trace=self.trace,
            simulated=True,
            disk=self.disk,
            network=self.network.attach(node, host.ip),
        )
        self._nodes[node] = runtime
        return runtime

    # -- the event loop ----------------------------------------------------------------------------------------
    def now_ms(self) -> int:
        """Current virtual time."""
        return self.clock.now_ms()

    def schedule(self, delay_ms: int, fn: Callable[[], Any], *, name: str = "") -> _Event:
        """Queue ``fn`` at now + ``delay_ms`` (ties run in the order they were queued)."""
        event = _Event(self.clock.now_ms() + max(0, int(delay_ms)), next(self._seq), fn, name)
        heapq.heappush(self._heap, event)
        return event

    def pending(self) -> int:
        """Number of queued events that are not cancelled."""
        return sum(1 for e in self._heap if not e.cancelled)

    def next_event_time(self) -> int | None:
        """Virtual time of the next live event, if any."""
        while self._heap and self._heap[0].cancelled:
            heapq.heappop(self._heap)
        return self._heap[0].time_ms if self._heap else None

    def step(self) -> bool:
        """Run the next event (advancing the clock to it); ``False`` when nothing is queued."""
        when = self.next_event_time()
        if when is None:
            return False
        event = heapq.heappop(self._heap)
        self.clock.advance_to(event.time_ms)
        self.events_run += 1
        event.fn()
        return True

    def run_for(self, ms: int) -> int:
        """Run every event due in the next ``ms`` of virtual time; the clock ends exactly ``ms`` later.

        Returns:
            The number of events run.
        """
        target = self.clock.now_ms() + ms
        ran = 0
        while True:
            when = self.next_event_time()
            if when is None or when > target:
                break
            self.step()
            ran += 1
        self.clock.advance_to(target)
        return ran

    def run_until(self, predicate: Callable[[], bool], timeout_ms: int | None = None) -> bool:
        """Run events until ``predicate()`` holds; stop at ``timeout_ms`` of virtual time (``None``: no limit).

        Returns:
            Whether the predicate holds.

        Raises:
            SimulationStalledError: no limit was given and no event is left that could make it hold.
        """
        deadline = None if timeout_ms is None else self.clock.now_ms() + timeout_ms
        while not predicate():
            when = self.next_event_time()
            if when is None or (deadline is not None and when > deadline):
                if deadline is None:
                    raise SimulationStalledError("waiting forever: no pending event can make the condition true")
                self.clock.advance_to(deadline)
                return predicate()
            self.step()
        return True

    def run_until_idle(self, max_events: int = 1_000_000) -> int:
        """Run until no event is queued (periodic tasks never end, so mind ``max_events``)."""
        ran = 0
        while ran < max_events and self.step():
            ran += 1
        return ran

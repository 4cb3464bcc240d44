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

import random
from collections.abc import Callable
from datetime import UTC, tzinfo
from heapq import heapify, heappop, heappush, heapreplace
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
# The horizon of a run_until without a timeout: later than any event.
_NO_DEADLINE = 2**62


class SimulationStalledError(RuntimeError):
    """A blocking call waited for something no pending event can bring about."""


class _Event(list):
    """A queued event: ``[time_ms, seq, fn]``, or ``[time_ms, seq, fn, driver]`` for a service's round.

    ``fn`` is ``None`` once cancelled. A list, so that the heap compares events in C (time first, then the unique
    sequence number; ``fn`` is never reached): the comparison is what the simulator does most, millions of times a
    campaign.
    """

    __slots__ = ()
    # Hashable by identity, as a timer handle is (callers keep handles in sets); two events are never equal anyway,
    # their sequence numbers differ.
    __hash__ = object.__hash__  # type: ignore[assignment]

    @property
    def time_ms(self) -> int:
        """Virtual time the event is due."""
        return self[0]

    @property
    def seq(self) -> int:
        """Order of scheduling (ties at one time run in this order)."""
        return self[1]

    @property
    def cancelled(self) -> bool:
        """Whether ``cancel`` was called."""
        return self[2] is None

    def cancel(self) -> None:
        """Never run it."""
        # Drop the callback now: a cancelled timer waits in the heap until its due time, and whatever its callback
        # holds (a closed connection and its buffered bytes) must not wait with it (HARD-8).
        self[2] = None


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
    """Runs one ServiceThread's loop as events: wait → on_wait_end → run_once → wait ...

    An idle poller (``ServiceThread.is_idle`` after its round) does not run one event per wait when nothing else can
    happen meanwhile: ``SimulatedWorld._arm_idle`` accounts for the rounds that would find nothing and queues the
    first one that could matter, with the sequence number it would have had (RT-10).
    """

    __slots__ = ("pending", "running", "service", "stopped", "world")

    def __init__(self, world: SimulatedWorld, service: ServiceThread):
        self.world, self.service = world, service
        self.pending: _Event | None = None
        self.running = False
        self.stopped = False

    def arm(self, delay_ms: int) -> None:
        self.pending = self.world._schedule_round(delay_ms, self)

    def fire(self) -> None:
        self.pending = None
        if self.stopped:
            return
        service = self.service
        self.running = True
        try:
            service.end_wait()  # nothing when make_stop() ended the loop during this wait
        finally:
            self.running = False
        if self.stopped or service.is_stopped():
            return
        if service.notified:
            # Java's waitForRunning returns at once when a notify came in while the service was working.
            self.arm(0)
        elif service.is_idle():
            self.world._arm_idle(self, service.wait_interval_ms())
        else:
            self.arm(service.wait_interval_ms())

    def is_quiet(self) -> bool:
        """Whether its next round (when it waits, un-notified) would change nothing (``ServiceThread.is_idle``)."""
        service = self.service
        return not (self.stopped or self.running or service.notified) and service.is_idle()

    def wake(self) -> None:
        if self.running or self.stopped or not self.service.wakeup_interrupts_wait:
            return
        pending = self.pending
        if pending is not None and pending[0] > self.world.clock.now_ms():
            pending.cancel()
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
        self._seq = 0  # the sequence number of the next event
        # Deadline of the innermost run_for/run_until running events (None: none, or a step), see _idle_wait.
        self._horizon: int | None = None
        self._waiting_for: Callable[[], bool] | None = None  # the predicate of that loop, if a run_until
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
        """Queue ``fn`` at now + ``delay_ms`` (ties run in the order they were queued).

        ``name`` documents the call site; the event does not keep it (nothing reads it, and every event would pay).
        """
        seq = self._seq
        self._seq = seq + 1
        event = _Event((self.clock._now + (delay_ms if delay_ms > 0 else 0), seq, fn))
        heappush(self._heap, event)
        return event

    def _schedule_round(self, delay_ms: int, driver: _ServiceDriver) -> _Event:
        """Queue the next round of a service (as ``schedule``, the event also names its driver, see ``_idle_wait``)."""
        seq = self._seq
        self._seq = seq + 1
        event = _Event((self.clock._now + (delay_ms if delay_ms > 0 else 0), seq, driver.fire, driver))
        heappush(self._heap, event)
        return event

    def pending(self) -> int:
        """Number of queued events that are not cancelled."""
        return sum(1 for e in self._heap if e[2] is not None)

    def next_event_time(self) -> int | None:
        """Virtual time of the next live event, if any."""
        heap = self._heap
        while heap and heap[0][2] is None:
            heappop(heap)
        return heap[0][0] if heap else None

    def _run_due(self, limit: int, predicate: Callable[[], bool] | None) -> bool:
        """Run events due at or before ``limit`` until ``predicate()`` holds; returns whether it did.

        The inner loop of ``run_for`` and ``run_until``, written out flat: this is where a simulation spends its time.
        """
        heap, clock = self._heap, self.clock
        while True:
            if predicate is not None and predicate():
                return True
            while heap and heap[0][2] is None:
                heappop(heap)  # a cancelled event costs one pop, nothing else
            if not heap or heap[0][0] > limit:
                return False
            event = heappop(heap)
            time_ms, fn = event[0], event[2]
            if time_ms > clock._now:
                clock._now = time_ms
            self.events_run += 1
            fn()

    def step(self) -> bool:
        """Run the next event (advancing the clock to it); ``False`` when nothing is queued."""
        if self.next_event_time() is None:
            return False
        event = heappop(self._heap)
        time_ms, fn = event[0], event[2]
        self.clock.advance_to(time_ms)
        self.events_run += 1
        # Control comes back to the caller after this one event: no idle poll may be skipped (RT-10).
        horizon, self._horizon = self._horizon, None
        try:
            fn()
        finally:
            self._horizon = horizon
        return True

    def run_for(self, ms: int) -> int:
        """Run every event due in the next ``ms`` of virtual time; the clock ends exactly ``ms`` later.

        Returns:
            The number of events run, those of nested loops and skipped idle rounds included.
        """
        target = self.clock.now_ms() + ms
        before = self.events_run
        horizon, self._horizon = self._horizon, target
        waiting_for, self._waiting_for = self._waiting_for, None
        try:
            self._run_due(target, None)
        finally:
            self._horizon, self._waiting_for = horizon, waiting_for
        self.clock.advance_to(target)
        return self.events_run - before

    def run_until(self, predicate: Callable[[], bool], timeout_ms: int | None = None) -> bool:
        """Run events until ``predicate()`` holds; stop at ``timeout_ms`` of virtual time (``None``: no limit).

        Returns:
            Whether the predicate holds.

        Raises:
            SimulationStalledError: no limit was given and no event is left that could make it hold.
        """
        deadline = _NO_DEADLINE if timeout_ms is None else self.clock.now_ms() + timeout_ms
        horizon, self._horizon = self._horizon, deadline
        waiting_for, self._waiting_for = self._waiting_for, predicate
        try:
            if self._run_due(deadline, predicate):
                return True
        finally:
            self._horizon, self._waiting_for = horizon, waiting_for
        if timeout_ms is None:
            raise SimulationStalledError("waiting forever: no pending event can make the condition true")
        self.clock.advance_to(deadline)
        return predicate()

    def _arm_idle(self, driver: _ServiceDriver, interval_ms: int) -> None:
        """Queue the next round of a service that found itself idle, skipping the rounds that cannot matter (RT-10).

        A round of an idle service changes nothing (``ServiceThread.is_idle``) but the sequence numbers it draws,
        which order later events of the same millisecond. So nothing is skipped blindly: while the only events due
        are rounds of idle services, and the loop now running will not hand control back to its caller (its horizon:
        the deadline of ``run_for``/``run_until``, unless what ``run_until`` waits for holds already; none under
        ``step``), those rounds are replayed here as numbers
        alone: in heap order, each draws the sequence number of its next round and counts in ``events_run``, without
        calling the service. The rounds are queued again as they stand when something else is due: each with the
        very ``(time, seq)`` it would have had, so the order of everything, the trace and ``events_run`` stay as if
        every round had run.
        """
        heap = self._heap
        seq = self._seq
        first = _Event((self.clock._now + (interval_ms if interval_ms > 0 else 0), seq, driver.fire, driver))
        self._seq = seq + 1
        driver.pending = first
        horizon = self._horizon
        if horizon is None or interval_ms <= 0 or (self._waiting_for is not None and self._waiting_for()):
            # Control goes back to the caller after this event: under step(), or because what the loop waits for
            # has come true (during a nested loop of this very event, say). Rounds run again from the next one.
            heappush(heap, first)
            return
        limit = horizon + 1
        rounds = [first]
        while heap:
            top = heap[0]
            if top[2] is None:
                heappop(heap)
            elif len(top) == 4 and top[3].is_quiet():
                rounds.append(heappop(heap))  # queued again below: a heap's order is that of its keys alone
            else:
                limit = min(top[0], limit)
                break
        if limit <= _NO_DEADLINE:  # else nothing but idle services is left and there is no deadline: no replay
            self._replay_idle_rounds(rounds, limit)
        for event in rounds:
            heappush(heap, event)

    def _replay_idle_rounds(self, rounds: list[_Event], limit: int) -> None:
        """Advance idle rounds due before ``limit`` as the loop would have, without running them (see ``_arm_idle``)."""
        heapify(rounds)
        intervals = {id(event[3]): event[3].service.wait_interval_ms() for event in rounds}
        seq = self._seq
        while rounds[0][0] < limit:
            event = rounds[0]  # the round due next fires, finds nothing, and queues its next round
            event[0] += intervals[id(event[3])]
            event[1] = seq
            seq += 1
            heapreplace(rounds, event)
        self.events_run += seq - self._seq
        self._seq = seq

    def run_until_idle(self, max_events: int = 1_000_000) -> int:
        """Run until no event is queued (periodic tasks never end, so mind ``max_events``)."""
        ran = 0
        while ran < max_events and self.step():
            ran += 1
        return ran

"""The threaded runtime: real threads, the wall clock, the machine's identity.

Java: none (stands in for the JVM's threads, ``ScheduledExecutorService`` and ``System.currentTimeMillis``).
Each ``ServiceThread`` gets its own daemon thread, timers run on a small pool, and
futures block on a lock until completed.
"""

from __future__ import annotations

import heapq
import itertools
import os
import queue
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from mqlab.runtime.clock import SystemClock
from mqlab.runtime.host import HostIdentity
from mqlab.runtime.runtime import Runtime
from mqlab.runtime.scheduler import FutureTimeoutError
from mqlab.runtime.tcp_network import TcpNetwork
from mqlab.runtime.trace import Trace

if TYPE_CHECKING:
    from mqlab.common.service_thread import ServiceThread

T = TypeVar("T")


class ThreadFuture(Generic[T]):
    """A future completed from any thread; ``result`` blocks until it is.

    A gate lock, held from creation until completion, is what waiters block on: each waiter takes it and hands it
    straight back. (A lock costs far less to create than a condition variable, and a future is made per request.)
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._gate = threading.Lock()
        self._gate.acquire()
        self._done = False
        self._result: T | None = None
        self._exception: BaseException | None = None
        self._callbacks: list[Callable[[ThreadFuture[T]], None]] = []

    def done(self) -> bool:
        """Whether completed."""
        return self._done

    def _complete(self, result: T | None, exc: BaseException | None) -> None:
        with self._lock:
            if self._done:
                return
            self._result, self._exception, self._done = result, exc, True
            callbacks, self._callbacks = self._callbacks, []
        self._gate.release()
        for fn in callbacks:
            fn(self)

    def set_result(self, value: T) -> None:
        """Complete with ``value``."""
        self._complete(value, None)

    def set_exception(self, exc: BaseException) -> None:
        """Complete with ``exc``."""
        self._complete(None, exc)

    def result(self, timeout_ms: int | None = None) -> T:
        """Block until completed or ``timeout_ms`` passes."""
        if not self._done:
            timeout = -1 if timeout_ms is None else max(0.0, timeout_ms / 1000)
            if not self._gate.acquire(timeout=timeout):
                raise FutureTimeoutError(f"no result within {timeout_ms} ms")
            self._gate.release()  # let the next waiter through
        if self._exception is not None:
            raise self._exception
        return self._result  # type: ignore[return-value]

    def exception(self) -> BaseException | None:
        """The exception it completed with, if any (without waiting)."""
        return self._exception

    def add_done_callback(self, fn: Callable[[ThreadFuture[T]], None]) -> None:
        """Call ``fn(self)`` on completion (now, if already complete)."""
        with self._lock:
            if not self._done:
                self._callbacks.append(fn)
                return
        fn(self)


_STOP = object()  # tells a pool thread to exit


class ThreadExecutor:
    """A named thread pool of at most ``threads`` threads, started as tasks arrive (as ``ThreadPoolExecutor``).

    Tasks wait in one queue; a thread is started when a task arrives and no thread is idle. With ``core_threads``
    the pool grows as Java's ``ThreadPoolExecutor`` with a bounded queue does: a new thread for each task until
    ``core_threads`` run, then tasks wait, and a task that finds ``queue_capacity`` tasks already waiting starts
    another thread, up to ``threads`` (Java's new thread runs that task first; here it takes the oldest waiting
    one, which changes the order, not the count). After ``shutdown``,
    ``submit`` raises ``RuntimeError`` (Java: ``RejectedExecutionException``) and the threads exit once the queue
    is drained. (``concurrent.futures.ThreadPoolExecutor`` does the same with a future, a condition variable and
    a semaphore per task; a consumer submits a task per message, so this pool keeps only what the runtime uses.)
    """

    def __init__(self, name: str, threads: int, *, core_threads: int | None = None, queue_capacity: int = 0):
        self.name = name
        self._max_threads = max(1, threads)
        self._core_threads = None if core_threads is None else min(max(0, core_threads), self._max_threads)
        self._queue_capacity = max(0, queue_capacity)
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._idle: list[threading.Thread] = []  # one entry per thread waiting for a task
        self._shutdown = False

    def submit(self, fn: Callable[..., T], *args: Any) -> ThreadFuture[T]:
        """Run ``fn(*args)`` on the pool.

        Raises:
            RuntimeError: the pool was shut down.
        """
        future: ThreadFuture[T] = ThreadFuture()

        def task() -> None:
            try:
                future.set_result(fn(*args))
            except Exception as exc:  # the task's failure belongs to its future
                future.set_exception(exc)

        with self._lock:
            if self._shutdown:
                raise RuntimeError(f"executor {self.name} is shut down")
            self._queue.put(task)
            if not self._should_grow():
                return future
            thread = threading.Thread(target=self._work, name=f"{self.name}_{len(self._threads)}", daemon=True)
            self._threads.append(thread)
            self._idle.append(thread)  # idle until it takes its first task
        thread.start()
        return future

    def _should_grow(self) -> bool:
        """Whether the task just queued starts a thread (called under the lock)."""
        started = len(self._threads)
        if started >= self._max_threads:
            return False
        if self._core_threads is None:
            return not self._idle
        if started < self._core_threads:
            return True
        return not self._idle and self._queue.qsize() > self._queue_capacity  # the queue was full

    @property
    def thread_count(self) -> int:
        """Threads started so far (they live until ``shutdown``)."""
        return len(self._threads)

    def _work(self) -> None:
        # The idle list changes by single append/pop calls, which need no lock: a worker that wakes up must not
        # wait for the lock its submitter may still hold.
        tasks, idle = self._queue, self._idle
        me = threading.current_thread()
        while True:
            task = tasks.get()
            if task is _STOP:
                return
            idle.pop()
            task()
            idle.append(me)

    def shutdown(self) -> None:
        """Stop accepting tasks; queued and running ones finish, then the threads exit."""
        with self._lock:
            if self._shutdown:
                return
            self._shutdown = True
            count = len(self._threads)
        for _ in range(count):
            self._queue.put(_STOP)


def _nothing() -> None:
    """What a cancelled timer runs (never, in fact)."""


class _Timer:
    __slots__ = ("cancelled", "fn", "name", "next_delay", "seq", "when")

    def __init__(self, when: float, seq: int, fn: Callable[[], Any], name: str, next_delay):
        self.when, self.seq, self.fn, self.name, self.next_delay = when, seq, fn, name, next_delay
        self.cancelled = False

    def __lt__(self, other: _Timer) -> bool:
        return (self.when, self.seq) < (other.when, other.seq)

    def cancel(self) -> None:
        # Drop the callback now: a cancelled timer waits in the heap until its due time, and whatever its callback
        # holds (a closed connection and its buffered bytes) must not wait with it (HARD-8).
        self.cancelled = True
        self.fn = _nothing


class ThreadScheduler:
    """Timers on one dispatcher thread (tasks run on a small pool), one thread per service."""

    def __init__(self, clock: SystemClock, name: str = "mqlab", timer_threads: int = 4):
        self.clock = clock
        self.name = name
        self._heap: list[_Timer] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._pool = ThreadPoolExecutor(max_workers=timer_threads, thread_name_prefix=f"{name}-timer")
        self._closed = False
        self._dispatcher = threading.Thread(target=self._dispatch, name=f"{name}-timers", daemon=True)
        self._dispatcher.start()
        self._services: dict[int, tuple[threading.Thread, threading.Event]] = {}

    def now_ms(self) -> int:
        """Wall-clock time."""
        return self.clock.now_ms()

    # -- timers ------------------------------------------------------------------------------------------------
    def _push(self, delay_ms: float, fn: Callable[[], Any], name: str, next_delay=None) -> _Timer:
        timer = _Timer(time.monotonic() + max(0.0, delay_ms) / 1000, next(self._seq), fn, name, next_delay)
        with self._cond:
            heapq.heappush(self._heap, timer)
            self._cond.notify()
        return timer

    def _dispatch(self) -> None:
        while True:
            with self._cond:
                while not self._closed and (not self._heap or self._heap[0].when > time.monotonic()):
                    timeout = None if not self._heap else max(0.0, self._heap[0].when - time.monotonic())
                    self._cond.wait(timeout)
                if self._closed:
                    return
                timer = heapq.heappop(self._heap)
            if not timer.cancelled:
                self._pool.submit(self._run_timer, timer)

    def _run_timer(self, timer: _Timer) -> None:
        started = time.monotonic()
        try:
            timer.fn()
        except Exception:  # a failing periodic task must not kill the schedule (Java logs and goes on)
            import traceback

            traceback.print_exc()
        finally:
            if timer.next_delay is not None and not timer.cancelled and not self._closed:
                delay = timer.next_delay(started)
                timer.when = time.monotonic() + delay / 1000
                timer.seq = next(self._seq)
                with self._cond:
                    heapq.heappush(self._heap, timer)
                    self._cond.notify()

    def call_later(self, delay_ms: int, fn: Callable[[], Any], *, name: str = "") -> _Timer:
        """Run ``fn`` once after ``delay_ms``."""
        return self._push(delay_ms, fn, name)

    def schedule_at_fixed_rate(
        self, initial_delay_ms: int, period_ms: int, fn: Callable[[], Any], *, name: str = ""
    ) -> _Timer:
        """Run every ``period_ms`` (start to start; an overrun delays the next run, never overlaps it)."""
        return self._push(
            initial_delay_ms,
            fn,
            name,
            lambda started: max(0.0, (started + period_ms / 1000 - time.monotonic()) * 1000),
        )

    def schedule_with_fixed_delay(
        self, initial_delay_ms: int, delay_ms: int, fn: Callable[[], Any], *, name: str = ""
    ) -> _Timer:
        """Run ``delay_ms`` after each run ends."""
        return self._push(initial_delay_ms, fn, name, lambda started: delay_ms)

    # -- executors, futures, sleeping ----------------------------------------------------------------------------
    def new_executor(
        self, name: str, threads: int, *, core_threads: int | None = None, queue_capacity: int = 0
    ) -> ThreadExecutor:
        """A real thread pool (see ``Scheduler.new_executor`` for how it grows)."""
        return ThreadExecutor(name, threads, core_threads=core_threads, queue_capacity=queue_capacity)

    def new_future(self) -> ThreadFuture[Any]:
        """A thread-safe future."""
        return ThreadFuture()

    def sleep(self, ms: int) -> None:
        """Block this thread."""
        time.sleep(ms / 1000)

    def wait_until(self, predicate: Callable[[], bool], timeout_ms: int) -> bool:
        """Poll ``predicate()`` every 5 ms until it holds or ``timeout_ms`` pass; returns whether it holds."""
        deadline = self.clock.now_ms() + timeout_ms
        while not predicate():
            if self.clock.now_ms() > deadline:
                return False
            time.sleep(0.005)
        return True

    # -- services ------------------------------------------------------------------------------------------------
    def start_service(self, service: ServiceThread) -> None:
        """Start the service's own daemon thread."""
        signal = threading.Event()
        thread = threading.Thread(
            target=self._service_loop, args=(service, signal), name=service.get_service_name(), daemon=True
        )
        self._services[id(service)] = (thread, signal)
        thread.start()

    def _service_loop(self, service: ServiceThread, signal: threading.Event) -> None:
        while not service.is_stopped():
            if service.notified:
                signal.clear()
            elif service.wakeup_interrupts_wait:
                signal.wait(service.wait_interval_ms() / 1000)
                signal.clear()
            else:
                time.sleep(service.wait_interval_ms() / 1000)
            service.end_wait()  # also after the wait a shutdown ended: 4.9.3's last round (ServiceThread docstring)
        service.on_stopped()

    def wake_service(self, service: ServiceThread) -> None:
        """End the service's current wait."""
        entry = self._services.get(id(service))
        if entry is not None:
            entry[1].set()

    def stop_service(self, service: ServiceThread, join_timeout_ms: int) -> None:
        """Wake the service so it sees it is stopped, and join its thread."""
        entry = self._services.pop(id(service), None)
        if entry is None:
            return
        thread, signal = entry
        signal.set()
        if thread is not threading.current_thread():
            thread.join(join_timeout_ms / 1000)

    def close(self) -> None:
        """Stop the timer dispatcher and its pool."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._pool.shutdown(wait=False, cancel_futures=True)


class ThreadedRuntime:
    """Factory for real runtimes."""

    @staticmethod
    def create(node: str, *, trace: Trace | None = None, seed: int | None = None, trace_capacity: int = 0) -> Runtime:
        """A runtime on the wall clock with this machine's identity (``seed`` only fixes ``runtime.random``).

        ``trace_capacity`` bounds the trace it creates (0 keeps every event: right for a run that is inspected
        afterwards, not for a server that runs for days).
        """
        clock = SystemClock()
        rng = random.Random(seed)
        tz = datetime.now().astimezone().tzinfo
        assert tz is not None
        return Runtime(
            node=node,
            clock=clock,
            scheduler=ThreadScheduler(clock, name=node),
            rng=rng,
            host=HostIdentity.of_this_machine(rng),
            tz=tz,
            trace=trace if trace is not None else Trace(origin_ms=clock.now_ms(), capacity=trace_capacity),
            simulated=False,
            total_physical_memory=_physical_memory(),
            network=TcpNetwork(),
        )


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return 24 * 1024**3  # Java's StoreUtil fallback

"""A node's view of its runtime: clock, scheduler, randomness, host identity, time zone and trace.

Java: none. Every piece of library code that RocketMQ would let read the clock, spawn a thread, draw a random
number or look up the host asks one of these instead. A ``Runtime`` is per node (a broker, a name server, a
client process): in a simulation several nodes share one world and one virtual clock but each has its own identity,
its own random stream and its own "static" state (``singleton``).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from datetime import tzinfo
from typing import Any, TypeVar

from mqlab.runtime.clock import Clock
from mqlab.runtime.disk import Disk, RealDisk
from mqlab.runtime.host import HostIdentity
from mqlab.runtime.network import Network, NoNetwork
from mqlab.runtime.scheduler import Scheduler
from mqlab.runtime.trace import Trace

T = TypeVar("T")


class Runtime:
    """Everything environmental a node needs, injected.

    Attributes:
        node: the node's name in traces (e.g. ``"broker-a"``).
        clock: epoch-millisecond clock.
        scheduler: timers, executors, futures, service loops.
        random: this node's random stream (seeded per node in simulation).
        host: ip, pid and class-loader hash.
        tz: the time zone Java would take from the JVM (index file names, UNIQ_KEY month start, ``deleteWhen``).
        trace: where ``trace_event`` records.
        simulated: whether this runtime is the deterministic simulation.
        total_physical_memory: RAM in bytes, for the store's "message is on disk, not in page cache" guess (Java:
            ``StoreUtil.TOTAL_PHYSICAL_MEMORY_SIZE``; 24 GiB, Java's fallback, in a simulation).
        disk: reports partition space (the real file system, or the simulated disk of a simulation).
        network: listens, connects and carries bytes (real TCP, or the simulated world's network); a runtime
            built without one has ``NoNetwork``, which refuses every use.
    """

    def __init__(
        self,
        *,
        node: str,
        clock: Clock,
        scheduler: Scheduler,
        rng: random.Random,
        host: HostIdentity,
        tz: tzinfo,
        trace: Trace,
        simulated: bool,
        total_physical_memory: int = 24 * 1024**3,
        disk: Disk | None = None,
        network: Network | None = None,
    ):
        self.node = node
        self.clock = clock
        self.scheduler = scheduler
        self.random = rng
        self.host = host
        self.tz = tz
        self.trace = trace
        self.simulated = simulated
        self.total_physical_memory = total_physical_memory
        self.disk: Disk = disk if disk is not None else RealDisk()
        self.network: Network = network if network is not None else NoNetwork()
        self._singletons: dict[Any, Any] = {}
        self._singletons_lock = threading.Lock()

    def now_ms(self) -> int:
        """Current time in epoch ms (Java: ``System.currentTimeMillis()``)."""
        return self.clock.now_ms()

    def trace_event(self, component: str, event: str, **fields: Any) -> None:
        """Record one step of a call chain under this node's name (nothing at all while tracing is off)."""
        trace = self.trace
        if trace.enabled:
            trace.record(self.clock.now_ms(), self.node, component, event, **fields)

    def singleton(self, key: Any, factory: Callable[[], T]) -> T:
        """This node's one instance for ``key`` (what Java keeps in static fields, one per JVM)."""
        with self._singletons_lock:
            if key not in self._singletons:
                self._singletons[key] = factory()
            return self._singletons[key]

    def new_lock(self) -> threading.RLock:
        """A re-entrant lock (in a simulation there is one thread, so it never blocks)."""
        return threading.RLock()

    def __repr__(self) -> str:
        kind = "simulated" if self.simulated else "threaded"
        return f"Runtime({kind}, node={self.node!r}, ip={self.host.ip}, pid={self.host.pid})"

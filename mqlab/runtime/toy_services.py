"""Two tiny services that show how the runtimes drive ServiceThreads (used by the runtime spec and its tests).

Java: none (teaching helper). The pair imitates the shape of the store's group commit: a producer service appends
to a shared buffer and wakes a writer service, which drains the buffer to a file in batches.
"""

from __future__ import annotations

import threading
from pathlib import Path

from mqlab.common.service_thread import ServiceThread
from mqlab.runtime.runtime import Runtime


class JournalWriterService(ServiceThread):
    """Every ``interval_ms`` (or when woken) appends the buffered values to ``path``, one line each."""

    def __init__(self, runtime: Runtime, path: Path, interval_ms: int = 1000):
        super().__init__(runtime)
        self.path = path
        self.interval_ms = interval_ms
        self._buffer: list[int] = []
        self._lock = threading.Lock()
        self.written = 0

    def append(self, value: int) -> None:
        """Buffer one value for the next flush."""
        with self._lock:
            self._buffer.append(value)

    def wait_interval_ms(self) -> int:
        """The flush interval."""
        return self.interval_ms

    def run_once(self) -> int:
        """Write the buffered values; return how many."""
        with self._lock:
            batch, self._buffer = self._buffer, []
        if batch:
            with self.path.open("a", encoding="ascii") as out:
                out.writelines(f"{self.runtime.now_ms()} {value}\n" for value in batch)
            self.written += len(batch)
        self.runtime.trace_event("JournalWriterService", "flush", count=len(batch), total=self.written)
        return len(batch)

    def on_stopped(self) -> None:
        """Flush what is left when the loop ends."""
        self.run_once()

    def shutdown(self) -> None:
        """Stop, then flush the rest (the threaded loop also flushes in ``on_stopped``; a second flush is empty)."""
        super().shutdown()
        if self.runtime.simulated:
            self.run_once()


class TickerService(ServiceThread):
    """Every ``interval_ms`` draws a random value, hands it to the writer, and wakes the writer every ``batch``."""

    def __init__(self, runtime: Runtime, writer: JournalWriterService, interval_ms: int = 100, batch: int = 3):
        super().__init__(runtime)
        self.writer = writer
        self.interval_ms = interval_ms
        self.batch = batch
        self.ticks = 0

    def wait_interval_ms(self) -> int:
        """The tick interval."""
        return self.interval_ms

    def run_once(self) -> int:
        """One tick; returns the value drawn."""
        value = self.runtime.random.randint(1, 1000)
        self.ticks += 1
        self.writer.append(value)
        self.runtime.trace_event("TickerService", "tick", n=self.ticks, value=value)
        if self.ticks % self.batch == 0:
            self.writer.wakeup()
        return value

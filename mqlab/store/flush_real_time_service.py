"""ASYNC_FLUSH: flush the CommitLog every 500 ms once at least 4 pages are dirty, and fully every 10 s.

Java: org.apache.rocketmq.store.CommitLog$FlushRealTimeService (rocketmq-all-4.9.3)

Java decides whether a round is "thorough" (flush everything, ``leastPages = 0``) at the top of its loop, before it
sleeps; mqlab decides at the start of ``run_once``, right after the wait: the same rule one interval later.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.common.service_thread import ServiceThread

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.config.message_store_config import MessageStoreConfig
    from mqlab.store.mapped_file_queue import MappedFileQueue
    from mqlab.store.store_checkpoint import StoreCheckpoint

RETRY_TIMES_OVER = 10


class FlushRealTimeService(ServiceThread):
    """Periodic CommitLog flush (sleeps unconditionally when ``flushCommitLogTimed``)."""

    def __init__(
        self,
        runtime: Runtime,
        config: MessageStoreConfig,
        mapped_file_queue: MappedFileQueue,
        checkpoint: StoreCheckpoint,
    ):
        super().__init__(runtime)
        self.config = config
        self.mapped_file_queue = mapped_file_queue
        self.checkpoint = checkpoint
        self.last_flush_timestamp = 0

    @property
    def wakeup_interrupts_wait(self) -> bool:  # type: ignore[override]
        """With ``flushCommitLogTimed`` (the default) Java uses ``Thread.sleep``: wake-ups are ignored."""
        return not self.config.flush_commit_log_timed

    def wait_interval_ms(self) -> int:
        """``flushIntervalCommitLog`` (500 ms)."""
        return self.config.flush_interval_commit_log

    def run_once(self) -> int:
        """One flush round; returns the new flushed offset.

        Java: CommitLog$FlushRealTimeService#run (loop body)
        """
        least_pages = self.config.flush_commit_log_least_pages
        now = self.runtime.now_ms()
        if now >= self.last_flush_timestamp + self.config.flush_commit_log_thorough_interval:
            self.last_flush_timestamp = now
            least_pages = 0
        mfq = self.mapped_file_queue
        before = mfq.flushed_where
        mfq.flush(least_pages)
        if mfq.store_timestamp > 0:
            self.checkpoint.physic_msg_timestamp = mfq.store_timestamp
        if mfq.flushed_where != before:
            self.runtime.trace_event(
                "FlushRealTimeService", "flush", leastPages=least_pages, flushedWhere=mfq.flushed_where
            )
        return mfq.flushed_where

    def flush_all(self) -> None:
        """Flush until nothing moves (at most 10 rounds), as Java does when the service stops."""
        for _ in range(RETRY_TIMES_OVER):
            if self.mapped_file_queue.flush(0):
                break

    def on_stopped(self) -> None:
        """Final flush on the service's thread."""
        self.flush_all()

    def get_service_name(self) -> str:
        """Thread name. Java: CommitLog$FlushRealTimeService#getServiceName."""
        return "FlushRealTimeService"

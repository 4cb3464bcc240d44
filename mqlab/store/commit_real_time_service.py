"""With TransientStorePool: copy appended bytes from the write buffer into the file every 200 ms.

Java: org.apache.rocketmq.store.CommitLog$CommitRealTimeService (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.common.service_thread import ServiceThread

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.config.message_store_config import MessageStoreConfig
    from mqlab.store.mapped_file_queue import MappedFileQueue

RETRY_TIMES_OVER = 10


class CommitRealTimeService(ServiceThread):
    """Commits at least 4 pages per round (everything every 200 ms) and wakes the flusher when data moved."""

    def __init__(
        self,
        runtime: Runtime,
        config: MessageStoreConfig,
        mapped_file_queue: MappedFileQueue,
        flush_service: ServiceThread,
    ):
        super().__init__(runtime)
        self.config = config
        self.mapped_file_queue = mapped_file_queue
        self.flush_service = flush_service
        self.last_commit_timestamp = 0

    def wait_interval_ms(self) -> int:
        """``commitIntervalCommitLog`` (200 ms)."""
        return self.config.commit_interval_commit_log

    def run_once(self) -> int:
        """One commit round; returns the committed offset.

        Java: CommitLog$CommitRealTimeService#run (loop body)
        """
        least_pages = self.config.commit_commit_log_least_pages
        begin = self.runtime.now_ms()
        if begin >= self.last_commit_timestamp + self.config.commit_commit_log_thorough_interval:
            self.last_commit_timestamp = begin
            least_pages = 0
        nothing_moved = self.mapped_file_queue.commit(least_pages)
        if not nothing_moved:
            self.last_commit_timestamp = self.runtime.now_ms()
            self.flush_service.wakeup()  # the new bytes are in the file now: let the flusher force them
        return self.mapped_file_queue.committed_where

    def on_stopped(self) -> None:
        """Commit everything before the thread ends."""
        for _ in range(RETRY_TIMES_OVER):
            if self.mapped_file_queue.commit(0):
                break

    def get_service_name(self) -> str:
        """Thread name. Java: CommitLog$CommitRealTimeService#getServiceName."""
        return "CommitRealTimeService"

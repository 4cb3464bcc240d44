"""Flushes every ConsumeQueue each second (2 dirty pages at least), fully each minute, plus the checkpoint.

Java: org.apache.rocketmq.store.DefaultMessageStore$FlushConsumeQueueService (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from mqlab.common.service_thread import ServiceThread

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.config.message_store_config import MessageStoreConfig
    from mqlab.store.consume_queue import ConsumeQueue
    from mqlab.store.store_checkpoint import StoreCheckpoint

RETRY_TIMES_OVER = 3


class FlushConsumeQueueService(ServiceThread):
    """Periodic ConsumeQueue flush; a thorough round also flushes the checkpoint."""

    def __init__(
        self,
        runtime: Runtime,
        config: MessageStoreConfig,
        consume_queues: Callable[[], Iterable[ConsumeQueue]],
        checkpoint: StoreCheckpoint,
    ):
        super().__init__(runtime)
        self.config = config
        self.consume_queues = consume_queues
        self.checkpoint = checkpoint
        self.last_flush_timestamp = 0

    def wait_interval_ms(self) -> int:
        """``flushIntervalConsumeQueue`` (1000 ms)."""
        return self.config.flush_interval_consume_queue

    def run_once(self, retry_times: int = 1) -> int:
        """One flush round; returns how many queues were flushed.

        Java: DefaultMessageStore$FlushConsumeQueueService#doFlush
        """
        least_pages = self.config.flush_consume_queue_least_pages
        if retry_times == RETRY_TIMES_OVER:
            least_pages = 0
        logics_msg_timestamp = 0
        now = self.runtime.now_ms()
        if now >= self.last_flush_timestamp + self.config.flush_consume_queue_thorough_interval:
            self.last_flush_timestamp = now
            least_pages = 0
            logics_msg_timestamp = self.checkpoint.logics_msg_timestamp
        count = 0
        for queue in self.consume_queues():
            # Java stops a queue's retries once a flush moves nothing; each flush covers one file only. mqlab keeps
            # going while files remain: with small files a burst fills several per round, and a thorough round must
            # cover everything dispatched before the logics timestamp it is about to persist.
            for _ in range(retry_times + len(queue.mapped_file_queue.mapped_files)):
                if queue.flush(least_pages):
                    break
            count += 1
        if least_pages == 0:
            if logics_msg_timestamp > 0:
                self.checkpoint.logics_msg_timestamp = logics_msg_timestamp
            self.checkpoint.flush()
        return count

    def on_stopped(self) -> None:
        """Flush everything before the thread ends."""
        self.run_once(RETRY_TIMES_OVER)

    def get_service_name(self) -> str:
        """Thread name. Java: FlushConsumeQueueService#getServiceName."""
        return "FlushConsumeQueueService"

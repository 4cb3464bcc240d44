"""After CommitLog segments are deleted, drops the ConsumeQueue (and index) files that only pointed into them.

Java: org.apache.rocketmq.store.DefaultMessageStore$CleanConsumeQueueService (rocketmq-all-4.9.3), an inner class
promoted to its own module. The store's clean task calls ``run`` right after ``CleanCommitLogService#run``
(``DefaultMessageStore#cleanFilesPeriodically``).

The CommitLog's min offset is the only input: nothing happens until it grows. Then every ConsumeQueue drops its
leading files whose last unit points below it and moves its min logical offset to the first unit that still points
into the CommitLog, which is what a lagging consumer then sees as ``OFFSET_TOO_SMALL`` with
``nextBeginOffset`` = that new min. Last, the index service drops its index files that end below the same offset.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.commit_log import CommitLog
    from mqlab.store.config.message_store_config import MessageStoreConfig
    from mqlab.store.consume_queue import ConsumeQueue


@dataclass(slots=True, frozen=True)
class CleanConsumeQueuePass:
    """What one pass of the ConsumeQueue cleaner did.

    Java: none (teaching helper).

    Attributes:
        min_offset: the CommitLog min offset the pass looked at.
        ran: whether it had grown since the previous pass (otherwise nothing was done).
        deleted: ConsumeQueue files deleted, over all queues.
    """

    min_offset: int
    ran: bool = False
    deleted: int = 0


class CleanConsumeQueueService:
    """Deletes ConsumeQueue and index files made useless by CommitLog deletion.

    Args:
        config: ``deleteConsumeQueueFilesInterval``.
        runtime: sleeps between queues, trace.
        commit_log: whose min offset drives the cleaning.
        consume_queues: every ConsumeQueue of the store, at call time.
        index_service: returns the store's index service, or ``None`` when the store has none (it must offer
            ``delete_expired_file(offset)``).
    """

    def __init__(
        self,
        config: MessageStoreConfig,
        runtime: Runtime,
        commit_log: CommitLog,
        consume_queues: Callable[[], Iterable[ConsumeQueue]],
        index_service: Callable[[], Any] = lambda: None,
    ):
        self.config = config
        self.runtime = runtime
        self.commit_log = commit_log
        self.consume_queues = consume_queues
        self.index_service = index_service
        self.last_physical_min_offset = 0

    def run(self) -> CleanConsumeQueuePass | None:
        """One scheduled pass (``None`` if it failed; the failure is traced and swallowed, as Java logs it).

        Java: CleanConsumeQueueService#run
        """
        try:
            return self.delete_expired_files()
        except Exception as exc:  # Java catches Throwable so the scheduled task is not cancelled
            self.runtime.trace_event("CleanConsumeQueueService", "exception", error=repr(exc))
            return None

    def delete_expired_files(self) -> CleanConsumeQueuePass:
        """If the CommitLog min offset grew, clean every ConsumeQueue, then the index files, by that offset.

        Java: CleanConsumeQueueService#deleteExpiredFiles
        """
        interval = self.config.delete_consume_queue_files_interval
        min_offset = self.commit_log.get_min_offset()
        if min_offset <= self.last_physical_min_offset:
            return CleanConsumeQueuePass(min_offset)
        self.last_physical_min_offset = min_offset
        deleted = 0
        for queue in list(self.consume_queues()):
            count = queue.delete_expired_file(min_offset)
            deleted += count
            if count > 0 and interval > 0:
                self.runtime.scheduler.sleep(interval)  # Java: Thread.sleep, to spread the disk work
        index_service = self.index_service()
        if index_service is not None:
            index_service.delete_expired_file(min_offset)
        self.runtime.trace_event(
            "CleanConsumeQueueService", "deleteExpiredFiles", minOffset=min_offset, deleted=deleted
        )
        return CleanConsumeQueuePass(min_offset, True, deleted)

"""SYNC_FLUSH: sends wait until a flush covers their record; one flush serves every waiting send.

Java: org.apache.rocketmq.store.CommitLog$GroupCommitService (rocketmq-all-4.9.3)

Requests go to a write list; when a wait ends the lists swap (``on_wait_end``), and ``run_once`` (Java's
``doCommit``) flushes up to twice per request until ``flushed_where`` reaches the request's next offset, then
completes it with PUT_OK or FLUSH_DISK_TIMEOUT.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from mqlab.common.service_thread import ServiceThread
from mqlab.store.put_message_status import PutMessageStatus

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.group_commit_request import GroupCommitRequest
    from mqlab.store.mapped_file_queue import MappedFileQueue
    from mqlab.store.store_checkpoint import StoreCheckpoint


class GroupCommitService(ServiceThread):
    """Flushes for waiting sends every 10 ms, or at once when a send arrives."""

    def __init__(self, runtime: Runtime, mapped_file_queue: MappedFileQueue, checkpoint: StoreCheckpoint):
        super().__init__(runtime)
        self.mapped_file_queue = mapped_file_queue
        self.checkpoint = checkpoint
        self.requests_write: list[GroupCommitRequest] = []
        self.requests_read: list[GroupCommitRequest] = []
        self._lock = threading.Lock()

    def put_request(self, request: GroupCommitRequest) -> None:
        """Queue a waiting send and wake the service.

        Java: CommitLog$GroupCommitService#putRequest
        """
        with self._lock:
            self.requests_write.append(request)
        self.wakeup()

    def wait_interval_ms(self) -> int:
        """10 ms, as Java's ``waitForRunning(10)``."""
        return 10

    def on_wait_end(self) -> None:
        """Swap the write and read lists. Java: CommitLog$GroupCommitService#onWaitEnd → swapRequests."""
        with self._lock:
            self.requests_write, self.requests_read = self.requests_read, self.requests_write

    def run_once(self) -> int:
        """Flush for every request read; returns how many requests were completed.

        Java: CommitLog$GroupCommitService#doCommit
        """
        requests = self.requests_read
        if not requests:
            self.mapped_file_queue.flush(0)  # no waiting send: still flush what a WAIT=false send left
            return 0
        mfq = self.mapped_file_queue
        for request in requests:
            flush_ok = mfq.flushed_where >= request.next_offset
            for _ in range(2):
                if flush_ok:
                    break
                mfq.flush(0)
                flush_ok = mfq.flushed_where >= request.next_offset
            request.wakeup_customer(PutMessageStatus.PUT_OK if flush_ok else PutMessageStatus.FLUSH_DISK_TIMEOUT)
        if mfq.store_timestamp > 0:
            self.checkpoint.physic_msg_timestamp = mfq.store_timestamp
        self.requests_read = []
        self.runtime.trace_event(
            "GroupCommitService", "doCommit", requests=len(requests), flushedWhere=mfq.flushed_where
        )
        return len(requests)

    def on_stopped(self) -> None:
        """Serve what is still queued before the thread ends (Java: the tail of ``run``)."""
        self.on_wait_end()
        self.run_once()

    def get_service_name(self) -> str:
        """Thread name. Java: CommitLog$GroupCommitService#getServiceName."""
        return "GroupCommitService"

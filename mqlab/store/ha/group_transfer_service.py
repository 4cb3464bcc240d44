"""SYNC_MASTER: sends wait until a slave has acknowledged the CommitLog up to their record's end.

Java: org.apache.rocketmq.store.ha.HAService$GroupTransferService (rocketmq-all-4.9.3)

Java's ``doWaitTransfer`` blocks on each request in turn (up to 1 s per wait, woken by every slave ack) until
``push2SlaveMaxOffset`` reaches its next offset or its deadline passes. mqlab keeps the same order without blocking
the loop: each round completes requests from the front while they are satisfied or expired and keeps the first one
still waiting, with everything behind it, for the next round. A request is therefore answered no earlier and in the
same order as in Java, and the simulator never has to run a nested wait.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from mqlab.common.service_thread import ServiceThread
from mqlab.store.put_message_status import PutMessageStatus

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.group_commit_request import GroupCommitRequest


class GroupTransferService(ServiceThread):
    """Answers waiting SYNC_MASTER puts every 10 ms, or at once when a put or a slave ack arrives.

    Args:
        runtime: clock, scheduler and trace.
        push2_slave_max_offset: the highest offset any slave has acknowledged (``HAService``'s one counter).
    """

    def __init__(self, runtime: Runtime, push2_slave_max_offset: Callable[[], int]):
        super().__init__(runtime)
        self.push2_slave_max_offset = push2_slave_max_offset
        self.requests_write: list[GroupCommitRequest] = []
        self.requests_read: list[GroupCommitRequest] = []
        self._lock = threading.Lock()

    def put_request(self, request: GroupCommitRequest) -> None:
        """Queue a waiting put and wake the service. Java: HAService$GroupTransferService#putRequest."""
        with self._lock:
            self.requests_write.append(request)
        self.wakeup()

    def notify_transfer_some(self) -> None:
        """A slave acknowledged more: look at the waiting puts now. Java: GroupTransferService#notifyTransferSome."""
        self.wakeup()

    def wait_interval_ms(self) -> int:
        """10 ms, as Java's ``waitForRunning(10)``."""
        return 10

    def on_wait_end(self) -> None:
        """Move the newly queued puts behind those still waiting. Java: GroupTransferService#swapRequests."""
        with self._lock:
            if self.requests_write:
                self.requests_read.extend(self.requests_write)
                self.requests_write = []

    def run_once(self) -> int:
        """Answer the waiting puts from the front; returns how many were answered.

        Java: HAService$GroupTransferService#doWaitTransfer
        """
        acked = self.push2_slave_max_offset()
        now = self.runtime.now_ms()
        answered = 0
        requests = self.requests_read
        while requests:
            request = requests[0]
            if acked >= request.next_offset:
                request.wakeup_customer(PutMessageStatus.PUT_OK)
            elif now >= request.dead_line:
                self.runtime.trace_event(
                    "GroupTransferService", "transferTimeout", nextOffset=request.next_offset, acked=acked
                )
                request.wakeup_customer(PutMessageStatus.FLUSH_SLAVE_TIMEOUT)
            else:
                break  # Java blocks on this request; the ones behind it wait too
            requests.pop(0)
            answered += 1
        if answered:
            self.runtime.trace_event("GroupTransferService", "doWaitTransfer", answered=answered, acked=acked)
        return answered

    def on_stopped(self) -> None:
        """Answer what is still queued as Java's last round would once its deadlines pass."""
        self.on_wait_end()
        for request in self.requests_read:
            ok = self.push2_slave_max_offset() >= request.next_offset
            request.wakeup_customer(PutMessageStatus.PUT_OK if ok else PutMessageStatus.FLUSH_SLAVE_TIMEOUT)
        self.requests_read = []

    def get_service_name(self) -> str:
        """Thread name. Java: GroupTransferService#getServiceName."""
        return "GroupTransferService"

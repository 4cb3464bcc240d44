"""Completes a synchronous-flush request with FLUSH_DISK_TIMEOUT when its deadline passes first.

Java: org.apache.rocketmq.store.FlushDiskWatcher (rocketmq-all-4.9.3, new in 4.9.3). Java runs a thread that waits on
each request in turn; mqlab arms one timer per request on the runtime's scheduler, which behaves the same and is
deterministic in a simulation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.store.put_message_status import PutMessageStatus

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.group_commit_request import GroupCommitRequest


class FlushDiskWatcher:
    """Watches pending group-commit requests."""

    def __init__(self, runtime: Runtime):
        self.runtime = runtime
        self.pending = 0

    def add(self, request: GroupCommitRequest) -> None:
        """Time ``request`` out at its deadline unless it completes before.

        Java: FlushDiskWatcher#add
        """
        self.pending += 1

        def expire() -> None:
            if not request.future().done():
                self.runtime.trace_event("FlushDiskWatcher", "timeout", nextOffset=request.next_offset)
                request.wakeup_customer(PutMessageStatus.FLUSH_DISK_TIMEOUT)

        def done(_future) -> None:
            self.pending -= 1

        request.future().add_done_callback(done)
        self.runtime.scheduler.call_later(
            max(0, request.dead_line - self.runtime.now_ms()), expire, name="FlushDiskWatcher"
        )

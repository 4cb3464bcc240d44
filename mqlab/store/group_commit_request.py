"""A send waiting for the CommitLog to be flushed up to its record's end.

Java: org.apache.rocketmq.store.CommitLog$GroupCommitRequest (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import Any

from mqlab.store.put_message_status import PutMessageStatus


class GroupCommitRequest:
    """``next_offset`` must be flushed before ``dead_line`` (epoch ms); the future gets the outcome."""

    def __init__(self, next_offset: int, dead_line: int, future: Any):
        self.next_offset = next_offset
        self.dead_line = dead_line
        self.flush_ok_future = future

    def wakeup_customer(self, status: PutMessageStatus) -> None:
        """Complete the waiting send (later completions are ignored).

        Java: CommitLog$GroupCommitRequest#wakeupCustomer
        """
        self.flush_ok_future.set_result(status)

    def future(self) -> Any:
        """The future the send waits on. Java: CommitLog$GroupCommitRequest#future."""
        return self.flush_ok_future

"""The outcome of one pull: the status, where to pull next, the queue's bounds, and the messages found.

``next_begin_offset`` is what the pull loop continues from (it can jump past filtered messages or be corrected by
the broker); ``min_offset`` / ``max_offset`` are the queue's logical bounds at the time of the pull.

Java: org.apache.rocketmq.client.consumer.PullResult (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.client.consumer.pull_status import PullStatus
from mqlab.common.message.message_ext import MessageExt


@dataclass(slots=True)
class PullResult:
    """Java's five fields; only ``msg_found_list`` is replaced after construction (by the client's filtering)."""

    pull_status: PullStatus
    next_begin_offset: int
    min_offset: int
    max_offset: int
    msg_found_list: list[MessageExt] | None = None

    def __str__(self) -> str:
        found = 0 if self.msg_found_list is None else len(self.msg_found_list)
        return (
            f"PullResult [pullStatus={self.pull_status.name}, nextBeginOffset={self.next_begin_offset}, "
            f"minOffset={self.min_offset}, maxOffset={self.max_offset}, msgFoundList={found}]"
        )

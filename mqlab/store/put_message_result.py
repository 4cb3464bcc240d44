"""A put's status plus the append details.

Java: org.apache.rocketmq.store.PutMessageResult (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.store.append_message_result import AppendMessageResult
from mqlab.store.put_message_status import PutMessageStatus

_STORED = {
    PutMessageStatus.PUT_OK,
    PutMessageStatus.FLUSH_DISK_TIMEOUT,
    PutMessageStatus.FLUSH_SLAVE_TIMEOUT,
    PutMessageStatus.SLAVE_NOT_AVAILABLE,
}


@dataclass(slots=True)
class PutMessageResult:
    """``put_message_status`` and, when something was appended, ``append_message_result``."""

    put_message_status: PutMessageStatus
    append_message_result: AppendMessageResult | None = None

    def is_ok(self) -> bool:
        """Whether the message is in the CommitLog (the flush or replica may still have timed out).

        Java: PutMessageResult#isOk
        """
        return (
            self.append_message_result is not None
            and self.append_message_result.is_ok()
            and self.put_message_status in _STORED
        )

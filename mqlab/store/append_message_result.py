"""What ``doAppend`` reports: where the record went, how long it is, its queue offset and message id.

Java: org.apache.rocketmq.store.AppendMessageResult (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mqlab.store.append_message_status import AppendMessageStatus


@dataclass(slots=True)
class AppendMessageResult:
    """Result of one append; ``msg_id`` is computed on demand, as Java's supplier does."""

    status: AppendMessageStatus
    wrote_offset: int = 0
    wrote_bytes: int = 0
    msg_id_supplier: Callable[[], str] | None = field(default=None, repr=False)
    store_timestamp: int = 0
    logics_offset: int = 0
    page_cache_rt: int = 0
    msg_num: int = 1

    @property
    def msg_id(self) -> str | None:
        """The offset message id(s) (comma-joined for a batch).

        Java: AppendMessageResult#getMsgId
        """
        return self.msg_id_supplier() if self.msg_id_supplier is not None else None

    def is_ok(self) -> bool:
        """Whether the record was written.

        Java: AppendMessageResult#isOk
        """
        return self.status is AppendMessageStatus.PUT_OK

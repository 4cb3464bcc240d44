"""What reput learns about one CommitLog record: enough to build its ConsumeQueue unit and index entries.

Java: org.apache.rocketmq.store.DispatchRequest (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class DispatchRequest:
    """A checked record (``success``) or the verdict on bytes that are not one.

    ``msg_size`` follows ``CommitLog#checkMessageAndReturnSize``: > 0 a record of that size; 0 the blank record at
    a file's end (success); -1 unreadable (failure). ``reason`` says what was wrong (mqlab's addition).
    """

    msg_size: int
    success: bool
    topic: str = ""
    queue_id: int = 0
    commit_log_offset: int = 0
    tags_code: int = 0
    store_timestamp: int = 0
    consume_queue_offset: int = 0
    keys: str | None = None
    uniq_key: str | None = None
    sys_flag: int = 0
    prepared_transaction_offset: int = 0
    properties_map: dict[str, str] | None = field(default=None, repr=False)
    buffer_size: int = -1
    bit_map: bytes | None = None
    reason: str = ""

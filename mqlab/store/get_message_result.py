"""What ``get_message`` returns: the raw records found, the status and the offsets for the next pull.

Java: org.apache.rocketmq.store.GetMessageResult (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.store.get_message_status import GetMessageStatus
from mqlab.store.select_mapped_buffer_result import SelectMappedBufferResult


@dataclass(slots=True)
class GetMessageResult:
    """Records (as stored, one buffer each), their queue offsets, status and next/min/max offsets."""

    status: GetMessageStatus | None = None
    next_begin_offset: int = 0
    min_offset: int = 0
    max_offset: int = 0
    message_mapped_list: list[SelectMappedBufferResult] = field(default_factory=list)
    message_queue_offset: list[int] = field(default_factory=list)
    buffer_total_size: int = 0
    suggest_pulling_from_slave: bool = False
    msg_count4_commercial: int = 0

    def add_message(self, buffer: SelectMappedBufferResult, queue_offset: int) -> None:
        """Append one found record.

        Java: GetMessageResult#addMessage
        """
        self.message_mapped_list.append(buffer)
        self.message_queue_offset.append(queue_offset)
        self.buffer_total_size += buffer.size

    @property
    def message_count(self) -> int:
        """Number of records found. Java: GetMessageResult#getMessageCount."""
        return len(self.message_mapped_list)

    def message_bytes(self) -> bytes:
        """All records concatenated: the body of a PULL_MESSAGE response."""
        return b"".join(b.data for b in self.message_mapped_list)

    def release(self) -> None:
        """Nothing to release (the buffers are copies). Java: GetMessageResult#release."""

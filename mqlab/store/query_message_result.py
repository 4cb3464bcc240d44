"""What ``query_message`` returns: the raw records found through the index, and how far the index had got.

Java: org.apache.rocketmq.store.QueryMessageResult (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.store.select_mapped_buffer_result import SelectMappedBufferResult


@dataclass(slots=True)
class QueryMessageResult:
    """Records (as stored, one buffer each, ascending CommitLog offset) and the index's last update.

    The records matched the key's *hash* only; the broker sends them as they are and the reader compares keys
    (``mqlab.store.index.key_check``).
    """

    message_mapped_list: list[SelectMappedBufferResult] = field(default_factory=list)
    index_last_update_timestamp: int = 0
    index_last_update_phyoffset: int = 0
    buffer_total_size: int = 0

    def add_message(self, buffer: SelectMappedBufferResult) -> None:
        """Append one record. Java: QueryMessageResult#addMessage."""
        self.message_mapped_list.append(buffer)
        self.buffer_total_size += buffer.size

    @property
    def message_count(self) -> int:
        """Number of records found."""
        return len(self.message_mapped_list)

    @property
    def message_buffer_list(self) -> list[bytes]:
        """Each record's bytes. Java: QueryMessageResult#getMessageBufferList."""
        return [b.data for b in self.message_mapped_list]

    def message_bytes(self) -> bytes:
        """All records concatenated: the body of a QUERY_MESSAGE response."""
        return b"".join(b.data for b in self.message_mapped_list)

    def release(self) -> None:
        """Nothing to release (the buffers are copies). Java: QueryMessageResult#release."""

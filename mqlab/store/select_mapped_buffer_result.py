"""A copy of some bytes read from a mapped file, with the absolute offset they start at.

Java: org.apache.rocketmq.store.SelectMappedBufferResult (rocketmq-all-4.9.3). Java hands out a slice of the mapped
buffer and a reference that must be released; mqlab copies the bytes out under a hold, so nothing needs releasing.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class SelectMappedBufferResult:
    """``data`` starts at absolute offset ``start_offset`` (CommitLog or ConsumeQueue bytes)."""

    start_offset: int
    data: bytes

    @property
    def size(self) -> int:
        """Number of bytes."""
        return len(self.data)

    def release(self) -> None:
        """Nothing to release: the bytes are a copy (kept so call chains read like Java's)."""

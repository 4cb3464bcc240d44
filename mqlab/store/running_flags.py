"""Bits recording what the store may still do (write, read, write ConsumeQueues, ...) and why not.

Java: org.apache.rocketmq.store.RunningFlags (rocketmq-all-4.9.3)
"""

from __future__ import annotations

NOT_READABLE_BIT = 1
NOT_WRITEABLE_BIT = 1 << 1
WRITE_LOGICS_QUEUE_ERROR_BIT = 1 << 2
WRITE_INDEX_FILE_ERROR_BIT = 1 << 3
DISK_FULL_BIT = 1 << 4


class RunningFlags:
    """The store's health as a bit set; any write-blocking bit makes puts answer SERVICE_NOT_AVAILABLE."""

    def __init__(self) -> None:
        self.flag_bits = 0

    def is_readable(self) -> bool:
        """No NOT_READABLE bit. Java: RunningFlags#isReadable."""
        return not self.flag_bits & NOT_READABLE_BIT

    def make_readable(self, readable: bool) -> None:
        """Set or clear NOT_READABLE."""
        self._set(NOT_READABLE_BIT, not readable)

    def is_writeable(self) -> bool:
        """No bit that blocks writes. Java: RunningFlags#isWriteable."""
        blocking = NOT_WRITEABLE_BIT | WRITE_LOGICS_QUEUE_ERROR_BIT | DISK_FULL_BIT | WRITE_INDEX_FILE_ERROR_BIT
        return not self.flag_bits & blocking

    def is_cq_writeable(self) -> bool:
        """ConsumeQueues may be written. Java: RunningFlags#isCQWriteable."""
        return not self.flag_bits & (NOT_WRITEABLE_BIT | WRITE_LOGICS_QUEUE_ERROR_BIT | WRITE_INDEX_FILE_ERROR_BIT)

    def make_logics_queue_error(self) -> None:
        """A ConsumeQueue write failed for good. Java: RunningFlags#makeLogicsQueueError."""
        self._set(WRITE_LOGICS_QUEUE_ERROR_BIT, True)

    def make_index_file_error(self) -> None:
        """An index write failed for good. Java: RunningFlags#makeIndexFileError."""
        self._set(WRITE_INDEX_FILE_ERROR_BIT, True)

    def get_and_make_disk_full(self) -> bool:
        """Mark the disk full; return whether it was OK until now. Java: RunningFlags#getAndMakeDiskFull."""
        was_ok = not self.flag_bits & DISK_FULL_BIT
        self._set(DISK_FULL_BIT, True)
        return was_ok

    def get_and_make_disk_ok(self) -> bool:
        """Clear the disk-full bit; return whether the disk was OK before. Java: RunningFlags#getAndMakeDiskOK."""
        was_ok = not self.flag_bits & DISK_FULL_BIT
        self._set(DISK_FULL_BIT, False)
        return was_ok

    def _set(self, bit: int, on: bool) -> None:
        self.flag_bits = self.flag_bits | bit if on else self.flag_bits & ~bit

"""The checkpoint file: store timestamps of the last flushed CommitLog, ConsumeQueue and index data.

Java: org.apache.rocketmq.store.StoreCheckpoint (rocketmq-all-4.9.3)

Layout (4096 bytes, memory-mapped): offset 0 ``physicMsgTimestamp`` (long), 8 ``logicsMsgTimestamp`` (long),
16 ``indexMsgTimestamp`` (long); the rest is zero. Abnormal recovery starts from the last CommitLog file whose
first message is older than ``get_min_timestamp``.
"""

from __future__ import annotations

import mmap
import os
import struct
from pathlib import Path

from mqlab.store.mapped_file import OS_PAGE_SIZE
from mqlab.store.store_errors import MappedFileCreateError

_LAYOUT = struct.Struct(">qqq")


class StoreCheckpoint:
    """Three timestamps, kept in a small mapped file and written to disk by ``flush``."""

    def __init__(self, scp_path: str | Path):
        self.path = Path(scp_path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existed = self.path.exists()
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            # Blocks first, then the mapping: a sparse page written on a full disk is a SIGBUS (HARD-3).
            os.posix_fallocate(self._fd, 0, OS_PAGE_SIZE)
        except OSError as exc:
            os.close(self._fd)
            self._fd = -1
            if not existed:
                self.path.unlink(missing_ok=True)
            raise MappedFileCreateError(f"cannot reserve the checkpoint file {self.path}: {exc}") from exc
        self._map = mmap.mmap(self._fd, OS_PAGE_SIZE)
        self.physic_msg_timestamp = 0
        self.logics_msg_timestamp = 0
        self.index_msg_timestamp = 0
        if existed:
            self.physic_msg_timestamp, self.logics_msg_timestamp, self.index_msg_timestamp = _LAYOUT.unpack_from(
                self._map, 0
            )

    def flush(self) -> None:
        """Write the three timestamps and force them to disk.

        Java: StoreCheckpoint#flush
        """
        _LAYOUT.pack_into(self._map, 0, self.physic_msg_timestamp, self.logics_msg_timestamp, self.index_msg_timestamp)
        self._map.flush()

    def shutdown(self) -> None:
        """Flush and unmap.

        Java: StoreCheckpoint#shutdown
        """
        if self._fd < 0:
            return
        self.flush()
        self._map.close()
        os.close(self._fd)
        self._fd = -1

    def get_min_timestamp(self) -> int:
        """``max(0, min(physic, logics) - 3000)``: the safe point abnormal recovery starts from.

        Java: StoreCheckpoint#getMinTimestamp
        """
        return max(0, min(self.physic_msg_timestamp, self.logics_msg_timestamp) - 3000)

    def get_min_timestamp_index(self) -> int:
        """``get_min_timestamp``, bounded by the index timestamp.

        Java: StoreCheckpoint#getMinTimestampIndex
        """
        return min(self.get_min_timestamp(), self.index_msg_timestamp)

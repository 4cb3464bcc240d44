"""An ordered list of equal-size segment files that together form one logical, append-only space.

Java: org.apache.rocketmq.store.MappedFileQueue (rocketmq-all-4.9.3)

Segment ``i`` starts at ``first_offset + i * mapped_file_size`` and is named by that offset. The queue tracks
``flushed_where`` and ``committed_where`` (absolute offsets) and finds the segment holding any offset by arithmetic.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mqlab.common.util_all import offset2file_name
from mqlab.store.mapped_file import MappedFile
from mqlab.store.store_errors import MappedFileCreateError, StoreLoadError

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.transient_store_pool import TransientStorePool

DELETE_FILES_BATCH_MAX = 10
# A ConsumeQueue unit starts with the CommitLog offset it points at (big-endian long).
_LONG = struct.Struct(">q")


class MappedFileQueue:
    """Segments of one directory (the CommitLog's, or one ConsumeQueue's).

    Args:
        store_path: directory of the segment files.
        mapped_file_size: size of every segment.
        runtime: clock and trace for the segments.
        transient_store_pool_provider: returns the pool new segments should borrow a write buffer from (or None).
    """

    def __init__(
        self,
        store_path: str | Path,
        mapped_file_size: int,
        *,
        runtime: Runtime,
        transient_store_pool_provider: Callable[[], TransientStorePool | None] | None = None,
    ):
        self.store_path = Path(store_path)
        self.mapped_file_size = mapped_file_size
        self.runtime = runtime
        self._pool_provider = transient_store_pool_provider
        self.mapped_files: list[MappedFile] = []
        self.flushed_where = 0
        self.committed_where = 0
        self.store_timestamp = 0
        self._lock = threading.RLock()

    # -- loading and creating ------------------------------------------------------------------------------------
    def load(self) -> None:
        """Map every segment of the directory, in name order, each considered full until recovery says otherwise.

        Java: MappedFileQueue#load / #doLoad

        Raises:
            StoreLoadError: a file is not named by an offset, or its size differs from the configured segment size
                (Java refuses to start in that case too; the message names the file and both sizes).
        """
        if not self.store_path.is_dir():
            return
        files = sorted(p for p in self.store_path.iterdir() if p.is_file())
        for path in files:
            if not path.name.isdigit():
                raise StoreLoadError(f"{path} is not a segment (its name is not a 20-digit offset)")
            size = path.stat().st_size
            if size != self.mapped_file_size:
                raise StoreLoadError(
                    f"{path} is {size} bytes but segments here are {self.mapped_file_size} bytes "
                    "(mappedFileSize mismatch or a truncated file)"
                )
            mapped_file = MappedFile(path, self.mapped_file_size, runtime=self.runtime)
            mapped_file.wrote_position = self.mapped_file_size
            mapped_file.flushed_position = self.mapped_file_size
            mapped_file.committed_position = self.mapped_file_size
            self.mapped_files.append(mapped_file)

    def get_last_mapped_file(self, start_offset: int = 0, *, need_create: bool = False) -> MappedFile | None:
        """The last segment; with ``need_create``, a new one when there is none or the last is full.

        Java: MappedFileQueue#getLastMappedFile(long, boolean) and #getLastMappedFile()
        """
        last = self.mapped_files[-1] if self.mapped_files else None
        create_offset = -1
        if last is None:
            create_offset = start_offset - start_offset % self.mapped_file_size
        elif last.wrote_position == last.file_size:  # MappedFile#isFull, inlined: once per put and per unit
            create_offset = last.file_from_offset + self.mapped_file_size
        if create_offset != -1 and need_create:
            return self.try_create_mapped_file(create_offset)
        return last

    def try_create_mapped_file(self, create_offset: int) -> MappedFile | None:
        """Create the segment starting at ``create_offset`` (``None`` if the disk refuses).

        Java: MappedFileQueue#tryCreateMappedFile / #doCreateMappedFile
        """
        path = self.store_path / offset2file_name(create_offset)
        pool = self._pool_provider() if self._pool_provider is not None else None
        try:
            mapped_file = MappedFile(path, self.mapped_file_size, runtime=self.runtime, transient_store_pool=pool)
        except MappedFileCreateError as exc:
            self.runtime.trace_event("MappedFileQueue", "createFailed", file=path.name, error=str(exc))
            return None
        with self._lock:
            if not self.mapped_files:
                mapped_file.first_create_in_queue = True
            self.mapped_files.append(mapped_file)
        self.runtime.trace_event("MappedFileQueue", "createMappedFile", dir=self.store_path.name, file=path.name)
        return mapped_file

    def get_first_mapped_file(self) -> MappedFile | None:
        """The oldest segment.

        Java: MappedFileQueue#getFirstMappedFile
        """
        return self.mapped_files[0] if self.mapped_files else None

    def find_mapped_file_by_offset(self, offset: int, return_first_on_not_found: bool = False) -> MappedFile | None:
        """The segment containing absolute ``offset``.

        Java: MappedFileQueue#findMappedFileByOffset
        """
        files = self.mapped_files
        if not files:
            return None
        first, last = files[0], files[-1]
        size = self.mapped_file_size
        if first.file_from_offset <= offset < last.file_from_offset + size:
            index = offset // size - first.file_from_offset // size
            if 0 <= index < len(files):
                candidate = files[index]
                if candidate.file_from_offset <= offset < candidate.file_from_offset + size:
                    return candidate
            for candidate in files:  # a gap left by deleted files: fall back to a scan, as Java does
                if candidate.file_from_offset <= offset < candidate.file_from_offset + size:
                    return candidate
        return first if return_first_on_not_found else None

    # -- offsets -------------------------------------------------------------------------------------------------
    def get_min_offset(self) -> int:
        """Start offset of the first segment, or -1 when there is none.

        Java: MappedFileQueue#getMinOffset
        """
        return self.mapped_files[0].file_from_offset if self.mapped_files else -1

    def get_max_offset(self) -> int:
        """End of the readable data.

        Java: MappedFileQueue#getMaxOffset
        """
        last = self.get_last_mapped_file()
        return last.file_from_offset + last.get_read_position() if last is not None else 0

    def get_max_wrote_position(self) -> int:
        """End of the appended data.

        Java: MappedFileQueue#getMaxWrotePosition
        """
        last = self.get_last_mapped_file()
        return last.file_from_offset + last.wrote_position if last is not None else 0

    def remain_how_many_data_to_commit(self) -> int:
        """Appended but not yet committed bytes. Java: MappedFileQueue#remainHowManyDataToCommit."""
        return self.get_max_wrote_position() - self.committed_where

    def remain_how_many_data_to_flush(self) -> int:
        """Readable but not yet flushed bytes. Java: MappedFileQueue#remainHowManyDataToFlush."""
        return self.get_max_offset() - self.flushed_where

    # -- flush and commit ----------------------------------------------------------------------------------------
    def flush(self, flush_least_pages: int) -> bool:
        """Flush the segment holding ``flushed_where``; returns ``True`` when nothing moved (Java's odd sense).

        Java: MappedFileQueue#flush
        """
        result = True
        mapped_file = self.find_mapped_file_by_offset(self.flushed_where, self.flushed_where == 0)
        if mapped_file is not None:
            timestamp = mapped_file.store_timestamp
            offset = mapped_file.flush(flush_least_pages)
            where = mapped_file.file_from_offset + offset
            result = where == self.flushed_where
            self.flushed_where = where
            if flush_least_pages == 0:
                self.store_timestamp = timestamp
        return result

    def commit(self, commit_least_pages: int) -> bool:
        """Commit the segment holding ``committed_where``; ``True`` when nothing moved.

        Java: MappedFileQueue#commit
        """
        result = True
        mapped_file = self.find_mapped_file_by_offset(self.committed_where, self.committed_where == 0)
        if mapped_file is not None:
            offset = mapped_file.commit(commit_least_pages)
            where = mapped_file.file_from_offset + offset
            result = where == self.committed_where
            self.committed_where = where
        return result

    # -- truncation and deletion ---------------------------------------------------------------------------------
    def truncate_dirty_files(self, offset: int) -> list[str]:
        """Cut everything at and after ``offset``: the segment containing it is rewound, later ones deleted.

        Java: MappedFileQueue#truncateDirtyFiles

        Returns:
            Names of the segment files deleted.
        """
        removed = []
        for mapped_file in list(self.mapped_files):
            tail = mapped_file.file_from_offset + self.mapped_file_size
            if tail <= offset:
                continue
            if offset >= mapped_file.file_from_offset:
                where = offset % self.mapped_file_size
                mapped_file.wrote_position = where
                mapped_file.committed_position = where
                mapped_file.flushed_position = where
                mapped_file.erase_after(where)  # mqlab: cut bytes must not come back at the next recovery
            else:
                mapped_file.destroy(1000)
                removed.append(mapped_file)
        self.delete_expired_file(removed)
        return [m.file.name for m in removed]

    def delete_expired_file(self, files: list[MappedFile]) -> None:
        """Forget segments that were destroyed.

        Java: MappedFileQueue#deleteExpiredFile
        """
        with self._lock:
            doomed = {id(f) for f in files}
            self.mapped_files = [m for m in self.mapped_files if id(m) not in doomed]

    def delete_last_mapped_file(self) -> None:
        """Destroy the last segment.

        Java: MappedFileQueue#deleteLastMappedFile
        """
        last = self.get_last_mapped_file()
        if last is not None:
            last.destroy(1000)
            self.delete_expired_file([last])

    def reset_offset(self, offset: int) -> bool:
        """Rewind to ``offset`` if it is within two segments of the end (used by HA).

        Java: MappedFileQueue#resetOffset
        """
        last = self.get_last_mapped_file()
        if last is not None and last.file_from_offset + last.wrote_position - offset > self.mapped_file_size * 2:
            return False
        for mapped_file in reversed(list(self.mapped_files)):
            if offset >= mapped_file.file_from_offset:
                where = offset % mapped_file.file_size
                mapped_file.flushed_position = where
                mapped_file.wrote_position = where
                mapped_file.committed_position = where
                break
            self.delete_expired_file([mapped_file])
        return True

    def shutdown(self, interval_forcibly_ms: int = 0) -> None:
        """Unmap every segment (files stay).

        Java: MappedFileQueue#shutdown
        """
        for mapped_file in self.mapped_files:
            mapped_file.close()

    def destroy(self) -> None:
        """Delete every segment and the directory.

        Java: MappedFileQueue#destroy
        """
        for mapped_file in self.mapped_files:
            mapped_file.destroy(1000 * 3)
        self.mapped_files = []
        self.flushed_where = 0
        self.committed_where = 0
        if self.store_path.is_dir() and not any(self.store_path.iterdir()):
            self.store_path.rmdir()

    def get_mapped_memory_size(self) -> int:
        """Total bytes mapped.

        Java: MappedFileQueue#getMappedMemorySize
        """
        return len(self.mapped_files) * self.mapped_file_size

    # -- expiry (see docs/spec/store-cleaning.md) -----------------------------------------------------------------
    def get_mapped_file_by_time(self, timestamp: int) -> MappedFile | None:
        """The first segment last modified at or after ``timestamp`` (epoch ms), else the last one.

        Java: MappedFileQueue#getMappedFileByTime
        """
        files = list(self.mapped_files)
        if not files:
            return None
        return next((m for m in files if m.get_last_modified_timestamp() >= timestamp), files[-1])

    def delete_expired_file_by_time(
        self,
        expired_time_ms: int,
        delete_files_interval_ms: int,
        interval_forcibly_ms: int,
        clean_immediately: bool,
    ) -> int:
        """Destroy the oldest segments last written ``expired_time_ms`` ago or more (any age if ``clean_immediately``).

        The scan runs from the oldest segment and never looks at the last one (the one being written). It stops at
        the first segment that is too young, so a young segment is never skipped over to reach older ones behind it
        (files are only ever removed from the head), and it stops at the first segment whose ``destroy`` fails
        (still referenced by a reader; a later pass or ``retry_delete_first_file`` finishes it). At most
        ``DELETE_FILES_BATCH_MAX`` (10) segments go per call, with a pause of ``delete_files_interval_ms`` after each
        one except before the last candidate (Java sleeps the thread; here the runtime sleeps, which in a simulation
        lets other events run, as other threads would).

        Java: MappedFileQueue#deleteExpiredFileByTime

        Returns:
            How many segments were destroyed and removed from the queue.
        """
        candidates = list(self.mapped_files)[:-1]  # Java: the loop stops before the last file
        destroyed: list[MappedFile] = []
        for i, mapped_file in enumerate(candidates):
            live_max_timestamp = mapped_file.get_last_modified_timestamp() + expired_time_ms
            # The clock is read for every file, as Java does: the pauses between deletions move it on.
            if not (self.runtime.now_ms() >= live_max_timestamp or clean_immediately):
                break  # never delete in the middle of the queue
            if not mapped_file.destroy(interval_forcibly_ms):
                break  # still held: keep it as the head of the queue
            destroyed.append(mapped_file)
            if len(destroyed) >= DELETE_FILES_BATCH_MAX:
                break
            if delete_files_interval_ms > 0 and i + 1 < len(candidates):
                self.runtime.scheduler.sleep(delete_files_interval_ms)
        self.delete_expired_file(destroyed)
        return len(destroyed)

    def delete_expired_file_by_offset(self, offset: int, unit_size: int) -> int:
        """Destroy the leading ConsumeQueue segments whose last unit points below CommitLog ``offset``.

        For each segment but the last, the 8-byte CommitLog offset at the start of its last unit (byte
        ``mapped_file_size - unit_size``) decides: below ``offset`` means every unit of the segment points at deleted
        CommitLog data. A segment that can no longer be read because an earlier destroy left it unavailable (a
        "hanged" file) is destroyed as well. The first segment that is kept, or whose destroy fails, ends the scan.
        Unlike the by-time scan there is no batch limit, and the forced-destroy interval is fixed at 60 s.

        Java: MappedFileQueue#deleteExpiredFileByOffset

        Returns:
            How many segments were destroyed and removed from the queue.
        """
        destroyed: list[MappedFile] = []
        for mapped_file in list(self.mapped_files)[:-1]:
            result = mapped_file.select_mapped_buffer(self.mapped_file_size - unit_size)
            if result is not None:
                max_offset_in_logic_queue = _LONG.unpack_from(result.data, 0)[0]
                destroy = max_offset_in_logic_queue < offset
            elif not mapped_file.available:
                self.runtime.trace_event("MappedFileQueue", "hangedFile", file=mapped_file.file.name)
                destroy = True
            else:
                break  # a segment before the last that is not full: Java logs that this never happens
            if not (destroy and mapped_file.destroy(1000 * 60)):
                break
            destroyed.append(mapped_file)
        self.delete_expired_file(destroyed)
        return len(destroyed)

    def retry_delete_first_file(self, interval_forcibly_ms: int) -> bool:
        """Try again to destroy a first segment that an earlier destroy left unavailable but not deleted.

        Java: MappedFileQueue#retryDeleteFirstFile

        Returns:
            Whether such a segment was found and is now deleted.
        """
        mapped_file = self.get_first_mapped_file()
        if mapped_file is None or mapped_file.available:
            return False
        self.runtime.trace_event("MappedFileQueue", "retryDeleteFirstFile", file=mapped_file.file.name)
        if not mapped_file.destroy(interval_forcibly_ms):
            return False
        self.delete_expired_file([mapped_file])
        return True

"""One fixed-size segment file, memory-mapped, with its wrote / committed / flushed positions.

Java: org.apache.rocketmq.store.MappedFile (rocketmq-all-4.9.3)

The file is named after the absolute offset of its first byte (20 digits) and never grows: appends fill it from
``wrote_position`` until a record no longer fits. Three positions describe how far data has gone:

* ``wrote_position``: bytes appended (into the mapping, or into a pooled write buffer with TransientStorePool);
* ``committed_position``: bytes copied from the write buffer into the file (only with TransientStorePool);
* ``flushed_position``: bytes forced to disk (``msync``).

mqlab reserves the file's blocks when it creates it (``posix_fallocate``), so a full disk shows up as a clear
``MappedFileCreateError`` instead of a crash on a later page fault. File ages come
from the runtime's clock (the on-disk mtime is set from it at flush time), so a simulation sees virtual ages.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import struct
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from mqlab.common.message.message_ext_batch import MessageExtBatch
from mqlab.store.append_message_result import AppendMessageResult
from mqlab.store.append_message_status import AppendMessageStatus
from mqlab.store.reference_resource import ReferenceResource
from mqlab.store.select_mapped_buffer_result import SelectMappedBufferResult
from mqlab.store.store_errors import MappedFileCreateError

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.transient_store_pool import TransientStorePool

OS_PAGE_SIZE = 1024 * 4
_ZERO_CHUNK = bytes(1 << 20)  # erase_after's default chunk, all zeros
# Where fdatasync writes what msync writes, and lets other threads run while it waits (see MappedFile.force).
_FDATASYNC = os.fdatasync if sys.platform.startswith("linux") else None


def last_non_zero(buf: Any, start: int, end: int, chunk: int = 1 << 20) -> int:
    """One past the last non-zero byte in ``buf[start:end]`` (``start`` if all zero), reading backwards in chunks."""
    while end > start:
        low = max(start, end - chunk)
        if end - low == len(_ZERO_CHUNK) and buf[low:end] == _ZERO_CHUNK:
            end = low  # a whole chunk of zeros: comparing is much cheaper than stripping
            continue
        piece = buf[low:end].rstrip(b"\x00")
        if piece:
            return low + len(piece)
        end = low
    return start


class AppendMessageCallback(Protocol):
    """Writes one message (or batch) at ``position`` of ``buffer``; Java: AppendMessageCallback.

    Java's interface has two ``doAppend`` overloads, one per message kind, and ``MappedFile`` picks one by the
    message's class; Python has no overloads, so each kind has its own name.
    """

    def do_append_single(
        self, file_from_offset: int, buffer: Any, position: int, max_blank: int, msg: Any
    ) -> AppendMessageResult:
        """Write one message's record into ``buffer`` at ``position`` with ``max_blank`` bytes left in the file."""
        ...

    def do_append_batch(
        self, file_from_offset: int, buffer: Any, position: int, max_blank: int, batch: Any
    ) -> AppendMessageResult:
        """Write every record of a batch, or none."""
        ...


class MappedFile(ReferenceResource):
    """A segment of the CommitLog, of a ConsumeQueue or of the checkpoint.

    Args:
        file_name: path; its base name is the 20-digit start offset.
        file_size: fixed size in bytes.
        runtime: supplies the clock for ages and the trace.
        transient_store_pool: when given, appends go to a pooled buffer and ``commit`` copies them in.
    """

    def __init__(
        self,
        file_name: str | Path,
        file_size: int,
        *,
        runtime: Runtime,
        transient_store_pool: TransientStorePool | None = None,
    ):
        super().__init__()
        self.file = Path(file_name)
        self.file_name = str(file_name)
        self.file_size = file_size
        self.runtime = runtime
        self._now_ms = runtime.clock.now_ms  # the clock's own method: one frame less than Runtime.now_ms per call
        try:
            self.file_from_offset = int(self.file.name)
        except ValueError as exc:
            raise MappedFileCreateError(f"segment file name is not an offset: {self.file}") from exc
        self.wrote_position = 0
        self.committed_position = 0
        self.flushed_position = 0
        self.store_timestamp = 0
        self.first_create_in_queue = False
        self._pool = transient_store_pool
        self.write_buffer: bytearray | None = None
        self._fd = -1
        self.mapped_byte_buffer: mmap.mmap
        existed = self.file.exists()
        self._open()
        self.last_modified_ms = self._initial_mtime(existed)
        if transient_store_pool is not None:
            self.write_buffer = transient_store_pool.borrow_buffer()

    # -- life cycle ----------------------------------------------------------------------------------------------
    def _open(self) -> None:
        self.file.parent.mkdir(parents=True, exist_ok=True)
        existed = self.file.exists()
        fd = -1
        try:
            fd = os.open(self.file, os.O_RDWR | os.O_CREAT, 0o644)
            size = os.fstat(fd).st_size
            if size < self.file_size:
                # Reserve real blocks: a sparse file would fail later, at a page fault, when the disk is full.
                os.posix_fallocate(fd, 0, self.file_size)
            self.mapped_byte_buffer = mmap.mmap(fd, self.file_size, access=mmap.ACCESS_WRITE)
        except OSError as exc:
            if fd >= 0:
                os.close(fd)
            if not existed:
                with contextlib.suppress(OSError):
                    self.file.unlink()
            raise MappedFileCreateError(f"cannot create or map {self.file} ({self.file_size} bytes): {exc}") from exc
        self._fd = fd

    def reserve(self, start: int, length: int) -> None:
        """Make the disk back bytes ``[start, start + length)`` of the file (``posix_fallocate``).

        Java: none. A page of a mapping that the file system cannot back kills the process with SIGBUS when it is
        first written; reserving first turns a full disk into an ``OSError`` here (HARD-3).

        Raises:
            OSError: the disk refused (``ENOSPC``).
        """
        if length > 0:
            os.posix_fallocate(self._fd, start, length)

    def _initial_mtime(self, existed: bool) -> int:
        # A new segment is as old as the runtime's clock says; a loaded one keeps the age its mtime records (in a
        # simulation the mtime was set from the virtual clock when the segment was flushed).
        if self.runtime.simulated and not existed:
            return self.runtime.now_ms()
        return self.file.stat().st_mtime_ns // 1_000_000

    def cleanup(self, current_ref: int) -> bool:
        """Unmap and close once no reader holds the file.

        Java: MappedFile#cleanup
        """
        if self.available:
            return False
        if self.cleanup_over:
            return True
        with contextlib.suppress(BufferError, ValueError):
            self.mapped_byte_buffer.close()
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self.write_buffer is not None and self._pool is not None:
            self._pool.return_buffer(self.write_buffer)
            self.write_buffer = None
        return True

    def destroy(self, interval_forcibly_ms: int) -> bool:
        """Shut down and, once clean-up is over, delete the file.

        Java: MappedFile#destroy
        """
        self.shutdown(self.runtime.now_ms(), interval_forcibly_ms)
        if not self.is_cleanup_over():
            return False
        with contextlib.suppress(FileNotFoundError):
            self.file.unlink()
        self.runtime.trace_event("MappedFile", "destroy", file=self.file.name)
        return True

    def close(self) -> None:
        """Release the mapping without deleting the file (used at shutdown)."""
        self.shutdown(self.runtime.now_ms(), 0)
        if not self.is_cleanup_over():
            self.shutdown(self.runtime.now_ms(), 0)

    # -- positions -----------------------------------------------------------------------------------------------
    def get_read_position(self) -> int:
        """Readable limit: the wrote position, or the committed one when a write buffer is in use.

        Java: MappedFile#getReadPosition
        """
        return self.wrote_position if self.write_buffer is None else self.committed_position

    def is_full(self) -> bool:
        """Whether nothing more can be appended.

        Java: MappedFile#isFull
        """
        return self.wrote_position == self.file_size

    def _is_able_to(self, target: int, done: int, least_pages: int) -> bool:
        if self.is_full():
            return True
        if least_pages > 0:
            return target // OS_PAGE_SIZE - done // OS_PAGE_SIZE >= least_pages
        return target > done

    def is_able_to_flush(self, flush_least_pages: int) -> bool:
        """Full, or at least ``flush_least_pages`` new pages (any new byte when 0).

        Java: MappedFile#isAbleToFlush
        """
        return self._is_able_to(self.get_read_position(), self.flushed_position, flush_least_pages)

    def is_able_to_commit(self, commit_least_pages: int) -> bool:
        """Same rule as ``is_able_to_flush``, for the committed position.

        Java: MappedFile#isAbleToCommit
        """
        return self._is_able_to(self.wrote_position, self.committed_position, commit_least_pages)

    # -- appending -----------------------------------------------------------------------------------------------
    def append_message(self, msg: Any, callback: AppendMessageCallback) -> AppendMessageResult:
        """Let ``callback`` write one message (or a batch) at the wrote position.

        Java: MappedFile#appendMessage / #appendMessages → #appendMessagesInner, which picks the callback's
        ``doAppend`` overload by the message's class, as this does by name
        """
        current_pos = self.wrote_position
        if current_pos >= self.file_size:
            return AppendMessageResult(AppendMessageStatus.UNKNOWN_ERROR)
        buffer = self.write_buffer if self.write_buffer is not None else self.mapped_byte_buffer
        do_append = callback.do_append_batch if isinstance(msg, MessageExtBatch) else callback.do_append_single
        result = do_append(self.file_from_offset, buffer, current_pos, self.file_size - current_pos, msg)
        self.wrote_position += result.wrote_bytes
        store_timestamp = self.store_timestamp = result.store_timestamp
        # The store time was read from the runtime's clock just before, under the put lock: reuse it.
        self.last_modified_ms = store_timestamp if store_timestamp > 0 else self._now_ms()
        return result

    append_messages = append_message

    def append_message_bytes(self, data: bytes | bytearray | memoryview) -> bool:
        """Append raw bytes if they fit (ConsumeQueue units, replicated data).

        Java: MappedFile#appendMessage(byte[])
        """
        current_pos = self.wrote_position
        end = current_pos + len(data)
        if end > self.file_size:
            return False
        self.mapped_byte_buffer[current_pos:end] = data
        self.wrote_position = end
        self.last_modified_ms = self._now_ms()
        return True

    # -- commit and flush ----------------------------------------------------------------------------------------
    def commit(self, commit_least_pages: int) -> int:
        """Copy appended bytes from the write buffer into the file; returns the committed position.

        Java: MappedFile#commit
        """
        if self.write_buffer is None:
            return self.wrote_position  # no pool: appends went straight into the mapping
        if self.is_able_to_commit(commit_least_pages) and self.hold():
            try:
                start, end = self.committed_position, self.wrote_position
                if end > start:
                    self.mapped_byte_buffer[start:end] = self.write_buffer[start:end]
                    self.committed_position = end
            finally:
                self.release()
        if self.committed_position == self.file_size and self.write_buffer is not None and self._pool is not None:
            self._pool.return_buffer(self.write_buffer)
            self.write_buffer = None
        return self.committed_position

    def flush(self, flush_least_pages: int) -> int:
        """Force readable bytes to disk if enough accumulated; returns the flushed position.

        Java: MappedFile#flush
        """
        if self.is_able_to_flush(flush_least_pages) and self.hold():
            try:
                value = self.get_read_position()
                start = self.flushed_position - self.flushed_position % mmap.PAGESIZE
                if value > start:
                    self.force(start, value - start)
                self.flushed_position = value
                self._stamp_mtime()
            finally:
                self.release()
        return self.flushed_position

    def force(self, start: int = 0, length: int = 0) -> None:
        """Write the mapping's dirty pages to disk (``length`` 0: the whole file).

        Java: MappedByteBuffer#force. CPython's ``mmap.flush`` keeps the GIL while ``msync`` waits for the disk, which
        stops every other thread of the broker (puts, reput) for the whole write. On Linux ``msync(MS_SYNC)`` is an
        ``fdatasync`` of the range, and pages written through a shared mapping are dirty pages of the file, so
        ``os.fdatasync`` on the segment's descriptor writes the same pages and lets other threads run meanwhile (like
        Java's ``force()``, it covers the whole file). Elsewhere the mapping's own ``flush`` does it.
        """
        if _FDATASYNC is not None and self._fd >= 0:
            _FDATASYNC(self._fd)
        elif length:
            self.mapped_byte_buffer.flush(start, length)
        else:
            self.mapped_byte_buffer.flush()

    def _stamp_mtime(self) -> None:
        if self.runtime.simulated:
            ns = self.last_modified_ms * 1_000_000
            with contextlib.suppress(OSError):
                os.utime(self.file, ns=(ns, ns))

    def get_last_modified_timestamp(self) -> int:
        """When the file was last written, in epoch ms (virtual time in a simulation).

        Java: MappedFile#getLastModifiedTimestamp
        """
        return self.last_modified_ms

    # -- reading -------------------------------------------------------------------------------------------------
    def select_mapped_buffer(self, pos: int, size: int | None = None) -> SelectMappedBufferResult | None:
        """Copy ``size`` bytes from ``pos`` (to the readable end when ``size`` is omitted), if all are readable.

        Java: MappedFile#selectMappedBuffer(int, int) and #selectMappedBuffer(int)
        """
        read_position = self.get_read_position()
        if size is None:
            if not 0 <= pos < read_position:
                return None
            end = read_position
        else:
            if pos < 0 or size < 0 or pos + size > read_position:
                return None
            end = pos + size
        if not self.hold():
            return None
        try:
            data = self.mapped_byte_buffer[pos:end]
        finally:
            self.release()
        return SelectMappedBufferResult(self.file_from_offset + pos, data)

    def read_int(self, pos: int) -> int:
        """A big-endian int at ``pos`` of the mapping (for recovery scans)."""
        return struct.unpack_from(">i", self.mapped_byte_buffer, pos)[0]

    def erase_after(self, pos: int, chunk: int = 1 << 20) -> int:
        """Zero every non-zero byte from ``pos`` to the end of the file; return how many bytes were zeroed.

        Java: none. RocketMQ truncates by moving the positions only, so the cut bytes stay in the file and a later
        recovery can read them back as records (or ConsumeQueue units) once new data lines up with them; mqlab
        erases them. Reads backwards in chunks and writes only up to the last non-zero byte.
        """
        buf = self.mapped_byte_buffer
        end = last_non_zero(buf, pos, self.file_size, chunk)
        if end > pos:
            buf[pos:end] = bytes(end - pos)
        return max(end - pos, 0)

    def slice_byte_buffer(self) -> mmap.mmap:
        """The whole mapping (recovery and checks read it in place).

        Java: MappedFile#sliceByteBuffer
        """
        return self.mapped_byte_buffer

    def warm_mapped_file(self, pages: int | None = None) -> None:
        """Touch every page (write zeros where nothing was written) so later appends do not page-fault.

        Java: MappedFile#warmMappedFile
        """
        start = self.wrote_position - self.wrote_position % OS_PAGE_SIZE + OS_PAGE_SIZE
        zero = bytes(1)
        for pos in range(start, self.file_size, OS_PAGE_SIZE):
            self.mapped_byte_buffer[pos : pos + 1] = zero
        self.force()

    def __repr__(self) -> str:
        return (
            f"MappedFile({self.file.name}, wrote={self.wrote_position}, committed={self.committed_position}, "
            f"flushed={self.flushed_position})"
        )

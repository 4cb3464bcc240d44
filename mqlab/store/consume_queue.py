"""One queue's index into the CommitLog: fixed 20-byte units, one per message, in queue-offset order.

Java: org.apache.rocketmq.store.ConsumeQueue (rocketmq-all-4.9.3)

Unit layout (big-endian): ``commitLogOffset`` (long) | ``size`` (int) | ``tagsCode`` (long). Logical offset N sits
at byte ``N * 20`` of the queue's virtual space, split into files of ``mappedFileSizeConsumeQueue`` bytes under
``consumequeue/<topic>/<queueId>/``. A consumer reads units here, then the records they point at.
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path
from typing import TYPE_CHECKING

from mqlab.store.mapped_file_queue import MappedFileQueue
from mqlab.store.select_mapped_buffer_result import SelectMappedBufferResult

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime

CQ_STORE_UNIT_SIZE = 20
UNIT = struct.Struct(">qiq")
# Filler written before the first real unit of a queue whose first file starts mid-way (Java: fillPreBlank).
BLANK_UNIT = UNIT.pack(0, 0x7FFFFFFF, 0)


class ConsumeQueue:
    """The units of ``(topic, queue_id)``.

    Args:
        topic: topic name (a directory name).
        queue_id: queue number (a directory name).
        store_path: the ``consumequeue`` directory.
        mapped_file_size: bytes per file (a multiple of 20).
        runtime: clock and trace.
    """

    def __init__(self, topic: str, queue_id: int, store_path: str | Path, mapped_file_size: int, *, runtime: Runtime):
        self.topic = topic
        self.queue_id = queue_id
        self.store_path = Path(store_path)
        self.mapped_file_size = mapped_file_size
        self.runtime = runtime
        self.mapped_file_queue = MappedFileQueue(
            self.store_path / topic / str(queue_id), mapped_file_size, runtime=runtime
        )
        self.max_physic_offset = -1
        self.min_logic_offset = 0
        # One unit's bytes, packed in place and copied into the file (Java's reused byteBufferIndex).
        self.byte_buffer_index = bytearray(CQ_STORE_UNIT_SIZE)

    def load(self) -> None:
        """Map the queue's files. Java: ConsumeQueue#load."""
        self.mapped_file_queue.load()

    # -- recovery ------------------------------------------------------------------------------------------------
    def recover(self) -> int:
        """Find the last valid unit (from the third-last file on) and cut everything after it.

        A unit is valid when its offset is >= 0 and its size > 0; the first invalid one ends the queue.

        Java: ConsumeQueue#recover

        Returns:
            The logical byte offset where the queue now ends.
        """
        files = self.mapped_file_queue.mapped_files
        if not files:
            return 0
        index = max(len(files) - 3, 0)
        mapped_file = files[index]
        process_offset = mapped_file.file_from_offset
        mapped_file_offset = 0
        while True:
            buf = mapped_file.slice_byte_buffer()
            mapped_file_offset = 0
            for pos in range(0, self.mapped_file_size, CQ_STORE_UNIT_SIZE):
                offset, size, _tags = UNIT.unpack_from(buf, pos)
                if offset >= 0 and size > 0:
                    mapped_file_offset = pos + CQ_STORE_UNIT_SIZE
                    self.max_physic_offset = offset + size
                else:
                    break
            if mapped_file_offset == self.mapped_file_size and index + 1 < len(files):
                index += 1
                mapped_file = files[index]
                process_offset = mapped_file.file_from_offset
                continue
            break
        process_offset += mapped_file_offset
        self.mapped_file_queue.flushed_where = process_offset
        self.mapped_file_queue.committed_where = process_offset
        self.mapped_file_queue.truncate_dirty_files(process_offset)
        return process_offset

    def truncate_dirty_logic_files(self, phy_offset: int) -> None:
        """Drop every unit pointing at or beyond CommitLog offset ``phy_offset`` (after the CommitLog was cut).

        Java: ConsumeQueue#truncateDirtyLogicFiles
        """
        self.max_physic_offset = phy_offset
        while True:
            mapped_file = self.mapped_file_queue.get_last_mapped_file()
            if mapped_file is None:
                return
            buf = mapped_file.slice_byte_buffer()
            mapped_file.wrote_position = mapped_file.committed_position = mapped_file.flushed_position = 0
            for pos in range(0, self.mapped_file_size, CQ_STORE_UNIT_SIZE):
                offset, size, _tags = UNIT.unpack_from(buf, pos)
                if pos == 0 and offset >= phy_offset:
                    self.mapped_file_queue.delete_last_mapped_file()
                    break  # the whole file is dirty: look at the one before
                if not (offset >= 0 and size > 0) or offset >= phy_offset:
                    # Java skips the validity check for the first unit of the file and would keep a zero unit (a file
                    # whose only unit was never flushed before a crash) as unit 0 of the queue; mqlab stops there.
                    # It also erases the cut units, which Java leaves for the next recovery to read back.
                    mapped_file.erase_after(mapped_file.wrote_position)
                    return
                end = pos + CQ_STORE_UNIT_SIZE
                mapped_file.wrote_position = mapped_file.committed_position = mapped_file.flushed_position = end
                self.max_physic_offset = offset + size
                if end == self.mapped_file_size:
                    return
            else:
                return

    def get_last_offset(self) -> int:
        """End (offset + size) of the record the last unit points at, or -1.

        Java: ConsumeQueue#getLastOffset
        """
        mapped_file = self.mapped_file_queue.get_last_mapped_file()
        if mapped_file is None:
            return -1
        last = -1
        buf = mapped_file.slice_byte_buffer()
        pos = max(mapped_file.wrote_position - CQ_STORE_UNIT_SIZE, 0)
        while pos + CQ_STORE_UNIT_SIZE <= self.mapped_file_size:
            offset, size, _tags = UNIT.unpack_from(buf, pos)
            if offset >= 0 and size > 0:
                last = offset + size
                pos += CQ_STORE_UNIT_SIZE
            else:
                break
        return last

    def correct_min_offset(self, phy_min_offset: int) -> None:
        """Move the queue's min offset to the first unit that still points into the CommitLog.

        Java: ConsumeQueue#correctMinOffset
        """
        mapped_file = self.mapped_file_queue.get_first_mapped_file()
        if mapped_file is None:
            return
        result = mapped_file.select_mapped_buffer(0)
        if result is None:
            return
        for pos in range(0, result.size, CQ_STORE_UNIT_SIZE):
            offset_py, _size, _tags = UNIT.unpack_from(result.data, pos)
            if offset_py >= phy_min_offset:
                self.min_logic_offset = mapped_file.file_from_offset + pos
                return

    def delete_expired_file(self, offset: int) -> int:
        """Drop the leading files whose units all point below CommitLog ``offset``, then move the min offset.

        Java: ConsumeQueue#deleteExpiredFile

        Returns:
            How many files were deleted.
        """
        count = self.mapped_file_queue.delete_expired_file_by_offset(offset, CQ_STORE_UNIT_SIZE)
        self.correct_min_offset(offset)
        return count

    # -- writing -------------------------------------------------------------------------------------------------
    def put_message_position_info(self, offset: int, size: int, tags_code: int, cq_offset: int) -> bool:
        """Append the unit for queue offset ``cq_offset`` (idempotent: already-built records are skipped).

        Java: ConsumeQueue#putMessagePositionInfo
        """
        if offset + size <= self.max_physic_offset:
            return True  # rebuilt before (recovery re-dispatch): nothing to do
        expect_logic_offset = cq_offset * CQ_STORE_UNIT_SIZE
        mqf = self.mapped_file_queue
        mapped_file = mqf.get_last_mapped_file(expect_logic_offset, need_create=True)
        if mapped_file is None:
            return False
        if mapped_file.first_create_in_queue and cq_offset != 0 and mapped_file.wrote_position == 0:
            self.min_logic_offset = expect_logic_offset
            mqf.flushed_where = expect_logic_offset
            mqf.committed_where = expect_logic_offset
            self.fill_pre_blank(mapped_file.append_message_bytes, expect_logic_offset)
        current_logic_offset = mapped_file.wrote_position + mapped_file.file_from_offset
        if expect_logic_offset < current_logic_offset:
            # Already there (a repeated dispatch), or a hole: units a crash lost in a file recovery did not scan.
            # Java only checks this for cq_offset != 0 and trusts the slot; mqlab fills a hole in place.
            return self._repair_unit(expect_logic_offset, offset, size, tags_code)
        if cq_offset != 0 and expect_logic_offset != current_logic_offset:
            self.runtime.trace_event(
                "ConsumeQueue",
                "orderMaybeWrong",
                topic=self.topic,
                queueId=self.queue_id,
                expect=expect_logic_offset,
                current=current_logic_offset,
            )
        self.max_physic_offset = offset + size
        unit = self.byte_buffer_index
        UNIT.pack_into(unit, 0, offset, size, tags_code)
        return mapped_file.append_message_bytes(unit)

    def _repair_unit(self, logic_offset: int, offset: int, size: int, tags_code: int) -> bool:
        """Write the unit at ``logic_offset`` if the slot holds no valid unit (Java: none, see the caller)."""
        mapped_file = self.mapped_file_queue.find_mapped_file_by_offset(logic_offset)
        if mapped_file is None:
            return True
        pos = logic_offset % self.mapped_file_size
        buf = mapped_file.mapped_byte_buffer
        old_offset, old_size, _tags = UNIT.unpack_from(buf, pos)
        if old_offset >= 0 and old_size > 0:
            return True
        UNIT.pack_into(buf, pos, offset, size, tags_code)
        page = pos - pos % mmap.PAGESIZE
        buf.flush(page, pos + CQ_STORE_UNIT_SIZE - page)  # behind the flushed position: no flush round covers it
        self.runtime.trace_event(
            "ConsumeQueue", "repairUnit", topic=self.topic, queueId=self.queue_id, logicOffset=logic_offset
        )
        return True

    def fill_pre_blank(self, append, until_where: int) -> None:
        """Fill the first file with blank units up to ``until_where`` (a queue starting at a non-zero offset).

        Java: ConsumeQueue#fillPreBlank
        """
        until = until_where % self.mapped_file_size
        for _ in range(0, until, CQ_STORE_UNIT_SIZE):
            append(BLANK_UNIT)

    # -- reading -------------------------------------------------------------------------------------------------
    def get_index_buffer(self, start_index: int, *, max_size: int | None = None) -> SelectMappedBufferResult | None:
        """Units from logical offset ``start_index`` to the end of its file (``None`` below the min offset).

        ``max_size`` caps the bytes returned: Java hands out a view of the rest of the file, mqlab copies it, and
        a pull reads at most a few kB of a file that can hold 6 MB of units.

        Java: ConsumeQueue#getIndexBuffer
        """
        offset = start_index * CQ_STORE_UNIT_SIZE
        if offset < self.min_logic_offset:
            return None
        mapped_file = self.mapped_file_queue.find_mapped_file_by_offset(offset)
        if mapped_file is None:
            return None
        pos = offset % self.mapped_file_size
        if max_size is not None:
            readable = mapped_file.get_read_position() - pos
            if readable > 0:
                return mapped_file.select_mapped_buffer(pos, min(readable, max_size))
        return mapped_file.select_mapped_buffer(pos)

    def get_min_offset_in_queue(self) -> int:
        """Smallest readable logical offset. Java: ConsumeQueue#getMinOffsetInQueue."""
        return self.min_logic_offset // CQ_STORE_UNIT_SIZE

    def get_max_offset_in_queue(self) -> int:
        """One past the last unit. Java: ConsumeQueue#getMaxOffsetInQueue."""
        return self.mapped_file_queue.get_max_offset() // CQ_STORE_UNIT_SIZE

    def get_message_total_in_queue(self) -> int:
        """Units between min and max. Java: ConsumeQueue#getMessageTotalInQueue."""
        return self.get_max_offset_in_queue() - self.get_min_offset_in_queue()

    def roll_next_file(self, index: int) -> int:
        """First logical offset of the next file after the one holding ``index``.

        Java: ConsumeQueue#rollNextFile
        """
        units = self.mapped_file_size // CQ_STORE_UNIT_SIZE
        return index + units - index % units

    def get_offset_in_queue_by_time(self, timestamp: int, min_physic_offset: int, pickup_store_timestamp) -> int:
        """The logical offset whose message was stored closest to ``timestamp`` (binary search over one file).

        The file searched is the first whose last-modified time is at or after ``timestamp`` (else the last);
        ``pickup_store_timestamp(offset, size)`` reads a record's store time from the CommitLog.

        Java: ConsumeQueue#getOffsetInQueueByTime (with MappedFileQueue#getMappedFileByTime)
        """
        files = self.mapped_file_queue.mapped_files
        if not files:
            return 0
        mapped_file = next((m for m in files if m.get_last_modified_timestamp() >= timestamp), files[-1])
        result = mapped_file.select_mapped_buffer(0)
        if result is None:
            return 0
        data = result.data
        low = max(self.min_logic_offset - mapped_file.file_from_offset, 0)
        high = len(data) - CQ_STORE_UNIT_SIZE
        target = left = right = -1
        left_value = right_value = -1
        while high >= low:
            mid = (low + high) // (2 * CQ_STORE_UNIT_SIZE) * CQ_STORE_UNIT_SIZE
            phy_offset, size, _tags = UNIT.unpack_from(data, mid)
            if phy_offset < min_physic_offset:
                low = mid + CQ_STORE_UNIT_SIZE
                left = mid
                continue
            store_time = pickup_store_timestamp(phy_offset, size)
            if store_time < 0:
                return 0
            if store_time == timestamp:
                target = mid
                break
            if store_time > timestamp:
                high = mid - CQ_STORE_UNIT_SIZE
                right, right_value = mid, store_time
            else:
                low = mid + CQ_STORE_UNIT_SIZE
                left, left_value = mid, store_time
        if target != -1:
            offset = target
        elif left_value == -1:
            offset = right
        elif right_value == -1:
            offset = left
        else:
            offset = right if abs(timestamp - left_value) > abs(timestamp - right_value) else left
        total = mapped_file.file_from_offset + offset
        # Java's integer division truncates toward zero (a -1 "not found" offset in the first file gives 0).
        return -(-total // CQ_STORE_UNIT_SIZE) if total < 0 else total // CQ_STORE_UNIT_SIZE

    # -- flushing and life cycle ---------------------------------------------------------------------------------
    def flush(self, flush_least_pages: int) -> bool:
        """Flush; ``True`` when nothing moved. Java: ConsumeQueue#flush."""
        return self.mapped_file_queue.flush(flush_least_pages)

    def shutdown(self) -> None:
        """Unmap the files."""
        self.mapped_file_queue.shutdown()

    def destroy(self) -> None:
        """Delete every file of the queue. Java: ConsumeQueue#destroy."""
        self.max_physic_offset = -1
        self.min_logic_offset = 0
        self.mapped_file_queue.destroy()

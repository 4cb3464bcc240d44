"""Read-only views of a store's files for notebooks: segments, records, ConsumeQueue units, the checkpoint.

Java: none (teaching helper). Nothing here changes a store. Each function turns what the store keeps (a
``MappedFileQueue``'s positions, the bytes of a segment, the 20-byte units of a ConsumeQueue, the three longs of the
``checkpoint`` file) into rows a notebook can print. Records are decoded with the one record table in
``message_record_layout``, units with ``ConsumeQueue``'s own unit struct, and the checkpoint's safe point with
``StoreCheckpoint#getMinTimestamp``'s own code, so a view cannot disagree with the store it shows.

Paths are printed relative to the store root and times, when an origin is given, as ``+<ms>`` since it, the way
the trace prints them.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mqlab.common.message import message_decoder
from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message_errors import MessageFormatError
from mqlab.common.message.record_dump import dump_record
from mqlab.common.util_all import offset2file_name
from mqlab.store.consume_queue import CQ_STORE_UNIT_SIZE, UNIT
from mqlab.store.store_checkpoint import StoreCheckpoint

if TYPE_CHECKING:
    from mqlab.store.consume_queue import ConsumeQueue
    from mqlab.store.mapped_file import MappedFile
    from mqlab.store.mapped_file_queue import MappedFileQueue

_HEAD = struct.Struct(">ii")  # TOTALSIZE, MAGICCODE: enough to tell a message, a blank record and zeros apart
_CHECKPOINT = struct.Struct(">qqq")  # physicMsgTimestamp, logicsMsgTimestamp, indexMsgTimestamp


def _elide(rows: list, head: int | None, tail: int) -> tuple[list, int]:
    """``rows`` with the middle replaced by one ``None`` when ``head`` is given, and how many rows it stands for."""
    if head is None or len(rows) <= head + tail:
        return list(rows), 0
    return [*rows[:head], None, *rows[len(rows) - tail :]], len(rows) - head - tail


def format_time(millis: int, origin_ms: int | None = None) -> str:
    """``millis`` as epoch ms, followed by ``(+<ms>)`` since ``origin_ms`` when one is given (0 stays ``0``)."""
    if origin_ms is None or millis <= 0:
        return str(millis)
    return f"{millis} ({millis - origin_ms:+d} ms)"


# -- segments -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SegmentRow:
    """One segment file of a ``MappedFileQueue`` and how far data has gone in it."""

    name: str  # the 20-digit start offset
    file_from_offset: int
    file_size: int
    wrote: int
    committed: int
    flushed: int

    @property
    def full(self) -> bool:
        """Whether nothing more can be appended (Java: ``MappedFile#isFull``)."""
        return self.wrote == self.file_size


def segments(mapped_file_queue: MappedFileQueue) -> list[SegmentRow]:
    """The queue's segment files in order, with their wrote / committed / flushed positions."""
    return [
        SegmentRow(
            mf.file.name,
            mf.file_from_offset,
            mf.file_size,
            mf.wrote_position,
            mf.committed_position,
            mf.flushed_position,
        )
        for mf in mapped_file_queue.mapped_files
    ]


def format_segments(mapped_file_queue: MappedFileQueue, *, committed: bool = False) -> str:
    """A table of the segments plus the queue's ``flushedWhere`` and max offset.

    ``committed`` adds the committed column, which only moves with TransientStorePool (without it
    ``MappedFile#commit`` returns the wrote position and leaves ``committedPosition`` alone).
    """
    head = f"{'segment file':<20}  {'from':>6}  {'wrote':>5}"
    head += f"  {'committed':>9}" if committed else ""
    rows = [head + f"  {'flushed':>7}  full"]
    for row in segments(mapped_file_queue):
        line = f"{row.name:<20}  {row.file_from_offset:>6}  {row.wrote:>5}"
        line += f"  {row.committed:>9}" if committed else ""
        rows.append(line + f"  {row.flushed:>7}  {'yes' if row.full else 'no'}")
    rows.append(f"flushedWhere={mapped_file_queue.flushed_where}  maxOffset={mapped_file_queue.get_max_offset()}")
    return "\n".join(rows)


def store_files(root: str | os.PathLike[str]) -> list[tuple[str, int]]:
    """Every file under the store root as (path relative to the root, size in bytes), sorted by path."""
    base = Path(root)
    found = [(path.relative_to(base).as_posix(), path.stat().st_size) for path in base.rglob("*") if path.is_file()]
    return sorted(found)


def format_store_files(root: str | os.PathLike[str]) -> str:
    """``store_files`` as aligned lines (no absolute path is ever printed)."""
    files = store_files(root)
    width = max((len(name) for name, _ in files), default=0)
    return "\n".join(f"{name:<{width}}  {size:>6} bytes" for name, size in files)


# -- CommitLog records --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RecordRow:
    """What sits at one position of a segment: a message, the blank end-of-file record, or unreadable bytes.

    For a blank record ``size`` is its TOTALSIZE, the bytes left in the file when it was written. For unreadable
    bytes ``problem`` says why (the decoder's message).
    """

    offset: int  # absolute CommitLog offset
    kind: str  # "message", "blank" or "unreadable"
    size: int
    queue_id: int = -1
    queue_offset: int = -1
    store_timestamp: int = 0
    topic: str = ""
    tags: str = ""
    keys: str = ""
    problem: str = ""


def records(data: bytes | bytearray | memoryview, file_from_offset: int = 0) -> list[RecordRow]:
    """Walk the records of one segment's bytes from position 0.

    The walk ends at the blank record (the file's end), at zeros (bytes never written), or after the first bytes
    that are not a valid record (reported as one ``unreadable`` row).
    """
    rows: list[RecordRow] = []
    pos, end = 0, len(data)
    while pos + _HEAD.size <= end:
        total, magic = _HEAD.unpack_from(data, pos)
        offset = file_from_offset + pos
        if magic == layout.BLANK_MAGIC_CODE:
            rows.append(RecordRow(offset, "blank", total))
            break
        if total == 0 and magic == 0:
            break
        try:
            where = f"segment {offset2file_name(file_from_offset)}"
            msg = message_decoder.decode(data, pos, check_crc=True, where=where)
        except MessageFormatError as exc:
            rows.append(RecordRow(offset, "unreadable", total, problem=str(exc)))
            break
        rows.append(
            RecordRow(
                offset,
                "message",
                msg.store_size,
                msg.queue_id,
                msg.queue_offset,
                msg.store_timestamp,
                msg.topic or "",
                msg.get_tags() or "",
                msg.get_keys() or "",
            )
        )
        pos += msg.store_size
    return rows


def segment_records(mapped_file: MappedFile) -> list[RecordRow]:
    """The records of a live segment, up to its wrote position."""
    data = mapped_file.slice_byte_buffer()[: mapped_file.wrote_position]
    return records(data, mapped_file.file_from_offset)


def file_records(path: str | os.PathLike[str]) -> list[RecordRow]:
    """The records of a segment file as it is on disk (for a store that is stopped or crashed)."""
    file = Path(path)
    return records(file.read_bytes(), int(file.name))


def format_records(
    rows: list[RecordRow], *, origin_ms: int | None = None, head: int | None = None, tail: int = 0
) -> str:
    """A table of record rows; with ``head``, only the first ``head`` and last ``tail`` rows are shown."""
    out = [
        f"{'offset':>6}  {'size':>4}  {'kind':<10}  {'queue':>5}  {'qoffset':>7}  {'keys':<10}  {'tags':<4}  store time"
    ]
    shown, hidden = _elide(rows, head, tail)
    for row in shown:
        if row is None:
            out.append(f"{'...':>6}  ({hidden} more)")
        elif row.kind == "message":
            out.append(
                f"{row.offset:>6}  {row.size:>4}  {row.kind:<10}  {row.queue_id:>5}  {row.queue_offset:>7}  "
                f"{row.keys:<10}  {row.tags:<4}  {format_time(row.store_timestamp, origin_ms)}"
            )
        elif row.kind == "blank":
            out.append(
                f"{row.offset:>6}  {row.size:>4}  {row.kind:<10}  "
                f"(magic 0xCBD43194: the {row.size} bytes up to the end of the file are not used)"
            )
        else:
            out.append(f"{row.offset:>6}  {row.size:>4}  {row.kind:<10}  {row.problem}")
    return "\n".join(out)


def hex_dump(data: bytes | bytearray | memoryview, start: int = 0, *, width: int = 16) -> str:
    """Lines of ``<offset>  <hex in groups of 4 bytes>``; ``start`` is the offset of ``data[0]``."""
    lines = []
    for i in range(0, len(data), width):
        chunk = bytes(data[i : i + width]).hex().upper()
        groups = " ".join(chunk[j : j + 8] for j in range(0, len(chunk), 8))
        lines.append(f"{start + i:>6}  {groups}")
    return "\n".join(lines)


def changed_fields(before: bytes, after: bytes) -> list[str]:
    """The fields whose bytes differ between two encodings of the same record, one line per field.

    Both records must have the same shape (same lengths); they are cut with ``record_dump``.
    """
    lines = []
    for old, new in zip(dump_record(before), dump_record(after), strict=True):
        if old.raw != new.raw:
            lines.append(f"{old.name:<15} at {old.offset:>2}: {old.raw.hex().upper()} -> {new.raw.hex().upper()}")
    return lines


# -- ConsumeQueue units -------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ConsumeQueueUnitRow:
    """One 20-byte unit: ``commitLogOffset`` (long) | ``size`` (int) | ``tagsCode`` (long)."""

    queue_offset: int
    file_name: str
    position: int  # byte position inside that file
    commit_log_offset: int
    size: int
    tags_code: int
    raw: bytes


def _units(data: bytes | bytearray | memoryview, file_name: str, file_from_offset: int) -> list[ConsumeQueueUnitRow]:
    rows = []
    for pos in range(0, len(data) - CQ_STORE_UNIT_SIZE + 1, CQ_STORE_UNIT_SIZE):
        offset, size, tags_code = UNIT.unpack_from(data, pos)
        raw = bytes(data[pos : pos + CQ_STORE_UNIT_SIZE])
        queue_offset = (file_from_offset + pos) // CQ_STORE_UNIT_SIZE
        rows.append(ConsumeQueueUnitRow(queue_offset, file_name, pos, offset, size, tags_code, raw))
    return rows


def consume_queue_units(queue: ConsumeQueue) -> list[ConsumeQueueUnitRow]:
    """The units of a live queue, file by file, up to each file's wrote position."""
    rows = []
    for mf in queue.mapped_file_queue.mapped_files:
        rows += _units(mf.slice_byte_buffer()[: mf.wrote_position], mf.file.name, mf.file_from_offset)
    return rows


def file_units(path: str | os.PathLike[str]) -> list[ConsumeQueueUnitRow]:
    """The units of a ConsumeQueue file as it is on disk, stopping before the first all-zero unit."""
    file = Path(path)
    rows = _units(file.read_bytes(), file.name, int(file.name))
    for index, row in enumerate(rows):
        if row.raw == bytes(CQ_STORE_UNIT_SIZE):
            return rows[:index]
    return rows


def format_units(rows: list[ConsumeQueueUnitRow], *, head: int | None = None, tail: int = 0) -> str:
    """A table of units with their raw bytes split as ``offset size tagsCode``."""
    out = [f"{'qoffset':>7}  {'file':<20}  {'pos':>3}  {'commitLogOffset':>15}  {'size':>4}  {'tagsCode':>11}  bytes"]
    shown, hidden = _elide(rows, head, tail)
    for row in shown:
        if row is None:
            out.append(f"{'...':>7}  ({hidden} more)")
            continue
        raw = row.raw.hex().upper()
        out.append(
            f"{row.queue_offset:>7}  {row.file_name:<20}  {row.position:>3}  {row.commit_log_offset:>15}  "
            f"{row.size:>4}  {row.tags_code:>11}  {raw[:16]} {raw[16:24]} {raw[24:]}"
        )
    return "\n".join(out)


# -- checkpoint -----------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CheckpointView:
    """The three timestamps of a checkpoint (as a file holds them, or as a live ``StoreCheckpoint`` has them)."""

    physic_msg_timestamp: int
    logics_msg_timestamp: int
    index_msg_timestamp: int

    def get_min_timestamp(self) -> int:
        """The safe point abnormal recovery compares with: ``StoreCheckpoint#getMinTimestamp`` on these values."""
        return StoreCheckpoint.get_min_timestamp(self)  # type: ignore[arg-type]  # the store's own rule


def read_checkpoint_file(path: str | os.PathLike[str]) -> CheckpointView:
    """What the ``checkpoint`` file says now: its first 24 bytes (the rest of its 4096 bytes are zero)."""
    return CheckpointView(*_CHECKPOINT.unpack_from(Path(path).read_bytes(), 0))


def checkpoint_in_memory(checkpoint: StoreCheckpoint) -> CheckpointView:
    """What a live ``StoreCheckpoint`` holds (the file catches up only at ``StoreCheckpoint#flush``)."""
    return CheckpointView(
        checkpoint.physic_msg_timestamp, checkpoint.logics_msg_timestamp, checkpoint.index_msg_timestamp
    )


def format_checkpoint(view: CheckpointView, *, origin_ms: int | None = None) -> str:
    """One line per field, plus the min timestamp recovery would use."""
    return "\n".join(
        [
            f"physicMsgTimestamp  {format_time(view.physic_msg_timestamp, origin_ms)}",
            f"logicsMsgTimestamp  {format_time(view.logics_msg_timestamp, origin_ms)}",
            f"indexMsgTimestamp   {format_time(view.index_msg_timestamp, origin_ms)}",
            f"getMinTimestamp()   {format_time(view.get_min_timestamp(), origin_ms)}",
        ]
    )


# -- abnormal recovery's starting segment --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RecoveryCandidate:
    """A segment file as ``CommitLog#recoverAbnormally`` judges it: by its first record."""

    name: str
    first_kind: str  # "message", "blank", "nothing" (zeros) or "other" (neither magic code)
    first_store_timestamp: int
    qualifies: bool  # a message stored at or before the min timestamp (CommitLog#isMappedFileMatchedRecover)


def recovery_candidates(commit_log_dir: str | os.PathLike[str], min_timestamp: int) -> list[RecoveryCandidate]:
    """Every segment file on disk, newest first, with whether abnormal recovery may start from it.

    Recovery starts from the first one that qualifies in this order (from the first file when none does).
    """
    result = []
    for path in sorted(Path(commit_log_dir).iterdir(), reverse=True):
        data = path.read_bytes()
        total, magic = _HEAD.unpack_from(data, 0)
        kind = "nothing" if total == 0 and magic == 0 else "message" if magic == layout.MESSAGE_MAGIC_CODE else "other"
        stamp = 0
        if kind == "message":
            sys_flag = struct.unpack_from(">i", data, layout.SYSFLAG_POSITION)[0]
            stamp = struct.unpack_from(">q", data, layout.store_timestamp_position(sys_flag))[0]
        elif magic == layout.BLANK_MAGIC_CODE:
            kind = "blank"
        result.append(RecoveryCandidate(path.name, kind, stamp, kind == "message" and 0 < stamp <= min_timestamp))
    return result


def format_recovery_candidates(candidates: list[RecoveryCandidate], *, origin_ms: int | None = None) -> str:
    """The candidates, newest first, marking the one abnormal recovery starts from."""
    start = next((c.name for c in candidates if c.qualifies), candidates[-1].name if candidates else None)
    out = [f"{'segment file':<20}  {'first record':<12}  {'first store time':<26}  <= min?"]
    for c in candidates:
        stamp = format_time(c.first_store_timestamp, origin_ms) if c.first_kind == "message" else "-"
        mark = "  <- recovery starts here" if c.name == start else ""
        out.append(f"{c.name:<20}  {c.first_kind:<12}  {stamp:<26}  {'yes' if c.qualifies else 'no':<6}{mark}")
    return "\n".join(out)

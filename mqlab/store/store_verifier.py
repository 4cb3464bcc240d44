"""Checks every invariant of a store directory's on-disk format, without opening it as a store.

Java: none (teaching and support tool: ``mqlab store verify``). It reads the files as bytes (no lock, no mapping,
no recovery), so it can run on a live store's copy or on what a crash left behind, and reports each problem with
the file and the byte where it is.

Checks:

* CommitLog: segment names are their 20-digit start offsets, all segments have one size and follow each other
  without gaps; every record decodes (magic, lengths, body CRC) with PHYSICALOFFSET equal to its real offset; a
  full segment ends in a blank record whose TOTALSIZE is the bytes left; queue offsets of each queue are dense.
* ConsumeQueue: files are multiples of 20 bytes named by byte offset; each unit (except leading filler units)
  points inside the CommitLog at a record of that size whose topic, queue id and QUEUEOFFSET match the unit, and
  whose tags code matches its TAGS; records newer than the oldest unit of their queue all have a unit.
* Index files: header fields are consistent and each entry's key hash belongs to a key of the record it points at.
* Checkpoint: present and readable.
"""

from __future__ import annotations

import mmap
import struct
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from mqlab.common import util_all
from mqlab.common.jdk.string_hash import java_int_abs, java_string_hash
from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message_decoder import string2message_properties
from mqlab.common.message.message_errors import MessageFormatError
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.common.topic.topic_validator import RMQ_SYS_SCHEDULE_TOPIC

_HEAD = struct.Struct(">ii")
_UNIT = struct.Struct(">qiq")
_INDEX_HEADER = struct.Struct(">qqqqii")
_INDEX_ENTRY = struct.Struct(">iqii")
_TRAN_MASK = int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE)
_NOT_DISPATCHED = (int(MessageSysFlag.TRANSACTION_PREPARED_TYPE), int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE))
BLANK_UNIT_SIZE = 0x7FFFFFFF


@dataclass(frozen=True, slots=True)
class Problem:
    """One broken invariant: which file, where, and what."""

    file: str
    position: int | None
    what: str

    def __str__(self) -> str:
        where = f" at byte {self.position}" if self.position is not None else ""
        return f"{self.file}{where}: {self.what}"


@dataclass(slots=True)
class RecordInfo:
    """What the verifier keeps of each CommitLog record."""

    size: int
    topic: str
    queue_id: int
    queue_offset: int
    sys_flag: int
    tags_code: int
    keys: list[str]


@dataclass(slots=True)
class VerifyReport:
    """Everything found: counts per file kind and the problems."""

    problems: list[Problem] = field(default_factory=list)
    segments: int = 0
    records: int = 0
    consume_queues: int = 0
    units: int = 0
    index_files: int = 0
    index_entries: int = 0

    @property
    def ok(self) -> bool:
        """No problem found."""
        return not self.problems

    def lines(self) -> list[str]:
        """A summary line, then one line per problem."""
        head = (
            f"{self.segments} CommitLog segment(s), {self.records} record(s); {self.consume_queues} ConsumeQueue(s), "
            f"{self.units} unit(s); {self.index_files} index file(s), {self.index_entries} entr(ies): "
            + ("OK" if self.ok else f"{len(self.problems)} problem(s)")
        )
        return [head] + [str(p) for p in self.problems]


class StoreVerifier:
    """Verifies one store directory (``commitlog/``, ``consumequeue/``, ``index/``, ``checkpoint``).

    Args:
        root: the store root (``storePathRootDir``).
        commit_log_dir: defaults to ``<root>/commitlog``.
        max_hash_slot_num: slots per index file (to find the entries; 4.9.3's default 5,000,000).
    """

    def __init__(
        self, root: str | Path, *, commit_log_dir: str | Path | None = None, max_hash_slot_num: int = 5_000_000
    ):
        self.root = Path(root)
        self.commit_log_dir = Path(commit_log_dir) if commit_log_dir is not None else self.root / "commitlog"
        self.max_hash_slot_num = max_hash_slot_num
        self.report = VerifyReport()
        self.records: dict[int, RecordInfo] = {}
        self.commit_log_min = 0
        self.commit_log_max = 0

    def problem(self, path: Path, position: int | None, what: str) -> None:
        """Record a problem (paths are shown relative to the store root)."""
        try:
            name = str(path.relative_to(self.root))
        except ValueError:
            name = path.name
        self.report.problems.append(Problem(name, position, what))

    def verify(self) -> VerifyReport:
        """Run every check."""
        if not self.root.is_dir():
            self.problem(self.root, None, "store directory does not exist")
            return self.report
        self.verify_commit_log()
        self.verify_consume_queues()
        self.verify_index_files()
        self.verify_checkpoint()
        return self.report

    # -- CommitLog -------------------------------------------------------------------------------------------
    def verify_commit_log(self) -> None:
        """Segments, records, blank records, dense queue offsets."""
        files = sorted(p for p in self.commit_log_dir.iterdir() if p.is_file()) if self.commit_log_dir.is_dir() else []
        sizes = {p.stat().st_size for p in files if p.name.isdigit()}
        if len(sizes) > 1:
            self.problem(self.commit_log_dir, None, f"segments have different sizes: {sorted(sizes)}")
        expected_start = None
        next_queue_offset: dict[tuple[str, int], int] = {}
        for index, path in enumerate(files):
            if not path.name.isdigit() or len(path.name) != 20:
                self.problem(path, None, "not a segment: the name is not a 20-digit offset")
                continue
            start = int(path.name)
            if index == 0:
                self.commit_log_min = start
            if expected_start is not None and start != expected_start:
                self.problem(path, None, f"gap: the previous segment ends at {expected_start}")
            data = path.read_bytes()
            expected_start = start + len(data)
            self.report.segments += 1
            end = self._verify_segment(path, start, data, is_last=index == len(files) - 1, queues=next_queue_offset)
            self.commit_log_max = start + end

    def _verify_segment(self, path: Path, start: int, data: bytes, *, is_last: bool, queues) -> int:
        pos = 0
        size = len(data)
        while pos + 8 <= size:
            total, magic = _HEAD.unpack_from(data, pos)
            if magic == layout.BLANK_MAGIC_CODE:
                if total != size - pos:
                    self.problem(path, pos, f"blank record says {total} bytes left but {size - pos} are")
                return pos
            if magic == 0 and total == 0:
                if data[pos:].strip(b"\x00"):
                    self.problem(path, pos, "non-zero bytes after the end of the data (a torn or foreign write)")
                if not is_last:
                    self.problem(path, pos, "segment ends without a blank record but is not the last one")
                return pos
            try:
                raw = layout.decode_raw(data, pos, base=start, where=str(path.name))
            except MessageFormatError as exc:
                self.problem(path, pos, f"undecodable record: {exc}")
                return pos
            if raw.body is not None and util_all.crc32(raw.body) != raw.body_crc:
                self.problem(path, pos, f"body CRC {raw.body_crc} does not match the body's {util_all.crc32(raw.body)}")
            if raw.physical_offset != start + pos:
                self.problem(path, pos, f"PHYSICALOFFSET is {raw.physical_offset}, the record is at {start + pos}")
            info = self._record_info(raw)
            self.records[start + pos] = info
            self.report.records += 1
            if info.sys_flag & _TRAN_MASK not in _NOT_DISPATCHED:
                key = (info.topic, info.queue_id)
                expected = queues.get(key)
                if expected is not None and info.queue_offset != expected:
                    self.problem(
                        path, pos, f"{info.topic}/{info.queue_id}: QUEUEOFFSET {info.queue_offset}, expected {expected}"
                    )
                queues[key] = info.queue_offset + 1
            pos += raw.total_size
        return pos

    @staticmethod
    def _record_info(raw: layout.RawRecord) -> RecordInfo:
        topic = raw.topic.decode("utf-8", "replace")
        props = string2message_properties(raw.properties.decode("utf-8", "replace"), dict) if raw.properties else {}
        tags = props.get("TAGS")
        tags_code = java_string_hash(tags) if tags else 0
        keys = [f"{topic}#{k}" for k in (props.get("KEYS") or "").split(" ") if k]
        if props.get("UNIQ_KEY"):
            keys.append(f"{topic}#{props['UNIQ_KEY']}")
        return RecordInfo(raw.total_size, topic, raw.queue_id, raw.queue_offset, raw.sys_flag, tags_code, keys)

    # -- ConsumeQueues ---------------------------------------------------------------------------------------
    def verify_consume_queues(self) -> None:
        """Units against records, and completeness of each queue."""
        cq_root = self.root / "consumequeue"
        if not cq_root.is_dir():
            return
        covered: dict[tuple[str, int], set[int]] = defaultdict(set)
        oldest: dict[tuple[str, int], int] = {}
        for topic_dir in sorted(p for p in cq_root.iterdir() if p.is_dir()):
            for queue_dir in sorted(p for p in topic_dir.iterdir() if p.is_dir()):
                if not queue_dir.name.isdigit():
                    self.problem(queue_dir, None, "queue directory name is not a number")
                    continue
                self.report.consume_queues += 1
                key = (topic_dir.name, int(queue_dir.name))
                for path in sorted(p for p in queue_dir.iterdir() if p.is_file()):
                    self._verify_cq_file(path, key, covered[key], oldest)
        for offset, info in self.records.items():
            key = (info.topic, info.queue_id)
            if info.sys_flag & _TRAN_MASK in _NOT_DISPATCHED or key not in oldest or offset < oldest[key]:
                continue
            if offset not in covered[key]:
                self.problem(
                    self.commit_log_dir, offset, f"record of {info.topic}/{info.queue_id} has no ConsumeQueue unit"
                )

    def _verify_cq_file(self, path: Path, key: tuple[str, int], covered: set[int], oldest: dict) -> None:
        if not path.name.isdigit():
            self.problem(path, None, "not a ConsumeQueue file: the name is not an offset")
            return
        data = path.read_bytes()
        if len(data) % 20:
            self.problem(path, None, f"size {len(data)} is not a multiple of 20")
        base = int(path.name)
        if base % 20:
            self.problem(path, None, "the name is not a multiple of 20")
        for pos in range(0, len(data) - len(data) % 20, 20):
            offset, size, tags_code = _UNIT.unpack_from(data, pos)
            if offset == 0 and size == 0 and tags_code == 0:
                break  # end of the written units
            if offset == 0 and size == BLANK_UNIT_SIZE and tags_code == 0:
                continue  # filler before the queue's first real unit
            self.report.units += 1
            queue_offset = (base + pos) // 20
            oldest[key] = min(oldest.get(key, offset), offset)
            covered.add(offset)
            self._verify_unit(path, pos, key, queue_offset, offset, size, tags_code)

    def _verify_unit(
        self, path: Path, pos: int, key, queue_offset: int, offset: int, size: int, tags_code: int
    ) -> None:
        if offset + size > self.commit_log_max:
            self.problem(
                path,
                pos,
                f"unit {queue_offset} points past the CommitLog end ({offset}+{size} > {self.commit_log_max})",
            )
            return
        if offset < self.commit_log_min:
            return  # its segment was cleaned: readers get OFFSET_TOO_SMALL / MESSAGE_WAS_REMOVING
        info = self.records.get(offset)
        if info is None:
            self.problem(path, pos, f"unit {queue_offset} points at {offset}, where no record starts")
            return
        if info.size != size:
            self.problem(path, pos, f"unit {queue_offset} says {size} bytes, the record has {info.size}")
        if (info.topic, info.queue_id) != key:
            self.problem(path, pos, f"unit {queue_offset} points at a record of {info.topic}/{info.queue_id}")
        if info.queue_offset != queue_offset:
            self.problem(path, pos, f"unit {queue_offset} points at a record with QUEUEOFFSET {info.queue_offset}")
        if info.topic != RMQ_SYS_SCHEDULE_TOPIC and info.tags_code != tags_code:
            self.problem(
                path, pos, f"unit {queue_offset} has tags code {tags_code}, the record's TAGS give {info.tags_code}"
            )

    # -- index files and checkpoint ----------------------------------------------------------------------------
    def verify_index_files(self) -> None:
        """Header consistency and each entry's key hash against its record."""
        index_dir = self.root / "index"
        if not index_dir.is_dir():
            return
        for path in sorted(p for p in index_dir.iterdir() if p.is_file()):
            self.report.index_files += 1
            if path.stat().st_size < _INDEX_HEADER.size:
                self.problem(path, None, "shorter than the 40-byte header")
                continue
            # Mapped, not read: an index file is mostly holes (420 MB with the default sizes), and only its header
            # and its used entries are looked at.
            with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
                self._verify_index_file(path, data)

    def _verify_index_file(self, path: Path, data: mmap.mmap) -> None:
        """One index file: the header fits the slot count, each used entry links back and names its record."""
        _b_ts, _e_ts, _b_phy, _e_phy, _slots_used, index_count = _INDEX_HEADER.unpack_from(data, 0)
        entries_start = _INDEX_HEADER.size + self.max_hash_slot_num * 4
        if (len(data) - entries_start) % 20 or len(data) < entries_start:
            self.problem(path, None, f"size {len(data)} does not fit maxHashSlotNum {self.max_hash_slot_num}")
            return
        for number in range(1, max(index_count, 1)):
            pos = entries_start + number * 20
            key_hash, phy, _diff, prev = _INDEX_ENTRY.unpack_from(data, pos)
            self.report.index_entries += 1
            if not 0 <= prev < number:
                self.problem(path, pos, f"entry {number} links to entry {prev}, not an earlier one")
            if phy < self.commit_log_min:
                continue
            info = self.records.get(phy)
            if info is None:
                self.problem(path, pos, f"entry {number} points at {phy}, where no record starts")
            elif key_hash not in {max(java_int_abs(java_string_hash(k)), 0) for k in info.keys}:
                self.problem(path, pos, f"entry {number}'s key hash {key_hash} is no key of the record at {phy}")

    def verify_checkpoint(self) -> None:
        """The checkpoint holds three readable timestamps."""
        path = self.root / "checkpoint"
        if self.report.segments and not path.exists():
            self.problem(path, None, "missing (recovery after a crash then starts from the first segment)")
        elif path.exists() and path.stat().st_size < 24:
            self.problem(path, None, "shorter than its three 8-byte timestamps")


def verify_store(root: str | Path, **kwargs) -> VerifyReport:
    """Verify a store directory (see ``StoreVerifier``)."""
    return StoreVerifier(root, **kwargs).verify()

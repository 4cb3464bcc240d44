"""One index file: a fixed-size hash table from ``topic#key`` to CommitLog offsets, with chaining in place.

Java: org.apache.rocketmq.store.index.IndexFile (rocketmq-all-4.9.3)

Layout (all integers big-endian), declared once below and derived everywhere else::

    [header: 40 bytes][slots: hashSlotNum x 4 bytes][entries: indexNum x 20 bytes]

A key's hash is ``abs(String.hashCode)`` (0 for ``Integer.MIN_VALUE``) and its slot is ``hash % hashSlotNum``. A slot
holds the number of the newest entry that fell into it (0: none). Each entry stores the key's hash, the message's
CommitLog offset, its store time as whole seconds after the header's ``beginTimestamp``, and the number of the
previous entry of the same slot, so a slot is the head of a singly linked list running back in time. Entries are
numbered from 1 (entry 0 is the unused space right after the slots), so a file holds ``indexNum - 1`` entries.

The file never stores a key's text: two keys with the same hash are indistinguishable here, and the reader of the
messages must compare the keys (see ``mqlab.store.index.key_check``).

mqlab creates index files sparse, as Java's ``RandomAccessFile`` mapping does: a default file is 420,000,040 bytes
but only the pages written take disk space. Writing a page of a sparse mapping when the disk is full kills the
process with SIGBUS, so mqlab reserves blocks before it writes them (HARD-3): the header and the slots when the file
is created or loaded, the entries ``ENTRY_RESERVE_BYTES`` at a time as they fill up. A reservation the disk refuses
makes ``put_key`` fail like a full file, and the index service then stops as Java's does when it cannot create a file
(the store's index error bit: puts answer SERVICE_NOT_AVAILABLE). (mqlab's CommitLog segments reserve all their
blocks at creation.)
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mqlab.common.jdk.string_hash import java_string_hash_by_prefix
from mqlab.store.index.index_header import INDEX_HEADER_SIZE, IndexHeader
from mqlab.store.mapped_file import MappedFile
from mqlab.store.store_errors import MappedFileCreateError

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime

HASH_SLOT_SIZE = 4
INDEX_SIZE = 20
INVALID_INDEX = 0
ENTRY_RESERVE_BYTES = 1 << 20  # entries' blocks are reserved this many bytes at a time (52,428 entries)
_INT_MAX = 2**31 - 1
_INT_MIN = -(2**31)


@dataclass(frozen=True, slots=True)
class EntryField:
    """One field of a 20-byte index entry: Java name, Python attribute, offset in the entry, struct code."""

    java_name: str
    attr: str
    offset: int
    code: str
    meaning: str


ENTRY_FIELDS: tuple[EntryField, ...] = (
    EntryField("keyHash", "key_hash", 0, "i", "abs(hashCode) of topic#key"),
    EntryField("phyOffset", "phy_offset", 4, "q", "CommitLog offset of the message"),
    EntryField("timeDiff", "time_diff", 12, "i", "seconds between the header's beginTimestamp and the store time"),
    EntryField("prevIndex", "prev_index", 16, "i", "previous entry of the same slot (0: end of chain)"),
)
_ENTRY = struct.Struct(">" + "".join(f.code for f in ENTRY_FIELDS))
_SLOT = struct.Struct(">i")
assert _ENTRY.size == INDEX_SIZE and _SLOT.size == HASH_SLOT_SIZE


# -- the layout as arithmetic (usable without creating a file) -------------------------------------------------------
def index_file_size(hash_slot_num: int, index_num: int) -> int:
    """Bytes of a file with that many slots and entries (420,000,040 with the defaults).

    Java: the ``fileTotalSize`` computed in IndexFile#IndexFile
    """
    return INDEX_HEADER_SIZE + hash_slot_num * HASH_SLOT_SIZE + index_num * INDEX_SIZE


def index_key_hash(key: str) -> int:
    """``abs(key.hashCode())``, with ``Integer.MIN_VALUE`` (whose abs stays negative) mapped to 0.

    Java: IndexFile#indexKeyHashMethod (``topic#key`` strings share prefixes: see java_string_hash_by_prefix)
    """
    key_hash = java_string_hash_by_prefix(key)
    if key_hash >= 0:
        return key_hash
    return -key_hash if key_hash != _INT_MIN else 0  # Math.abs(Integer.MIN_VALUE) stays negative


def slot_pos_of(key_hash: int, hash_slot_num: int) -> int:
    """Which slot a key hash falls into."""
    return key_hash % hash_slot_num


def abs_slot_pos(slot_pos: int) -> int:
    """Byte position of slot ``slot_pos`` in the file."""
    return INDEX_HEADER_SIZE + slot_pos * HASH_SLOT_SIZE


def abs_index_pos(hash_slot_num: int, index: int) -> int:
    """Byte position of entry number ``index`` (1-based; 0 is never written) in the file."""
    return INDEX_HEADER_SIZE + hash_slot_num * HASH_SLOT_SIZE + index * INDEX_SIZE


def _java_long_div(a: int, b: int) -> int:
    """Java's ``long / long``: truncates toward zero (Python's ``//`` floors)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One decoded entry, with its number: what a notebook prints while walking a slot chain.

    Java: none (the four fields are read one by one in IndexFile#selectPhyOffset)
    """

    number: int
    key_hash: int
    phy_offset: int
    time_diff: int
    prev_index: int


class IndexFile:
    """An index file mapped into memory.

    Args:
        file_name: path; the name is the creation time as ``yyyyMMddHHmmssSSS``.
        hash_slot_num: slots in the file (``maxHashSlotNum``).
        index_num: entries in the file, entry 0 included (``maxIndexNum``).
        end_phy_offset: for a file that follows a full one, the previous file's ``endPhyOffset`` (else 0).
        end_timestamp: likewise, the previous file's ``endTimestamp`` (else 0).
        runtime: clock and trace for the mapped file.
    """

    def __init__(
        self,
        file_name: str | Path,
        hash_slot_num: int,
        index_num: int,
        end_phy_offset: int,
        end_timestamp: int,
        *,
        runtime: Runtime,
    ):
        file_total_size = index_file_size(hash_slot_num, index_num)
        created = _create_sparse(Path(file_name), file_total_size)
        self.mapped_file = MappedFile(file_name, file_total_size, runtime=runtime)
        self.mapped_byte_buffer = self.mapped_file.mapped_byte_buffer
        self.hash_slot_num = hash_slot_num
        self.index_num = index_num
        self._entries_pos = abs_index_pos(hash_slot_num, 0)  # where entry 0 would start
        self._reserved_end = 0  # blocks below this position are reserved (entries: reserved as they fill up)
        self.write_refused = False  # the disk refused the next entries' blocks: the file counts as full
        try:
            self.mapped_file.reserve(0, self._entries_pos)
        except OSError as exc:
            if created:
                self.mapped_file.destroy(0)
            else:
                self.mapped_file.close()
            raise MappedFileCreateError(
                f"cannot reserve the header and slots of index file {file_name} ({self._entries_pos} bytes): {exc}"
            ) from exc
        self._reserved_end = self._entries_pos
        self.index_header = IndexHeader(self.mapped_byte_buffer)
        # The last (store time, begin time) -> timeDiff computed: a record's keys share one store time.
        self._last_time_diff = (None, None, 0)
        # A file that continues a full one starts where that one ended, so buildIndex's "already indexed" check
        # and the time-range check of a query keep working across the boundary before the first entry lands.
        if end_phy_offset > 0:
            self.index_header.begin_phy_offset = end_phy_offset
            self.index_header.end_phy_offset = end_phy_offset
        if end_timestamp > 0:
            self.index_header.begin_timestamp = end_timestamp
            self.index_header.end_timestamp = end_timestamp

    # -- life cycle ----------------------------------------------------------------------------------------------
    @property
    def file_name(self) -> str:
        """The file's path as given. Java: IndexFile#getFileName."""
        return self.mapped_file.file_name

    @property
    def name(self) -> str:
        """The file's base name (``yyyyMMddHHmmssSSS``)."""
        return self.mapped_file.file.name

    def load(self) -> None:
        """Read the header from the file. Java: IndexFile#load."""
        self.index_header.load()

    def flush(self) -> None:
        """Write the whole header, then force the mapping to disk.

        Java: IndexFile#flush
        """
        if self.mapped_file.hold():
            try:
                self.index_header.update_byte_buffer()
                self.mapped_file.force()
            finally:
                self.mapped_file.release()

    def is_write_full(self) -> bool:
        """``indexCount >= indexNum``: the next entry number would lie past the end.

        Java: IndexFile#isWriteFull (mqlab: also once the disk refused the blocks of its next entries, HARD-3)
        """
        return self.index_header.index_count >= self.index_num or self.write_refused

    def destroy(self, interval_forcibly_ms: int) -> bool:
        """Unmap and delete the file. Java: IndexFile#destroy."""
        return self.mapped_file.destroy(interval_forcibly_ms)

    def close(self) -> None:
        """Unmap without deleting (store shutdown). Java: none (the JVM drops its mappings at exit)."""
        self.mapped_file.close()

    # -- writing -------------------------------------------------------------------------------------------------
    def put_key(self, key: str, phy_offset: int, store_timestamp: int) -> bool:
        """Add one entry for ``key`` at the head of its slot's chain; ``False`` when the file is full.

        Java: IndexFile#putKey
        """
        header = self.index_header
        index_count = header.index_count
        if index_count >= self.index_num:
            return False
        buf = self.mapped_byte_buffer
        key_hash = self.index_key_hash_method(key)
        slot_position = INDEX_HEADER_SIZE + (key_hash % self.hash_slot_num) * HASH_SLOT_SIZE  # abs_slot_pos
        slot_value = _SLOT.unpack_from(buf, slot_position)[0]
        # A value that cannot be an entry of this file (a half-written or foreign slot) counts as an empty slot.
        if slot_value <= INVALID_INDEX or slot_value > index_count:
            slot_value = INVALID_INDEX
        last_store, last_begin, time_diff = self._last_time_diff  # a record's second key: its first key's value
        if store_timestamp != last_store or header.begin_timestamp != last_begin:
            time_diff = self._time_diff_seconds(store_timestamp)
        index_position = self._entries_pos + index_count * INDEX_SIZE  # abs_index_pos
        if index_position + INDEX_SIZE > self._reserved_end and not self._reserve_entries(index_position):
            return False
        _ENTRY.pack_into(buf, index_position, key_hash, phy_offset, time_diff, slot_value)
        _SLOT.pack_into(buf, slot_position, index_count)
        # The first entry fixes where the file begins. In a rolled file its timeDiff was computed against the
        # inherited beginTimestamp just above; both are Java's order, kept as is.
        header.entry_added(phy_offset, store_timestamp, slot_value == INVALID_INDEX)  # positional: twice a record
        return True

    def _reserve_entries(self, position: int) -> bool:
        """Reserve the next ``ENTRY_RESERVE_BYTES`` of entries from ``position``; ``False`` if the disk refuses."""
        end = min(position + ENTRY_RESERVE_BYTES, self.mapped_file.file_size)
        try:
            self.mapped_file.reserve(position, end - position)
        except OSError as exc:
            self.mapped_file.runtime.trace_event("IndexFile", "reserveFailed", file=self.name, error=str(exc))
            self.write_refused = True
            return False
        self._reserved_end = end
        return True

    def _time_diff_seconds(self, store_timestamp: int) -> int:
        """Whole seconds after ``beginTimestamp``: 0 for a file with no begin time or a store time before it."""
        begin = self.index_header.begin_timestamp
        last_store, last_begin, last_diff = self._last_time_diff
        if store_timestamp == last_store and begin == last_begin:
            return last_diff  # the record's previous key
        time_diff = _java_long_div(store_timestamp - begin, 1000)
        if begin <= 0:
            time_diff = 0
        elif time_diff > _INT_MAX:
            time_diff = _INT_MAX
        else:
            time_diff = max(time_diff, 0)
        self._last_time_diff = (store_timestamp, begin, time_diff)
        return time_diff

    # The key's hash as stored. Java: IndexFile#indexKeyHashMethod (the module function, without a wrapper frame).
    index_key_hash_method = staticmethod(index_key_hash)

    # -- header values -------------------------------------------------------------------------------------------
    @property
    def begin_timestamp(self) -> int:
        """Java: IndexFile#getBeginTimestamp."""
        return self.index_header.begin_timestamp

    @property
    def end_timestamp(self) -> int:
        """Java: IndexFile#getEndTimestamp."""
        return self.index_header.end_timestamp

    @property
    def end_phy_offset(self) -> int:
        """Java: IndexFile#getEndPhyOffset."""
        return self.index_header.end_phy_offset

    # -- reading -------------------------------------------------------------------------------------------------
    def is_time_matched(self, begin: int, end: int) -> bool:
        """Whether ``[begin, end]`` overlaps the file's ``[beginTimestamp, endTimestamp]``.

        Java: IndexFile#isTimeMatched
        """
        file_begin, file_end = self.index_header.begin_timestamp, self.index_header.end_timestamp
        return (
            (begin < file_begin and end > file_end) or file_begin <= begin <= file_end or file_begin <= end <= file_end
        )

    def select_phy_offset(self, phy_offsets: list[int], key: str, max_num: int, begin: int, end: int) -> None:
        """Append to ``phy_offsets`` the offsets of entries whose hash equals the key's and whose time is in range.

        Walks the key's slot chain newest first and stops at the end of the chain, at a broken link, at an entry
        older than ``begin``, or once ``phy_offsets`` holds ``max_num`` offsets. Only hashes are compared.

        Java: IndexFile#selectPhyOffset (its ``lock`` argument guards a file lock that 4.9.3 comments out; left out)
        """
        if not self.mapped_file.hold():
            return
        try:
            header = self.index_header
            key_hash = self.index_key_hash_method(key)
            slot_value = self.read_slot(slot_pos_of(key_hash, self.hash_slot_num))
            if slot_value <= INVALID_INDEX or slot_value > header.index_count or header.index_count <= 1:
                return
            next_index_to_read = slot_value
            while len(phy_offsets) < max_num:
                entry = self.read_entry(next_index_to_read)
                if entry.time_diff < 0:
                    break
                time_read = header.begin_timestamp + entry.time_diff * 1000
                if entry.key_hash == key_hash and begin <= time_read <= end:
                    phy_offsets.append(entry.phy_offset)
                if self._chain_ends(entry, header.index_count) or time_read < begin:
                    break
                next_index_to_read = entry.prev_index
        finally:
            self.mapped_file.release()

    @staticmethod
    def _chain_ends(entry: IndexEntry, index_count: int) -> bool:
        """No previous entry, or a link that cannot be followed (out of range or pointing at itself)."""
        prev = entry.prev_index
        return prev <= INVALID_INDEX or prev > index_count or prev == entry.number

    # -- teaching readers ----------------------------------------------------------------------------------------
    def read_slot(self, slot_pos: int) -> int:
        """The raw value of slot ``slot_pos``: the newest entry number in it, 0 when empty.

        Java: none (read inline in IndexFile#putKey and #selectPhyOffset)
        """
        return _SLOT.unpack_from(self.mapped_byte_buffer, abs_slot_pos(slot_pos))[0]

    def read_entry(self, number: int) -> IndexEntry:
        """Entry ``number`` decoded.

        Java: none (read inline in IndexFile#selectPhyOffset)
        """
        fields = _ENTRY.unpack_from(self.mapped_byte_buffer, abs_index_pos(self.hash_slot_num, number))
        return IndexEntry(number, *fields)

    def walk_slot_chain(self, key: str) -> list[IndexEntry]:
        """Every entry in ``key``'s slot, newest first, whatever its hash or time: the chain a query walks.

        Java: none (teaching helper; the link rules are those of IndexFile#selectPhyOffset)
        """
        header = self.index_header
        slot_value = self.read_slot(slot_pos_of(self.index_key_hash_method(key), self.hash_slot_num))
        if slot_value <= INVALID_INDEX or slot_value > header.index_count:
            return []
        chain = [self.read_entry(slot_value)]
        while not self._chain_ends(chain[-1], header.index_count) and len(chain) < header.index_count:
            chain.append(self.read_entry(chain[-1].prev_index))
        return chain

    def __repr__(self) -> str:
        return f"IndexFile({self.name}, {self.index_header!r})"


def _create_sparse(path: Path, size: int) -> bool:
    """Create ``path`` as a sparse file of ``size`` bytes unless it exists; return whether it was created."""
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.truncate(size)
    return True

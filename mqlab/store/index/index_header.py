"""The 40-byte header at the start of every index file: time and offset range covered, and two counters.

Java: org.apache.rocketmq.store.index.IndexHeader (rocketmq-all-4.9.3)

The layout is declared once, in ``HEADER_FIELDS``; the header object, the tests and the spec page's table all read
it from there. Like Java's, the object keeps each value in memory and writes it through to the mapped bytes on
every change, so a file's header is current on disk without an explicit save (``update_byte_buffer`` rewrites all
six fields, which ``IndexFile#flush`` does before forcing the mapping).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

INDEX_HEADER_SIZE = 40


@dataclass(frozen=True, slots=True)
class HeaderField:
    """One header field: its Java name, the Python attribute, its byte offset and its struct code (big-endian)."""

    java_name: str
    attr: str
    offset: int
    code: str
    meaning: str

    @property
    def size(self) -> int:
        """Width in bytes."""
        return struct.calcsize(">" + self.code)

    @property
    def java_type(self) -> str:
        """``long`` or ``int``, as the spec tables name them."""
        return {"q": "long", "i": "int"}[self.code]


HEADER_FIELDS: tuple[HeaderField, ...] = (
    HeaderField("beginTimestamp", "begin_timestamp", 0, "q", "store time (ms) of the first message indexed"),
    HeaderField("endTimestamp", "end_timestamp", 8, "q", "store time (ms) of the last message indexed"),
    HeaderField("beginPhyOffset", "begin_phy_offset", 16, "q", "CommitLog offset of the first message indexed"),
    HeaderField("endPhyOffset", "end_phy_offset", 24, "q", "CommitLog offset of the last message indexed"),
    HeaderField("hashSlotCount", "hash_slot_count", 32, "i", "slots that received their first entry"),
    HeaderField("indexCount", "index_count", 36, "i", "number of the next entry to write (starts at 1)"),
)

_STRUCTS = {f.attr: struct.Struct(">" + f.code) for f in HEADER_FIELDS}
_OFFSETS = {f.attr: f.offset for f in HEADER_FIELDS}
_HEADER = struct.Struct(">" + "".join(f.code for f in HEADER_FIELDS))  # all six fields, in order
assert _HEADER.size == INDEX_HEADER_SIZE and [f.offset for f in HEADER_FIELDS] == sorted(_OFFSETS.values())


def decode_header(buf: Any) -> dict[str, int]:
    """All six fields as stored in ``buf`` (the file's first 40 bytes), by Python attribute name.

    Java: none (a reader for tests and notebooks; ``IndexHeader#load`` does the same into the object)
    """
    return {f.attr: _STRUCTS[f.attr].unpack_from(buf, f.offset)[0] for f in HEADER_FIELDS}


class _WriteThrough:
    """A field whose assignment also writes the header bytes; reading it is a plain attribute read.

    The descriptor defines ``__set__`` but no ``__get__``: Python then stores nothing special for reads and finds
    the value in the instance ``__dict__`` (where ``__set__`` puts it), as fast as any attribute. A ``property``
    would run a Python getter on every read, and the index reads these fields for every key.
    """

    def __init__(self, attr: str, doc: str):
        self.attr = attr
        self.__doc__ = doc
        self._struct = _STRUCTS[attr]
        self._offset = _OFFSETS[attr]

    def __set__(self, header: IndexHeader, value: int) -> None:
        header.__dict__[self.attr] = value
        self._struct.pack_into(header.byte_buffer, self._offset, value)


class IndexHeader:
    """The header of one index file, over the file's mapped bytes.

    Assigning ``begin_timestamp``, ``end_timestamp``, ``begin_phy_offset`` or ``end_phy_offset`` writes the bytes
    at once (Java's setters). The two counters change only through ``inc_hash_slot_count`` and
    ``inc_index_count``, and all six through ``entry_added``. A new header starts with ``index_count`` 1 in memory
    while the bytes still hold 0: entry number 0 is never used, so 0 on disk reads back as 1 (``load``).

    Args:
        byte_buffer: the mapped file (writable); the header occupies bytes 0-39.
    """

    begin_timestamp = _WriteThrough("begin_timestamp", "Store time (ms) of the first message indexed.")
    end_timestamp = _WriteThrough("end_timestamp", "Store time (ms) of the last message indexed.")
    begin_phy_offset = _WriteThrough("begin_phy_offset", "CommitLog offset of the first message indexed.")
    end_phy_offset = _WriteThrough("end_phy_offset", "CommitLog offset of the last message indexed.")

    def __init__(self, byte_buffer: Any):
        self.byte_buffer = byte_buffer
        # In memory only (the bytes of a new file are zero already; a loaded file's are read by ``load``).
        self.__dict__.update(begin_timestamp=0, end_timestamp=0, begin_phy_offset=0, end_phy_offset=0)
        self.hash_slot_count = 0
        self.index_count = 1

    def load(self) -> None:
        """Read the six fields from the bytes; an ``indexCount`` of 0 or less becomes 1.

        Java: IndexHeader#load
        """
        values = decode_header(self.byte_buffer)
        values["index_count"] = max(values["index_count"], 1)
        self.__dict__.update(values)

    def update_byte_buffer(self) -> None:
        """Write all six in-memory values into the bytes.

        Java: IndexHeader#updateByteBuffer
        """
        _HEADER.pack_into(self.byte_buffer, 0, *(getattr(self, f.attr) for f in HEADER_FIELDS))

    def entry_added(self, phy_offset: int, store_timestamp: int, new_slot: bool) -> None:
        """Account for one more entry and write the whole header once.

        Java: the header updates at the end of IndexFile#putKey: ``setBeginPhyOffset``/``setBeginTimestamp`` for
        the first entry, ``incHashSlotCount`` when the slot was empty, ``incIndexCount``, ``setEndPhyOffset`` and
        ``setEndTimestamp``. Java writes each field as it changes; the bytes after the last write are the same
        as one pack of all six in-memory values, which costs one call instead of six.
        """
        values = self.__dict__  # assigning through it skips the per-field writes of the descriptors
        if self.index_count <= 1:
            values["begin_phy_offset"] = phy_offset
            values["begin_timestamp"] = store_timestamp
        if new_slot:
            self.hash_slot_count += 1
        self.index_count += 1
        values["end_phy_offset"] = phy_offset
        values["end_timestamp"] = store_timestamp
        _HEADER.pack_into(
            self.byte_buffer,
            0,
            values["begin_timestamp"],
            store_timestamp,
            values["begin_phy_offset"],
            phy_offset,
            self.hash_slot_count,
            self.index_count,
        )

    def inc_hash_slot_count(self) -> None:
        """One more slot is in use; written through.

        Java: IndexHeader#incHashSlotCount
        """
        self.hash_slot_count += 1
        _STRUCTS["hash_slot_count"].pack_into(self.byte_buffer, _OFFSETS["hash_slot_count"], self.hash_slot_count)

    def inc_index_count(self) -> None:
        """One more entry written; written through.

        Java: IndexHeader#incIndexCount
        """
        self.index_count += 1
        _STRUCTS["index_count"].pack_into(self.byte_buffer, _OFFSETS["index_count"], self.index_count)

    def __repr__(self) -> str:
        fields = ", ".join(f"{f.java_name}={getattr(self, f.attr)}" for f in HEADER_FIELDS)
        return f"IndexHeader({fields})"

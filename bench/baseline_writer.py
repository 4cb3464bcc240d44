"""The baseline: the least Python can do to append these CommitLog records to memory-mapped segments.

Java: none (teaching helper). It writes the same bytes as ``DefaultMessageStore.put_message`` for the same messages
(same record layout and sizes, same segment size, same blank record when a record does not fit) with no objects
per message: each record's bytes are a precomputed template; per message it computes the body CRC, reads the
clock, copies the template into the mapping with one slice assignment and patches the fields only known at write
time (BODYCRC, QUEUEOFFSET + PHYSICALOFFSET in one ``pack_into``, STORETIMESTAMP). Segments are created as
``MappedFile`` creates them (``posix_fallocate``, then ``mmap``). It does not flush, dispatch or lock: it is the
ceiling the store is compared with, not a store.
"""

from __future__ import annotations

import mmap
import os
import struct
import time
from dataclasses import dataclass
from pathlib import Path

from zlib_ng.zlib_ng import crc32 as _crc32

from mqlab.common.message import message_record_layout as layout
from mqlab.common.util_all import offset2file_name

_BODY_CRC_POS = layout.position_of("BODYCRC")
_QUEUE_OFFSET_POS = layout.QUEUE_OFFSET_POSITION
_STORE_TS_POS = layout.store_timestamp_position(0)  # IPv4 born host, as in the workload
_BLANK_MIN = 8  # a record must leave room for the 8-byte blank record
assert layout.MESSAGE_PHYSIC_OFFSET_POSITION == _QUEUE_OFFSET_POS + 8  # patched together below


@dataclass(frozen=True, slots=True)
class BaselineResult:
    """What one run wrote."""

    records: int
    last_record_end: int  # CommitLog offset just past the last record
    segments: int


class _Segment:
    """One open segment file and its mapping (created as ``MappedFile._open`` does)."""

    def __init__(self, directory: Path, start_offset: int, size: int):
        path = directory / offset2file_name(start_offset)
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        os.posix_fallocate(self.fd, 0, size)
        self.map = mmap.mmap(self.fd, size, access=mmap.ACCESS_WRITE)

    def close(self) -> None:
        self.map.close()
        os.close(self.fd)


def write(
    directory: str | os.PathLike[str],
    segment_size: int,
    records: list[bytes],
    bodies: list[bytes],
    queue_ids: list[int],
    count: int,
    *,
    stop_at_segments: int | None = None,
) -> BaselineResult:
    """Append ``count`` records, cycling through ``records``; stop early once ``stop_at_segments`` are full.

    ``records[j]`` is the template of message ``j`` (its three positional fields still 0), ``bodies[j]`` its
    body (for the CRC) and ``queue_ids[j]`` its queue (for the queue offset).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    pack_crc = struct.Struct(">i").pack_into
    pack_offsets = struct.Struct(">qq").pack_into
    pack_long = struct.Struct(">q").pack_into
    pack_blank = struct.Struct(">ii").pack_into
    blank_magic = layout.BLANK_MAGIC_CODE
    crc32 = _crc32
    time_ns = time.time_ns
    queue_offsets = [0] * (max(queue_ids) + 1)
    pool = len(records)
    base, pos, segments = 0, 0, 1
    segment = _Segment(directory, base, segment_size)
    buf = segment.map
    written = count
    try:
        for i in range(count):
            j = i % pool
            record = records[j]
            end = pos + len(record)
            if end + _BLANK_MIN > segment_size:
                pack_blank(buf, pos, segment_size - pos, blank_magic)
                if stop_at_segments is not None and segments >= stop_at_segments:
                    written = i
                    break
                segment.close()
                base += segment_size
                segments += 1
                segment = _Segment(directory, base, segment_size)
                buf = segment.map
                pos, end = 0, len(record)
            buf[pos:end] = record
            pack_crc(buf, pos + _BODY_CRC_POS, crc32(bodies[j]) & 0x7FFFFFFF)
            queue = queue_ids[j]
            pack_offsets(buf, pos + _QUEUE_OFFSET_POS, queue_offsets[queue], base + pos)
            pack_long(buf, pos + _STORE_TS_POS, time_ns() // 1_000_000)
            queue_offsets[queue] += 1
            pos = end
    finally:
        segment.close()
    return BaselineResult(written, base + pos, segments)

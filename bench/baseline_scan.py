"""The recovery baseline: the least Python can do to check a CommitLog and rebuild its ConsumeQueue and index.

Java: none (teaching helper). Abnormal recovery walks every record, checks it (magic code, size, body CRC),
writes its 20-byte ConsumeQueue unit (tags hash code included) and, with ``messageIndexEnable`` (the default), one
IndexFile entry per key (``topic#UNIQ_KEY`` and ``topic#`` each of KEYS). This scan does exactly that and nothing
else, with no objects per record: one ``unpack_from`` of the fixed head, the CRC of a ``memoryview`` slice of the
body (zlib-ng's CRC, as the store's), byte searches in the properties, Java's ``String.hashCode`` through the
store's own prefix-remembering function (tags codes cached per tag), and ``pack_into`` calls into ``bytearray``
stand-ins for the ConsumeQueue and IndexFile (slot table and entries). It skips what the store also does (all properties
parsed, a ``DispatchRequest`` per record, files, headers, field-by-field size checks), so it is a ceiling for
``DefaultMessageStore.load()``, not an alternative.
"""

from __future__ import annotations

import mmap
import os
import struct
from pathlib import Path

from zlib_ng.zlib_ng import crc32 as _crc32

from mqlab.common.jdk.string_hash import java_string_hash, java_string_hash_by_prefix
from mqlab.common.message import message_record_layout as layout

_HEAD = struct.Struct(">iiiiiqqiq")  # TOTALSIZE .. BORNTIMESTAMP
_BODY_LENGTH_POS = layout.position_of("BODY")  # with IPv4 hosts, as in the workload
_STORE_TS_POS = layout.store_timestamp_position(0)
_UNIT = struct.Struct(">qiq")
_TAGS = b"TAGS\x01"
_KEYS = b"KEYS\x01"
_UNIQ_KEY = b"UNIQ_KEY\x01"
_ENTRY = struct.Struct(">iqii")  # IndexFile entry: key hash, physical offset, time diff, previous entry
_SLOT = struct.Struct(">i")
_HASH_SLOTS = 5_000_000  # MessageStoreConfig.max_hash_slot_num
_MASK32 = 0xFFFFFFFF


def _java_hash(data: bytes) -> int:
    """``String.hashCode`` of an ASCII string, as an unsigned 32-bit value (the store's fastest way)."""
    return java_string_hash_by_prefix(data.decode()) & _MASK32


def _property(properties: bytes, name: bytes) -> bytes | None:
    """The value of ``name`` (given with its 0x01 separator) in a properties string, or ``None``."""
    found = properties.find(name)
    while found > 0 and properties[found - 1] != 2:  # the end of a longer name: look further
        found = properties.find(name, found + 1)
    if found < 0:
        return None
    stop = properties.find(b"\x02", found)
    return properties[found + len(name) : stop if stop >= 0 else len(properties)]


def scan(commit_log: str | os.PathLike[str], queues: int, *, index: bool = True) -> tuple[int, int]:
    """Check every record of every segment in name order; return (records, bytes up to the last record's end).

    With ``index`` false the IndexFile part is skipped (``messageIndexEnable=false``).
    """
    unpack_head = _HEAD.unpack_from
    unpack_int = struct.Struct(">i").unpack_from
    unpack_short = struct.Struct(">h").unpack_from
    unpack_long = struct.Struct(">q").unpack_from
    pack_unit = _UNIT.pack_into
    crc32 = _crc32
    magic_code = layout.MESSAGE_MAGIC_CODE
    pack_entry = _ENTRY.pack_into
    pack_slot = _SLOT.pack_into
    unpack_slot = _SLOT.unpack_from
    units = [bytearray() for _ in range(queues)]
    slots = bytearray(_HASH_SLOTS * _SLOT.size if index else 0)
    entries = bytearray(_ENTRY.size)  # entry 0 is never used, as in an IndexFile
    entry_count = 1
    begin_timestamp = -1
    tags_codes: dict[bytes, int] = {}
    records = 0
    end = 0
    for path in sorted(Path(commit_log).iterdir()):
        with open(path, "rb") as file:
            buf = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        view = memoryview(buf)
        limit = len(buf) - _HEAD.size
        pos = 0
        try:
            while pos <= limit:
                total, magic, body_crc, queue_id, _flag, queue_offset, physical, _sys, _born = unpack_head(buf, pos)
                if magic != magic_code or total <= 0:
                    break  # the blank record (or zeros): the segment ends here
                body_start = pos + _BODY_LENGTH_POS + 4
                (body_length,) = unpack_int(buf, body_start - 4)
                if crc32(view[body_start : body_start + body_length]) & 0x7FFFFFFF != body_crc:
                    raise ValueError(f"body CRC mismatch at {physical}")
                topic_at = body_start + body_length
                topic_length = buf[topic_at]
                topic = buf[topic_at + 1 : topic_at + 1 + topic_length]
                props_at = topic_at + 1 + topic_length
                (props_length,) = unpack_short(buf, props_at)
                properties = buf[props_at + 2 : props_at + 2 + props_length]
                tag = _property(properties, _TAGS)
                tags_code = 0
                if tag is not None:
                    tags_code = tags_codes.get(tag)
                    if tags_code is None:
                        tags_code = tags_codes[tag] = java_string_hash(tag.decode())
                queue_units = units[queue_id]
                at = queue_offset * _UNIT.size
                if len(queue_units) < at + _UNIT.size:
                    queue_units.extend(bytes(max(at + _UNIT.size - len(queue_units), 1 << 20)))
                pack_unit(queue_units, at, physical, total, tags_code)
                records += 1
                pos += total
                end = physical + total
                if not index:
                    continue
                (store_timestamp,) = unpack_long(buf, pos - total + _STORE_TS_POS)
                if begin_timestamp < 0:
                    begin_timestamp = store_timestamp
                keys = [_property(properties, _UNIQ_KEY)]
                more = _property(properties, _KEYS)
                if more:
                    keys += more.split(b" ")
                for key in keys:
                    if not key:
                        continue
                    key_hash = _java_hash(topic + b"#" + key)
                    key_hash = key_hash if key_hash < 0x80000000 else (0x100000000 - key_hash) & 0x7FFFFFFF
                    slot_at = (key_hash % _HASH_SLOTS) * _SLOT.size
                    (previous,) = unpack_slot(slots, slot_at)
                    if len(entries) < (entry_count + 1) * _ENTRY.size:
                        entries.extend(bytes(1 << 20))
                    time_diff = (store_timestamp - begin_timestamp) // 1000
                    pack_entry(entries, entry_count * _ENTRY.size, key_hash, physical, time_diff, previous)
                    pack_slot(slots, slot_at, entry_count)
                    entry_count += 1
        finally:
            view.release()
            buf.close()
    return records, end

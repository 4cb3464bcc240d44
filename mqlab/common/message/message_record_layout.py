"""The CommitLog record (v1), declared once: every encoder, decoder and docs table is derived from this.

Java: none (teaching helper). The same layout is written out by hand in RocketMQ in ``CommitLog#calMsgLength``,
``CommitLog$MessageExtEncoder#encode``, ``CommitLog#checkMessageAndReturnSize``, ``MessageDecoder#encode`` and
``MessageDecoder#decode``; mqlab keeps one table and derives all of them.

All integers are big-endian and signed. The two host fields are 8 bytes (IPv4 + port) or 20 bytes (IPv6 + port)
depending on SYSFLAG bits 0x10 (born host) and 0x20 (store host). The three trailing fields carry their own length
prefix: an int for the body, a signed byte for the topic (so at most 127 bytes), a signed short for the properties
(so at most 32767 bytes).
"""

from __future__ import annotations

import functools
import struct
from dataclasses import dataclass, field
from enum import Enum

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message_errors import (
    BadMagicCodeError,
    MessageFormatError,
    PropertiesTooLongError,
    RecordSizeMismatchError,
    TopicTooLongError,
    TruncatedRecordError,
)
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag

MESSAGE_MAGIC_CODE = -626843481  # 0xDAA320A7 (Java: CommitLog.MESSAGE_MAGIC_CODE, MessageDecoder.MESSAGE_MAGIC_CODE)
BLANK_MAGIC_CODE = -875286124  # 0xCBD43194 (Java: CommitLog.BLANK_MAGIC_CODE), the end-of-file filler record
TOPIC_MAX_BYTES = 127  # Byte.MAX_VALUE
PROPERTIES_MAX_BYTES = 32767  # Short.MAX_VALUE


class FieldKind(Enum):
    """How a field is written."""

    INT = "int"  # 4 bytes
    LONG = "long"  # 8 bytes
    HOST = "host"  # 4 or 16 address bytes + 4-byte port
    BODY = "body"  # int length + bytes
    TOPIC = "topic"  # signed byte length + bytes
    PROPERTIES = "properties"  # signed short length + bytes


@dataclass(frozen=True, slots=True)
class RecordField:
    """One field of the record: its number and name as RocketMQ's source comments count them."""

    number: int
    name: str
    kind: FieldKind
    attr: str
    meaning: str
    v6_flag: int = 0  # for HOST fields: the SYSFLAG bit that makes it IPv6


FIELDS: tuple[RecordField, ...] = (
    RecordField(1, "TOTALSIZE", FieldKind.INT, "total_size", "length of the whole record, this field included"),
    RecordField(2, "MAGICCODE", FieldKind.INT, "magic_code", "0xDAA320A7 for a message"),
    RecordField(3, "BODYCRC", FieldKind.INT, "body_crc", "CRC-32 of the stored body, top bit cleared"),
    RecordField(4, "QUEUEID", FieldKind.INT, "queue_id", "queue of the topic"),
    RecordField(5, "FLAG", FieldKind.INT, "flag", "the user's Message.flag"),
    RecordField(6, "QUEUEOFFSET", FieldKind.LONG, "queue_offset", "index of the message in its ConsumeQueue"),
    RecordField(7, "PHYSICALOFFSET", FieldKind.LONG, "physical_offset", "CommitLog offset of this record"),
    RecordField(8, "SYSFLAG", FieldKind.INT, "sys_flag", "compression, transaction type, IPv6 host bits"),
    RecordField(9, "BORNTIMESTAMP", FieldKind.LONG, "born_timestamp", "producer clock, ms since epoch"),
    RecordField(
        10, "BORNHOST", FieldKind.HOST, "born_host", "producer address + port", MessageSysFlag.BORNHOST_V6_FLAG
    ),
    RecordField(11, "STORETIMESTAMP", FieldKind.LONG, "store_timestamp", "broker clock inside the put lock"),
    RecordField(
        12,
        "STOREHOSTADDRESS",
        FieldKind.HOST,
        "store_host",
        "broker address + port",
        MessageSysFlag.STOREHOSTADDRESS_V6_FLAG,
    ),
    RecordField(13, "RECONSUMETIMES", FieldKind.INT, "reconsume_times", "how often it was redelivered"),
    RecordField(
        14,
        "PREPAREDTRANSACTIONOFFSET",
        FieldKind.LONG,
        "prepared_transaction_offset",
        "offset of the half message (0 otherwise)",
    ),
    RecordField(15, "BODY", FieldKind.BODY, "body", "int length + payload (compressed if SYSFLAG 0x1)"),
    RecordField(16, "TOPIC", FieldKind.TOPIC, "topic", "byte length + UTF-8 topic"),
    RecordField(17, "PROPERTIES", FieldKind.PROPERTIES, "properties", "short length + properties string"),
)

_FIXED_WIDTH = {FieldKind.INT: 4, FieldKind.LONG: 8}
_PREFIX_WIDTH = {FieldKind.BODY: 4, FieldKind.TOPIC: 1, FieldKind.PROPERTIES: 2}
_PREFIX_FORMAT = {FieldKind.BODY: ">i", FieldKind.TOPIC: ">b", FieldKind.PROPERTIES: ">h"}


def host_width(sys_flag: int, v6_flag: int) -> int:
    """Bytes taken by a host field: 8 (IPv4) or 20 (IPv6)."""
    return 20 if sys_flag & int(v6_flag) else 8


def _width(f: RecordField, sys_flag: int, lengths: dict[str, int]) -> int:
    if f.kind in _FIXED_WIDTH:
        return _FIXED_WIDTH[f.kind]
    if f.kind is FieldKind.HOST:
        return host_width(sys_flag, f.v6_flag)
    return _PREFIX_WIDTH[f.kind] + max(lengths.get(f.attr, 0), 0)


@dataclass(frozen=True, slots=True)
class FieldSpan:
    """Where one field sits in a concrete record."""

    field: RecordField
    offset: int
    width: int


def spans(sys_flag: int, body_length: int = 0, topic_length: int = 0, properties_length: int = 0) -> list[FieldSpan]:
    """Offsets and widths of all 17 fields for a record with these flags and lengths."""
    lengths = {"body": body_length, "topic": topic_length, "properties": properties_length}
    result, offset = [], 0
    for f in FIELDS:
        width = _width(f, sys_flag, lengths)
        result.append(FieldSpan(f, offset, width))
        offset += width
    return result


@functools.cache
def position_of(name: str, sys_flag: int = 0) -> int:
    """Byte offset of a fixed-position field (valid up to BODY's length prefix); remembered per name and flags."""
    for span in spans(sys_flag):
        if span.field.name == name:
            return span.offset
    raise KeyError(name)


def _overhead(sys_flag: int) -> int:
    last = spans(sys_flag)[-1]
    return last.offset + last.width


# Bytes of a record with an empty body, topic and properties, per combination of the two IPv6 bits (91/103/115).
_OVERHEAD = {flags: _overhead(flags) for flags in (0, 0x10, 0x20, 0x30)}


def cal_msg_length(sys_flag: int, body_length: int, topic_length: int, properties_length: int) -> int:
    """Total record length (91 + body + topic + properties with IPv4 hosts; +12 per IPv6 host).

    Java: CommitLog#calMsgLength
    """
    return _OVERHEAD[sys_flag & 0x30] + max(body_length, 0) + topic_length + max(properties_length, 0)


# Positions RocketMQ names as constants (Java: MessageDecoder.*_POSTION, QUEUE_OFFSET_POSITION, SYSFLAG_POSITION).
MESSAGE_MAGIC_CODE_POSITION = position_of("MAGICCODE")
MESSAGE_FLAG_POSITION = position_of("FLAG")
QUEUE_OFFSET_POSITION = position_of("QUEUEOFFSET")
MESSAGE_PHYSIC_OFFSET_POSITION = position_of("PHYSICALOFFSET")
SYSFLAG_POSITION = position_of("SYSFLAG")
BORN_TIMESTAMP_POSITION = position_of("BORNTIMESTAMP")


def store_timestamp_position(sys_flag: int) -> int:
    """Offset of STORETIMESTAMP, which moves when the born host is IPv6.

    Java: CommitLog#pickupStoreTimestamp (the position arithmetic)
    """
    return position_of("STORETIMESTAMP", sys_flag)


@dataclass(slots=True)
class CommitLogRecord:
    """The 17 fields of one record, raw: topic and properties as UTF-8 bytes, hosts as addresses."""

    queue_id: int = 0
    flag: int = 0
    queue_offset: int = 0
    physical_offset: int = 0
    sys_flag: int = 0
    born_timestamp: int = 0
    born_host: InetSocketAddress = field(default_factory=lambda: InetSocketAddress("0.0.0.0", 0))
    store_timestamp: int = 0
    store_host: InetSocketAddress = field(default_factory=lambda: InetSocketAddress("0.0.0.0", 0))
    reconsume_times: int = 0
    prepared_transaction_offset: int = 0
    body: bytes = b""
    topic: bytes = b""
    properties: bytes = b""
    body_crc: int = 0
    total_size: int = 0
    magic_code: int = MESSAGE_MAGIC_CODE


_HEAD = struct.Struct(">iiiiiqqiq")  # fields 1..9, 48 bytes
_MIDDLE = struct.Struct(">iq")  # fields 13..14
_INT = struct.Struct(">i")
# Plain ints for the hot paths: IntFlag arithmetic costs microseconds per operation.
_BORN_V6 = int(MessageSysFlag.BORNHOST_V6_FLAG)
_STORE_V6 = int(MessageSysFlag.STOREHOSTADDRESS_V6_FLAG)
_LONG = struct.Struct(">q")
_SHORT = struct.Struct(">h")


def _check_host(record: CommitLogRecord, f: RecordField) -> None:
    host: InetSocketAddress = getattr(record, f.attr)
    if host.is_ipv6 != bool(record.sys_flag & int(f.v6_flag)):
        raise ValueError(
            f"{f.name} is {'IPv6' if host.is_ipv6 else 'IPv4'} but SYSFLAG bit {f.v6_flag:#x} says otherwise"
        )


_STRUCT_CODE = {FieldKind.INT: "i", FieldKind.LONG: "q"}


@functools.lru_cache(maxsize=4096)
def record_struct(v6_bits: int, body_length: int, topic_length: int, properties_length: int) -> struct.Struct:
    """A ``struct.Struct`` that packs a whole record of these lengths in one call, derived from ``FIELDS``.

    Fixed fields become ``i``/``q``, a host field ``8s`` or ``20s`` (address + port as stored), and each
    length-prefixed field its prefix code followed by ``<n>s``. Cached per shape: a store sees few shapes.
    """
    parts = [">"]
    for f in FIELDS:
        if f.kind in _STRUCT_CODE:
            parts.append(_STRUCT_CODE[f.kind])
        elif f.kind is FieldKind.HOST:
            parts.append(f"{host_width(v6_bits, f.v6_flag)}s")
        elif f.kind is FieldKind.BODY:
            parts.append(f"i{body_length}s")
        elif f.kind is FieldKind.TOPIC:
            parts.append(f"B{topic_length}s")
        else:
            parts.append(f"h{properties_length}s")
    return struct.Struct("".join(parts))


def pack(
    queue_id: int,
    flag: int,
    queue_offset: int,
    physical_offset: int,
    sys_flag: int,
    born_timestamp: int,
    born_host_field: bytes,
    store_timestamp: int,
    store_host_field: bytes,
    reconsume_times: int,
    prepared_transaction_offset: int,
    body: bytes,
    topic: bytes,
    properties: bytes,
    body_crc: int,
    magic_code: int = MESSAGE_MAGIC_CODE,
) -> bytes:
    """One record from its field values (hosts as stored: address bytes + 4-byte port); the fast path.

    The caller guarantees the limits (topic <= 127 bytes, properties <= 32767 bytes) and that the host fields'
    widths agree with SYSFLAG's IPv6 bits; :func:`encode` checks them.
    """
    body_len, topic_len, props_len = len(body), len(topic), len(properties)
    v6_bits = sys_flag & 0x30
    layout = record_struct(v6_bits, body_len, topic_len, props_len)
    return layout.pack(
        layout.size,
        magic_code,
        body_crc,
        queue_id,
        flag,
        queue_offset,
        physical_offset,
        sys_flag,
        born_timestamp,
        born_host_field,
        store_timestamp,
        store_host_field,
        reconsume_times,
        prepared_transaction_offset,
        body_len,
        body,
        topic_len,
        topic,
        props_len,
        properties,
    )


def encode(record: CommitLogRecord) -> bytes:
    """Write one record; TOTALSIZE is computed, BODYCRC is written as given.

    Raises:
        TopicTooLongError: topic over 127 bytes.
        PropertiesTooLongError: properties over 32767 bytes.
        ValueError: a host's address family disagrees with SYSFLAG's IPv6 bits.
    """
    if len(record.topic) > TOPIC_MAX_BYTES:
        raise TopicTooLongError(
            f"topic is {len(record.topic)} bytes, a v1 record holds at most {TOPIC_MAX_BYTES}", field="TOPIC"
        )
    if len(record.properties) > PROPERTIES_MAX_BYTES:
        raise PropertiesTooLongError(
            f"properties are {len(record.properties)} bytes, a record holds at most {PROPERTIES_MAX_BYTES}",
            field="PROPERTIES",
        )
    _check_host(record, FIELDS[9])
    _check_host(record, FIELDS[11])
    return pack(
        record.queue_id,
        record.flag,
        record.queue_offset,
        record.physical_offset,
        record.sys_flag,
        record.born_timestamp,
        record.born_host.field_bytes,
        record.store_timestamp,
        record.store_host.field_bytes,
        record.reconsume_times,
        record.prepared_transaction_offset,
        record.body,
        record.topic,
        record.properties,
        record.body_crc,
        record.magic_code,
    )


@dataclass(slots=True)
class RawRecord:
    """The fields of one record as read, hosts still as raw bytes (the store's dispatch path needs no objects)."""

    total_size: int
    body_crc: int
    queue_id: int
    flag: int
    queue_offset: int
    physical_offset: int
    sys_flag: int
    born_timestamp: int
    born_host: bytes  # address bytes + 4-byte port, as stored
    store_timestamp: int
    store_host: bytes
    reconsume_times: int
    prepared_transaction_offset: int
    body_length: int
    body: bytes | None  # None when the body was not read
    topic: bytes
    properties: bytes


def _truncated(name: str, need: int, have: int, position: int, where: str) -> TruncatedRecordError:
    return TruncatedRecordError(
        f"record needs {need} bytes for {name} but only {max(have, 0)} remain",
        field=name,
        position=position,
        where=where,
    )


def decode_raw(
    buf: bytes | bytearray | memoryview, offset: int = 0, *, read_body: bool = True, where: str = "", base: int = 0
) -> RawRecord:
    """Read one message record at ``offset`` without building host objects (the fast path).

    ``base`` is added to positions in error messages (e.g. the segment's start offset in the CommitLog).

    Raises:
        TruncatedRecordError: the buffer (or the record's own TOTALSIZE) ends inside a field.
        BadMagicCodeError: MAGICCODE is not the message magic (a blank record is reported as such).
        RecordSizeMismatchError: TOTALSIZE disagrees with the field lengths, or a length is negative.
    """
    end = len(buf)
    if offset + _HEAD.size > end:
        raise _truncated("TOTALSIZE..BORNTIMESTAMP", _HEAD.size, end - offset, base + offset, where)
    total, magic, body_crc, queue_id, flag, queue_offset, physical_offset, sys_flag, born_ts = _HEAD.unpack_from(
        buf, offset
    )
    if magic != MESSAGE_MAGIC_CODE:
        what = "a blank (end-of-file) record" if magic == BLANK_MAGIC_CODE else f"magic code {magic & 0xFFFFFFFF:#010x}"
        raise BadMagicCodeError(
            f"expected message magic code 0xdaa320a7, found {what}",
            field="MAGICCODE",
            position=base + offset + MESSAGE_MAGIC_CODE_POSITION,
            where=where,
        )
    if total <= _HEAD.size or offset + total > end:
        raise TruncatedRecordError(
            f"TOTALSIZE says {total} bytes but {end - offset} remain",
            field="TOTALSIZE",
            position=base + offset,
            where=where,
        )
    limit = offset + total
    pos = offset + _HEAD.size
    born_w = 20 if sys_flag & _BORN_V6 else 8
    store_w = 20 if sys_flag & _STORE_V6 else 8
    fixed_rest = born_w + 8 + store_w + _MIDDLE.size + 4
    if pos + fixed_rest > limit:
        raise _truncated("BORNHOST..BODYLENGTH", fixed_rest, limit - pos, base + pos, where)
    born_host = bytes(buf[pos : pos + born_w])
    pos += born_w
    (store_ts,) = _LONG.unpack_from(buf, pos)
    pos += 8
    store_host = bytes(buf[pos : pos + store_w])
    pos += store_w
    reconsume_times, prepared = _MIDDLE.unpack_from(buf, pos)
    pos += _MIDDLE.size
    (body_len,) = _INT.unpack_from(buf, pos)
    pos += 4
    if body_len < 0:
        raise RecordSizeMismatchError(
            f"BODY length is negative ({body_len})", field="BODY", position=base + pos, where=where
        )
    if pos + body_len + 1 > limit:
        raise _truncated("BODY", body_len + 1, limit - pos, base + pos, where)
    body = bytes(buf[pos : pos + body_len]) if read_body else None
    pos += body_len
    topic_len = buf[pos]
    if topic_len > TOPIC_MAX_BYTES:
        raise RecordSizeMismatchError(
            f"TOPIC length is negative ({topic_len - 256})", field="TOPIC", position=base + pos, where=where
        )
    pos += 1
    if pos + topic_len + 2 > limit:
        raise _truncated("TOPIC", topic_len + 2, limit - pos, base + pos, where)
    topic = bytes(buf[pos : pos + topic_len])
    pos += topic_len
    (props_len,) = _SHORT.unpack_from(buf, pos)
    pos += 2
    if props_len < 0:
        raise RecordSizeMismatchError(
            f"PROPERTIES length is negative ({props_len})", field="PROPERTIES", position=base + pos, where=where
        )
    if pos + props_len > limit:
        raise _truncated("PROPERTIES", props_len, limit - pos, base + pos, where)
    properties = bytes(buf[pos : pos + props_len])
    pos += props_len
    if pos != limit:
        raise RecordSizeMismatchError(
            f"TOTALSIZE says {total} bytes but the fields end after {pos - offset}",
            field="TOTALSIZE",
            position=base + offset,
            where=where,
        )
    return RawRecord(
        total,
        body_crc,
        queue_id,
        flag,
        queue_offset,
        physical_offset,
        sys_flag,
        born_ts,
        born_host,
        store_ts,
        store_host,
        reconsume_times,
        prepared,
        body_len,
        body,
        topic,
        properties,
    )


def _dispatch_head() -> struct.Struct:
    """Fields 1..14 and BODY's length prefix of a record with two IPv4 hosts, hosts skipped, derived from FIELDS."""
    parts = [">"]
    for f in FIELDS:
        if f.kind in _STRUCT_CODE:
            parts.append(_STRUCT_CODE[f.kind])
        elif f.kind is FieldKind.HOST:
            parts.append(f"{host_width(0, f.v6_flag)}x")
        else:  # BODY: its int length prefix ends the fixed part
            parts.append(_PREFIX_FORMAT[f.kind][1:])
            break
    return struct.Struct("".join(parts))


_DISPATCH_HEAD = _dispatch_head()  # 88 bytes


def decode_dispatch_fields(buf: bytes | bytearray | memoryview, offset: int, total: int) -> tuple[int, ...] | None:
    """The fields dispatch needs of a well-formed record with IPv4 hosts, or ``None`` for any other record.

    Returns ``(body_crc, queue_id, queue_offset, physical_offset, sys_flag, store_timestamp,
    prepared_transaction_offset, body_start, body_length, topic_start, topic_length, properties_start,
    properties_length)``, positions in ``buf``, for the record at ``offset`` whose TOTALSIZE is ``total``; nothing
    is copied. It accepts exactly the records ``decode_raw`` accepts; for anything else (an IPv6 host, a length
    that does not add up, a truncated buffer) it returns ``None`` and the caller asks ``decode_raw`` for the
    verdict. Java: none (the hot path of CommitLog#checkMessageAndReturnSize; ``decode_raw`` is the reference).
    """
    head = _DISPATCH_HEAD
    limit = offset + total
    if total <= _HEAD.size or limit > len(buf) or offset + head.size > limit:
        return None
    (_, magic, body_crc, queue_id, _, queue_offset, physical_offset, sys_flag, _, store_ts, _, prepared, body_len) = (
        head.unpack_from(buf, offset)
    )
    if magic != MESSAGE_MAGIC_CODE or sys_flag & (_BORN_V6 | _STORE_V6) or body_len < 0:
        return None
    body_start = offset + head.size
    topic_start = body_start + body_len + 1
    if topic_start > limit:
        return None
    topic_len = buf[topic_start - 1]
    properties_start = topic_start + topic_len + 2
    if topic_len > TOPIC_MAX_BYTES or properties_start > limit:
        return None
    (props_len,) = _SHORT.unpack_from(buf, properties_start - 2)
    if props_len < 0 or properties_start + props_len != limit:
        return None
    return (
        body_crc,
        queue_id,
        queue_offset,
        physical_offset,
        sys_flag,
        store_ts,
        prepared,
        body_start,
        body_len,
        topic_start,
        topic_len,
        properties_start,
        props_len,
    )


def host_from_field(
    raw: bytes, *, name: str = "host", position: int | None = None, where: str = ""
) -> InetSocketAddress:
    """An address object from a stored host field (address bytes + 4-byte port).

    Raises:
        MessageFormatError: the port is outside 0..65535 (Java's ``InetSocketAddress`` refuses it too, and
            ``MessageDecoder#decode`` then returns null), named after the field ``name`` at ``position``.
    """
    try:
        return InetSocketAddress.from_bytes(raw[:-4], int.from_bytes(raw[-4:], "big"))
    except ValueError as exc:
        raise MessageFormatError(
            f"{name} holds an impossible address: {exc}", field=name, position=position, where=where
        ) from exc


def decode(
    buf: bytes | bytearray | memoryview, offset: int = 0, *, read_body: bool = True, where: str = "", base: int = 0
) -> tuple[CommitLogRecord, int]:
    """Read one message record at ``offset``; return it and the offset just past it (see ``decode_raw``)."""
    raw = decode_raw(buf, offset, read_body=read_body, where=where, base=base)
    record = CommitLogRecord(
        queue_id=raw.queue_id,
        flag=raw.flag,
        queue_offset=raw.queue_offset,
        physical_offset=raw.physical_offset,
        sys_flag=raw.sys_flag,
        born_timestamp=raw.born_timestamp,
        born_host=host_from_field(
            raw.born_host, name="BORNHOST", position=base + offset + position_of("BORNHOST"), where=where
        ),
        store_timestamp=raw.store_timestamp,
        store_host=host_from_field(
            raw.store_host,
            name="STOREHOSTADDRESS",
            position=base + offset + position_of("STOREHOSTADDRESS", raw.sys_flag),
            where=where,
        ),
        reconsume_times=raw.reconsume_times,
        prepared_transaction_offset=raw.prepared_transaction_offset,
        body=raw.body if raw.body is not None else b"",
        topic=raw.topic,
        properties=raw.properties,
        body_crc=raw.body_crc,
        total_size=raw.total_size,
    )
    return record, offset + raw.total_size

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

import struct
from dataclasses import dataclass, field
from enum import Enum

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message_errors import (
    BadMagicCodeError,
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
    return 20 if sys_flag & v6_flag else 8


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


def position_of(name: str, sys_flag: int = 0) -> int:
    """Byte offset of a fixed-position field (valid up to BODY's length prefix)."""
    for span in spans(sys_flag):
        if span.field.name == name:
            return span.offset
    raise KeyError(name)


def cal_msg_length(sys_flag: int, body_length: int, topic_length: int, properties_length: int) -> int:
    """Total record length.

    Java: CommitLog#calMsgLength
    """
    last = spans(sys_flag, body_length, topic_length, properties_length)[-1]
    return last.offset + last.width


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


def _check_host(record: CommitLogRecord, f: RecordField) -> None:
    host: InetSocketAddress = getattr(record, f.attr)
    if host.is_ipv6 != bool(record.sys_flag & f.v6_flag):
        raise ValueError(
            f"{f.name} is {'IPv6' if host.is_ipv6 else 'IPv4'} but SYSFLAG bit {f.v6_flag:#x} says otherwise"
        )


def encode(record: CommitLogRecord) -> bytes:
    """Write one record; TOTALSIZE is computed, BODYCRC is written as given.

    Raises:
        TopicTooLongError: topic over 127 bytes.
        PropertiesTooLongError: properties over 32767 bytes.
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
    total = cal_msg_length(record.sys_flag, len(record.body), len(record.topic), len(record.properties))
    born, store = record.born_host, record.store_host
    parts = [
        _HEAD.pack(
            total,
            record.magic_code,
            record.body_crc,
            record.queue_id,
            record.flag,
            record.queue_offset,
            record.physical_offset,
            record.sys_flag,
            record.born_timestamp,
        ),
        born.address_bytes,
        born.port.to_bytes(4, "big"),
        record.store_timestamp.to_bytes(8, "big", signed=True),
        store.address_bytes,
        store.port.to_bytes(4, "big"),
        _MIDDLE.pack(record.reconsume_times, record.prepared_transaction_offset),
        len(record.body).to_bytes(4, "big"),
        record.body,
        len(record.topic).to_bytes(1, "big"),
        record.topic,
        len(record.properties).to_bytes(2, "big"),
        record.properties,
    ]
    return b"".join(parts)


class _Reader:
    """Bounds-checked reads that name the field and the absolute position when the buffer runs out."""

    __slots__ = ("base", "buf", "end", "pos", "where")

    def __init__(self, buf: bytes | memoryview, pos: int, end: int, where: str, base: int):
        self.buf, self.pos, self.end, self.where, self.base = buf, pos, end, where, base

    def take(self, n: int, name: str) -> bytes:
        if n < 0 or self.pos + n > self.end:
            raise TruncatedRecordError(
                f"record needs {n} more bytes for {name} but only {self.end - self.pos} remain",
                field=name,
                position=self.base + self.pos,
                where=self.where,
            )
        data = bytes(self.buf[self.pos : self.pos + n])
        self.pos += n
        return data


def decode(
    buf: bytes | memoryview, offset: int = 0, *, read_body: bool = True, where: str = "", base: int = 0
) -> tuple[CommitLogRecord, int]:
    """Read one message record at ``offset``; return it and the offset just past it.

    ``base`` is added to positions in error messages (e.g. the file's start offset in the CommitLog).

    Raises:
        TruncatedRecordError: the buffer ends inside the record.
        BadMagicCodeError: MAGICCODE is not the message magic (a blank record is reported as such).
        RecordSizeMismatchError: TOTALSIZE disagrees with the field lengths.
    """
    end = len(buf)
    reader = _Reader(buf, offset, end, where, base)
    head = _HEAD.unpack(reader.take(_HEAD.size, "TOTALSIZE..BORNTIMESTAMP"))
    total, magic = head[0], head[1]
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
            f"TOTALSIZE says {total} bytes but {end - offset} remain in the buffer",
            field="TOTALSIZE",
            position=base + offset,
            where=where,
        )
    reader.end = offset + total  # nothing of this record may be read past its own TOTALSIZE
    sys_flag = head[7]
    record = CommitLogRecord(
        total_size=total,
        magic_code=magic,
        body_crc=head[2],
        queue_id=head[3],
        flag=head[4],
        queue_offset=head[5],
        physical_offset=head[6],
        sys_flag=sys_flag,
        born_timestamp=head[8],
    )
    born_len = 16 if sys_flag & MessageSysFlag.BORNHOST_V6_FLAG else 4
    addr = reader.take(born_len, "BORNHOST")
    record.born_host = InetSocketAddress.from_bytes(addr, int.from_bytes(reader.take(4, "BORNHOST"), "big"))
    record.store_timestamp = int.from_bytes(reader.take(8, "STORETIMESTAMP"), "big", signed=True)
    store_len = 16 if sys_flag & MessageSysFlag.STOREHOSTADDRESS_V6_FLAG else 4
    addr = reader.take(store_len, "STOREHOSTADDRESS")
    record.store_host = InetSocketAddress.from_bytes(addr, int.from_bytes(reader.take(4, "STOREHOSTADDRESS"), "big"))
    record.reconsume_times, record.prepared_transaction_offset = _MIDDLE.unpack(
        reader.take(_MIDDLE.size, "RECONSUMETIMES")
    )
    for kind, attr, name in (
        (FieldKind.BODY, "body", "BODY"),
        (FieldKind.TOPIC, "topic", "TOPIC"),
        (FieldKind.PROPERTIES, "properties", "PROPERTIES"),
    ):
        (length,) = struct.unpack(_PREFIX_FORMAT[kind], reader.take(_PREFIX_WIDTH[kind], name))
        if length < 0:
            raise RecordSizeMismatchError(
                f"{name} length is negative ({length})", field=name, position=base + reader.pos, where=where
            )
        if attr == "body" and not read_body:
            reader.take(length, name)
            continue
        setattr(record, attr, reader.take(length, name))
    if reader.pos != offset + total:
        raise RecordSizeMismatchError(
            f"TOTALSIZE says {total} bytes but the fields end after {reader.pos - offset}",
            field="TOTALSIZE",
            position=base + offset,
            where=where,
        )
    return record, reader.pos

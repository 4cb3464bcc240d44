"""Encode and decode CommitLog records, message ids, properties strings and client batch bodies.

Java: org.apache.rocketmq.common.message.MessageDecoder (rocketmq-all-4.9.3)

The record layout itself is declared once in ``message_record_layout``; this module turns
records into ``MessageExt`` objects and back. Where 4.9.3's decoder is silent about bad input (it catches
everything and returns null), mqlab raises a ``MessageFormatError``
naming the field and the byte position; ``decodes`` keeps Java's lenient "stop at the first bad record" unless
asked to be strict.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from mqlab.common import util_all
from mqlab.common.bounded_cache import BoundedCache
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message import Message
from mqlab.common.message.message_client_ext import MessageClientExt
from mqlab.common.message.message_errors import (
    BadMessageIdError,
    BodyCrcMismatchError,
    MessageFormatError,
    PropertiesTooLongError,
    TruncatedRecordError,
)
from mqlab.common.message.message_ext import MessageExt
from mqlab.common.message.message_id import MessageId
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag

NAME_VALUE_SEPARATOR = "\x01"
PROPERTY_SEPARATOR = "\x02"
MESSAGE_MAGIC_CODE = layout.MESSAGE_MAGIC_CODE
MESSAGE_MAGIC_CODE_POSITION = layout.MESSAGE_MAGIC_CODE_POSITION
MESSAGE_FLAG_POSITION = layout.MESSAGE_FLAG_POSITION
MESSAGE_PHYSIC_OFFSET_POSITION = layout.MESSAGE_PHYSIC_OFFSET_POSITION
PHY_POS_POSITION = layout.MESSAGE_PHYSIC_OFFSET_POSITION
QUEUE_OFFSET_POSITION = layout.QUEUE_OFFSET_POSITION
SYSFLAG_POSITION = layout.SYSFLAG_POSITION

# Level RocketMQ passes to Deflater for message bodies (UtilAll#compress(body, 5) in MessageDecoder#encode).
BODY_COMPRESS_LEVEL = 5


# -- message ids -----------------------------------------------------------------------------------------------
def create_message_id(store_host: InetSocketAddress, commit_log_offset: int) -> str:
    """The offset message id: store IP (4|16) + port (int) + commit log offset (long), as upper-case hex.

    Java: MessageDecoder#createMessageId
    """
    raw = store_host.field_bytes + commit_log_offset.to_bytes(8, "big", signed=True)
    return util_all.bytes2string(raw)


def decode_message_id(msg_id: str) -> MessageId:
    """Split an offset message id into the store address and the commit log offset.

    Java: MessageDecoder#decodeMessageId

    Raises:
        BadMessageIdError: not 32 (IPv4) or 56 (IPv6) hex characters.
    """
    if len(msg_id) not in (32, 56):
        raise BadMessageIdError(f"an offset message id has 32 or 56 hex characters, got {len(msg_id)}: {msg_id!r}")
    try:
        raw = bytes.fromhex(msg_id)
    except ValueError as exc:
        raise BadMessageIdError(f"not hexadecimal: {msg_id!r}") from exc
    ip_len = 4 if len(raw) == 16 else 16
    port, offset = struct.unpack(">iq", raw[ip_len:])
    return MessageId(InetSocketAddress.from_bytes(raw[:ip_len], port), offset)


# -- properties ------------------------------------------------------------------------------------------------
def message_properties2string(properties: Mapping[str, str | None] | None) -> str:
    """``name 0x01 value 0x02 ...`` in the map's iteration order; entries with a null value are skipped.

    Java: MessageDecoder#messageProperties2String
    """
    if properties is None:
        return ""
    parts = [
        name + NAME_VALUE_SEPARATOR + value + PROPERTY_SEPARATOR
        for name, value in properties.items()
        if value is not None
    ]
    return "".join(parts)[:-1]  # drop the last separator, as Java's deleteCharAt does


def string2message_properties(properties: str | None, map_factory: Callable[[], Any] = JavaHashMap) -> Any:
    """Parse a properties string leniently: segments without a non-empty name and value are skipped.

    ``map_factory`` makes the result map: a ``JavaHashMap`` (Java's HashMap order, the default) or, on hot
    paths that only look values up, a plain ``dict``.

    Java: MessageDecoder#string2messageProperties
    """
    result = map_factory()
    if properties is None:
        return result
    # Java walks the string with indexOf; splitting it first visits the same segments in the same order, and
    # partition finds the same (first) name-value separator in each, with C-level loops.
    for segment in properties.split(PROPERTY_SEPARATOR):
        if len(segment) >= 3:
            name, sep, value = segment.partition(NAME_VALUE_SEPARATOR)
            if sep and name and value:
                result[name] = value
    return result


def decode_properties(buf: bytes | memoryview, offset: int = 0) -> JavaHashMap[str, str] | None:
    """Only the properties of the record at ``offset`` (``None`` when it has none).

    Java: MessageDecoder#decodeProperties
    """
    record, _ = layout.decode(buf, offset, read_body=False)
    if not record.properties:
        return None
    return string2message_properties(record.properties.decode("utf-8", "replace"))


# -- whole records ---------------------------------------------------------------------------------------------
def _to_record(msg: MessageExt, body: bytes, properties: str) -> layout.CommitLogRecord:
    return layout.CommitLogRecord(
        queue_id=msg.queue_id,
        flag=msg.flag,
        queue_offset=msg.queue_offset,
        physical_offset=msg.commit_log_offset,
        sys_flag=msg.sys_flag,
        born_timestamp=msg.born_timestamp,
        born_host=msg.born_host,
        store_timestamp=msg.store_timestamp,
        store_host=msg.store_host,
        reconsume_times=msg.reconsume_times,
        prepared_transaction_offset=msg.prepared_transaction_offset,
        body=body,
        topic=(msg.topic or "").encode("utf-8"),
        properties=properties.encode("utf-8"),
        body_crc=msg.body_crc,
    )


def encode(msg: MessageExt, need_compress: bool = False) -> bytes:
    """A full CommitLog record for ``msg``; the body is compressed first if asked and SYSFLAG has 0x1.

    BODYCRC is written as ``msg.body_crc`` says (the broker computes it over the stored body).

    Java: MessageDecoder#encode
    """
    body = msg.body or b""
    if need_compress and msg.sys_flag & MessageSysFlag.COMPRESSED_FLAG:
        body = util_all.compress(body, BODY_COMPRESS_LEVEL)
    return layout.encode(_to_record(msg, body, message_properties2string(msg.properties)))


def decode(
    buf: bytes | memoryview,
    offset: int = 0,
    *,
    read_body: bool = True,
    decompress_body: bool = True,
    is_client: bool = False,
    check_crc: bool = False,
    where: str = "",
) -> MessageExt:
    """Decode the record at ``offset`` into a ``MessageExt`` (a ``MessageClientExt`` for clients).

    ``msg.store_size`` is the record's length, so the next record starts at ``offset + msg.store_size``.

    Java: MessageDecoder#decode (``check_crc`` and the magic-code check are mqlab's additions)

    Raises:
        MessageFormatError: truncated record, bad magic code, inconsistent lengths, or (with ``check_crc``) a body
            whose CRC does not match BODYCRC.
    """
    record = layout.decode_raw(buf, offset, read_body=read_body, where=where)
    if check_crc and read_body and util_all.crc32(record.body) != record.body_crc:
        raise BodyCrcMismatchError(
            f"BODYCRC is {record.body_crc} but the body's CRC is {util_all.crc32(record.body)}",
            field="BODYCRC",
            position=offset + layout.position_of("BODYCRC"),
            where=where,
        )
    msg: MessageExt = MessageClientExt.bare() if is_client else MessageExt.bare()
    msg.store_size = record.total_size
    msg.body_crc = record.body_crc
    msg.queue_id = record.queue_id
    msg.flag = record.flag
    msg.queue_offset = record.queue_offset
    msg.commit_log_offset = record.physical_offset
    msg.sys_flag = record.sys_flag
    msg.born_timestamp = record.born_timestamp
    msg.born_host = _host(record.born_host, "BORNHOST", offset, 0, where)
    msg.store_timestamp = record.store_timestamp
    msg.store_host = _host(record.store_host, "STOREHOSTADDRESS", offset, record.sys_flag, where)
    msg.reconsume_times = record.reconsume_times
    msg.prepared_transaction_offset = record.prepared_transaction_offset
    if read_body and record.body:
        body = record.body
        if decompress_body and record.sys_flag & _COMPRESSED:
            try:
                body = util_all.uncompress(body)
            except Exception as exc:  # zlib.error: the flag says compressed but the bytes are not a zlib stream
                raise MessageFormatError(
                    f"body is flagged compressed but does not inflate: {exc}", field="BODY", where=where
                ) from exc
        msg.body = body
    msg.topic = record.topic.decode("utf-8", "replace")
    if record.properties:
        msg.properties = string2message_properties(record.properties.decode("utf-8", "replace"))
    # The offset message id is the stored host field (address + 4-byte port) then the offset, in hex: the same
    # bytes create_message_id builds from the host object.
    msg.msg_id = (record.store_host + record.physical_offset.to_bytes(8, "big", signed=True)).hex().upper()
    return msg


# Host fields already turned into addresses: a pull brings many records from few hosts, and the address objects
# are immutable. Bounded (emptied when full).
_HOSTS: BoundedCache[bytes, InetSocketAddress] = BoundedCache()
_COMPRESSED = int(MessageSysFlag.COMPRESSED_FLAG)


def _host(raw: bytes, name: str, offset: int, sys_flag: int, where: str) -> InetSocketAddress:
    """The address in a stored host field; an impossible one raises the layout's named error."""
    address = _HOSTS.get(raw)
    if address is None:
        position = offset + layout.position_of(name, sys_flag)
        address = _HOSTS.put(raw, layout.host_from_field(raw, name=name, position=position, where=where))
    return address


def client_decode(buf: bytes | memoryview, offset: int = 0, read_body: bool = True) -> MessageExt:
    """Decode as a client does: a ``MessageClientExt``, body inflated.

    Java: MessageDecoder#clientDecode
    """
    return decode(buf, offset, read_body=read_body, decompress_body=True, is_client=True)


def decodes(buf: bytes | memoryview, read_body: bool = True, *, strict: bool = False) -> list[MessageExt]:
    """Decode back-to-back records (a pull response body) as a client.

    Like Java, decoding stops quietly at the first record that fails, keeping the ones before it; with
    ``strict=True`` that failure is raised instead.

    Java: MessageDecoder#decodes
    """
    result: list[MessageExt] = []
    offset, end = 0, len(buf)
    while offset < end:
        try:
            msg = client_decode(buf, offset, read_body)
        except MessageFormatError:
            if strict:
                raise
            break
        result.append(msg)
        offset += msg.store_size
    return result


# -- client batch bodies (SEND_BATCH_MESSAGE) ------------------------------------------------------------------
_BATCH_HEAD = struct.Struct(">iiiii")  # TOTALSIZE, MAGICCODE (0), BODYCRC (0), FLAG, BODYLEN


def encode_message(message: Message) -> bytes:
    """One inner message of a batch body: size, two zero ints, flag, body, properties.

    Java: MessageDecoder#encodeMessage
    """
    body = message.body or b""
    props = message_properties2string(message.properties).encode("utf-8")
    if len(props) > layout.PROPERTIES_MAX_BYTES:
        raise PropertiesTooLongError(
            f"Properties size of message exceeded, properties size: {len(props)}, "
            f"maxSize: {layout.PROPERTIES_MAX_BYTES}.",
            field="PROPERTIES",
        )
    size = _BATCH_HEAD.size + len(body) + 2 + len(props)
    return b"".join((_BATCH_HEAD.pack(size, 0, 0, message.flag, len(body)), body, len(props).to_bytes(2, "big"), props))


def encode_messages(messages: Iterable[Message]) -> bytes:
    """Concatenate ``encode_message`` of each message.

    Java: MessageDecoder#encodeMessages
    """
    return b"".join(encode_message(m) for m in messages)


def decode_message(buf: bytes | memoryview, offset: int = 0, *, where: str = "") -> tuple[Message, int]:
    """Read one inner batch message at ``offset``; return it and the offset after it.

    Java: MessageDecoder#decodeMessage
    """
    end = len(buf)
    if offset + _BATCH_HEAD.size > end:
        raise TruncatedRecordError("batch message header is cut short", field="TOTALSIZE", position=offset, where=where)
    _size, _magic, _crc, flag, body_len = _BATCH_HEAD.unpack_from(buf, offset)
    pos = offset + _BATCH_HEAD.size
    if body_len < 0 or pos + body_len + 2 > end:
        raise TruncatedRecordError("batch message body is cut short", field="BODY", position=pos, where=where)
    body = bytes(buf[pos : pos + body_len])
    pos += body_len
    (props_len,) = struct.unpack_from(">h", buf, pos)
    pos += 2
    if props_len < 0 or pos + props_len > end:
        raise TruncatedRecordError(
            "batch message properties are cut short", field="PROPERTIES", position=pos, where=where
        )
    message = Message.bare()
    message.flag = flag
    message.body = body
    message.properties = string2message_properties(bytes(buf[pos : pos + props_len]).decode("utf-8", "replace"))
    return message, pos + props_len


def decode_messages(buf: bytes | memoryview, *, where: str = "") -> list[Message]:
    """Split a batch body back into messages.

    Java: MessageDecoder#decodeMessages
    """
    result, offset = [], 0
    while offset < len(buf):
        message, offset = decode_message(buf, offset, where=where)
        result.append(message)
    return result

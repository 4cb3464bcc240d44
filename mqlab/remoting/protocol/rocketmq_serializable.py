"""RocketMQ's own binary command header (serialize type 1).

Java: org.apache.rocketmq.remoting.protocol.RocketMQSerializable (rocketmq-all-4.9.3)

Layout: code (short) | language (byte) | version (short) | opaque (int) | flag (int) | remark length (int) + UTF-8 |
extFields length (int) + ``[short keyLen][key][int valueLen][value]``... in the map's iteration order.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping

from mqlab.common.jdk.hash_map import java_ordered_items
from mqlab.remoting.exception.remoting_command_exception import RemotingCommandException

_FIXED = struct.Struct(">hbhii")  # code, language, version, opaque, flag


def map_serialize(ext_fields: Mapping[str, str] | None) -> bytes | None:
    """``[short keyLen][key][int valueLen][value]`` per entry with a key and a value, in Java HashMap order.

    Java: RocketMQSerializable#mapSerialize
    """
    if not ext_fields:
        return None
    out = []
    for key, value in java_ordered_items(ext_fields):
        if key is None or value is None:
            continue
        k, v = key.encode("utf-8"), value.encode("utf-8")
        out.append(struct.pack(">h", len(k)) + k + struct.pack(">i", len(v)) + v)
    return b"".join(out)


def map_deserialize(data: bytes) -> dict[str, str]:
    """Inverse of :func:`map_serialize` (the fields in the order they were written).

    Java: RocketMQSerializable#mapDeserialize
    """
    result: dict[str, str] = {}
    pos = 0
    try:
        while pos < len(data):
            (key_len,) = struct.unpack_from(">h", data, pos)
            pos += 2
            key = data[pos : pos + key_len].decode("utf-8")
            pos += key_len
            (value_len,) = struct.unpack_from(">i", data, pos)
            pos += 4
            if key_len < 0 or value_len < 0 or pos + value_len > len(data):
                raise RemotingCommandException(f"extFields entry {key!r} runs past the header at byte {pos}")
            result[key] = data[pos : pos + value_len].decode("utf-8")
            pos += value_len
    except (struct.error, UnicodeDecodeError) as exc:
        raise RemotingCommandException(f"malformed extFields at byte {pos}: {exc}") from exc
    return result


def rocketmq_protocol_encode(
    code: int,
    language: int,
    version: int,
    opaque: int,
    flag: int,
    remark: str | None,
    ext_fields: Mapping[str, str] | None,
) -> bytes:
    """The binary header. Java: RocketMQSerializable#rocketMQProtocolEncode."""
    remark_bytes = remark.encode("utf-8") if remark else b""
    ext_bytes = map_serialize(ext_fields) or b""
    return b"".join(
        (
            _FIXED.pack(code, language, version, opaque, flag),
            struct.pack(">i", len(remark_bytes)),
            remark_bytes,
            struct.pack(">i", len(ext_bytes)),
            ext_bytes,
        )
    )


def rocketmq_protocol_decode(header: bytes) -> tuple[int, int, int, int, int, str | None, dict[str, str] | None]:
    """``(code, language, version, opaque, flag, remark, extFields)``. Java: #rocketMQProtocolDecode.

    Raises:
        RemotingCommandException: lengths larger than the header, or a header cut short.
    """
    try:
        code, language, version, opaque, flag = _FIXED.unpack_from(header, 0)
        pos = _FIXED.size
        (remark_len,) = struct.unpack_from(">i", header, pos)
        pos += 4
        remark = None
        if remark_len > 0:
            if remark_len > len(header) or pos + remark_len > len(header):
                raise RemotingCommandException(
                    f"RocketMQ protocol decoding failed, remark length: {remark_len}, but header length: {len(header)}"
                )
            remark = header[pos : pos + remark_len].decode("utf-8")
            pos += remark_len
        (ext_len,) = struct.unpack_from(">i", header, pos)
        pos += 4
        ext = None
        if ext_len > 0:
            if ext_len > len(header) or pos + ext_len > len(header):
                raise RemotingCommandException(
                    f"RocketMQ protocol decoding failed, extFields length: {ext_len}, but header length: {len(header)}"
                )
            ext = map_deserialize(header[pos : pos + ext_len])
    except (struct.error, UnicodeDecodeError) as exc:
        raise RemotingCommandException(f"RocketMQ protocol decoding failed: header cut short ({exc})") from exc
    return code, language, version, opaque, flag, remark, ext

"""One request or response of the remoting protocol, and its frame.

Java: org.apache.rocketmq.remoting.protocol.RemotingCommand (rocketmq-all-4.9.3)

Frame: ``[int length = 4 + header + body][byte serializeType][3-byte header length][header][body]``. The header is
fastjson JSON (type 0, the default) or RocketMQ's binary layout (type 1); each frame is decoded by its own type
byte. Flag bit 0 marks a response, bit 1 a oneway request; ``opaque`` pairs a response with its request.
"""

from __future__ import annotations

import itertools
import struct
import threading
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, TypeVar

from mqlab.common.jdk.hash_map import java_ordered_items
from mqlab.common.mix_all import CURRENT_VERSION
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.command_custom_header import CommandCustomHeader, decode_header, header_to_ext_fields
from mqlab.remoting.exception.remoting_command_exception import RemotingCommandException, RemotingFrameError
from mqlab.remoting.protocol import remoting_serializable
from mqlab.remoting.protocol.language_code import LanguageCode
from mqlab.remoting.protocol.remoting_command_type import RemotingCommandType
from mqlab.remoting.protocol.rocketmq_serializable import rocketmq_protocol_decode, rocketmq_protocol_encode
from mqlab.remoting.protocol.serialize_type import SerializeType

H = TypeVar("H", bound=CommandCustomHeader)

RPC_TYPE = 0  # flag bit 0: response
RPC_ONEWAY = 1  # flag bit 1: oneway
# Netty's frame limit (system property com.rocketmq.remoting.frameMaxLength).
FRAME_MAX_LENGTH = 16 * 1024 * 1024
_INT = struct.Struct(">i")


class RequestIdGenerator:
    """The process-wide opaque counter (Java: a static AtomicInteger; here one per runtime node)."""

    def __init__(self) -> None:
        self._next = itertools.count()
        self._lock = threading.Lock()

    def next(self) -> int:
        """The next opaque, wrapping like a Java int."""
        with self._lock:
            value = next(self._next)
        value &= 0xFFFFFFFF
        return value - (1 << 32) if value & 0x80000000 else value


@dataclass(slots=True)
class RemotingCommand:
    """A command.

    ``ext_fields`` holds the header fields in the order they were put (a ``dict``, as decoded or as filled by
    ``make_custom_header_to_net``); both header serialisations write them in the order Java's ``HashMap`` would
    iterate them (``java_ordered_items``), as RocketMQ's ``HashMap<String, String> extFields`` does.
    """

    code: int = 0
    language: LanguageCode = LanguageCode.JAVA
    version: int = CURRENT_VERSION
    opaque: int = 0
    flag: int = 0
    remark: str | None = None
    ext_fields: dict[str, str] | None = None
    serialize_type_current_rpc: SerializeType = SerializeType.JSON
    body: bytes | None = None
    custom_header: CommandCustomHeader | None = field(default=None, repr=False)

    # -- construction ------------------------------------------------------------------------------------------
    @classmethod
    def create_request_command(
        cls,
        code: int,
        custom_header: CommandCustomHeader | None = None,
        *,
        opaque: int,
        serialize_type: SerializeType = SerializeType.JSON,
    ) -> RemotingCommand:
        """A request (the caller supplies the opaque, e.g. from ``RequestIdGenerator``).

        Java: RemotingCommand#createRequestCommand
        """
        return cls(
            code=int(code), opaque=opaque, custom_header=custom_header, serialize_type_current_rpc=serialize_type
        )

    @classmethod
    def create_response_command(
        cls,
        code: int = ResponseCode.SYSTEM_ERROR,
        remark: str | None = "not set any response code",
        custom_header: CommandCustomHeader | None = None,
        *,
        opaque: int = 0,
        serialize_type: SerializeType = SerializeType.JSON,
    ) -> RemotingCommand:
        """A response (flag bit 0 set); Java's default is SYSTEM_ERROR "not set any response code".

        Java: RemotingCommand#createResponseCommand
        """
        cmd = cls(
            code=int(code),
            remark=remark,
            opaque=opaque,
            custom_header=custom_header,
            serialize_type_current_rpc=serialize_type,
        )
        cmd.mark_response_type()
        return cmd

    # -- flags ---------------------------------------------------------------------------------------------------
    def mark_response_type(self) -> None:
        """Set the response bit. Java: RemotingCommand#markResponseType."""
        self.flag |= 1 << RPC_TYPE

    def is_response_type(self) -> bool:
        """Java: RemotingCommand#isResponseType."""
        return bool(self.flag & (1 << RPC_TYPE))

    def mark_oneway_rpc(self) -> None:
        """Set the oneway bit. Java: RemotingCommand#markOnewayRPC."""
        self.flag |= 1 << RPC_ONEWAY

    def is_oneway_rpc(self) -> bool:
        """Java: RemotingCommand#isOnewayRPC."""
        return bool(self.flag & (1 << RPC_ONEWAY))

    def get_type(self) -> RemotingCommandType:
        """Request or response. Java: RemotingCommand#getType."""
        return RemotingCommandType.RESPONSE_COMMAND if self.is_response_type() else RemotingCommandType.REQUEST_COMMAND

    # -- custom headers ------------------------------------------------------------------------------------------
    def make_custom_header_to_net(self) -> None:
        """Copy the custom header's fields into ``ext_fields``. Java: RemotingCommand#makeCustomHeaderToNet."""
        if self.custom_header is None:
            return
        if self.ext_fields is None:
            self.ext_fields = {}
        for name, value in header_to_ext_fields(self.custom_header):
            self.ext_fields[name] = value

    def add_ext_field(self, key: str, value: str) -> None:
        """Java: RemotingCommand#addExtField."""
        if self.ext_fields is None:
            self.ext_fields = {}
        self.ext_fields[key] = value

    def decode_command_custom_header(self, cls: type[H], *, strict: bool = False) -> H:
        """The typed header from ``ext_fields`` (see ``decode_header`` for ``strict``).

        Java: RemotingCommand#decodeCommandCustomHeader
        """
        if self.ext_fields is None and self.custom_header is not None:
            self.make_custom_header_to_net()  # a command built in-process, not read from the wire
        header = decode_header(cls, self.ext_fields, strict=strict)
        self.custom_header = header
        return header

    # -- encoding ------------------------------------------------------------------------------------------------
    def header_bytes(self) -> bytes:
        """The header in this command's serialisation."""
        self.make_custom_header_to_net()
        if self.serialize_type_current_rpc is SerializeType.ROCKETMQ:
            return rocketmq_protocol_encode(
                self.code, self.language.code, self.version, self.opaque, self.flag, self.remark, self.ext_fields
            )
        return self._json_header()

    def _json_header(self) -> bytes:
        """The JSON header as fastjson writes this bean (properties by name, nulls left out).

        The usual command (string fields only) is written here directly; anything else goes through the general
        writer, which gives the same bytes more slowly.
        """
        if not (
            all(type(number) is int or isinstance(number, IntEnum) for number in (self.code, self.flag, self.opaque))
            and (type(self.version) is int or isinstance(self.version, IntEnum))
            and isinstance(self.language, LanguageCode)
            and isinstance(self.serialize_type_current_rpc, SerializeType)
        ):
            return remoting_serializable.encode(self)
        string = remoting_serializable.json_string
        parts = ['{"code":', str(int(self.code))]
        if self.ext_fields is not None:
            items = java_ordered_items(self.ext_fields)
            try:
                fields = ",".join([string(key) + ":" + string(value) for key, value in items if value is not None])
            except TypeError:  # a key or value that is not a string
                return remoting_serializable.encode(self)
            parts += [',"extFields":{', fields, "}"]
        parts += [',"flag":', str(int(self.flag)), ',"language":', string(self.language.name)]
        parts += [',"opaque":', str(int(self.opaque))]
        if self.remark is not None:
            if not isinstance(self.remark, str):
                return remoting_serializable.encode(self)
            parts += [',"remark":', string(self.remark)]
        parts += [',"serializeTypeCurrentRPC":', string(self.serialize_type_current_rpc.name)]
        parts += [',"version":', str(int(self.version)), "}"]
        return "".join(parts).encode("utf-8")

    def fastjson_fields(self) -> list[tuple[str, Any]]:
        """The bean properties fastjson writes for the JSON header (body and custom header are transient)."""
        return [
            ("code", self.code),
            ("extFields", dict(java_ordered_items(self.ext_fields)) if self.ext_fields is not None else None),
            ("flag", self.flag),
            ("language", self.language),
            ("opaque", self.opaque),
            ("remark", self.remark),
            ("serializeTypeCurrentRPC", self.serialize_type_current_rpc),
            ("version", self.version),
        ]

    def encode(self) -> bytes:
        """The whole frame, length prefix included. Java: RemotingCommand#encode."""
        header = self.header_bytes()
        body = self.body or b""
        if len(header) > 0xFFFFFF:
            raise RemotingCommandException(f"header of {len(header)} bytes does not fit the 3-byte length")
        return b"".join(
            (
                _INT.pack(4 + len(header) + len(body)),
                _INT.pack(mark_protocol_type(len(header), self.serialize_type_current_rpc)),
                header,
                body,
            )
        )

    # -- decoding ------------------------------------------------------------------------------------------------
    @classmethod
    def decode(cls, frame: bytes | memoryview) -> RemotingCommand:
        """A command from a frame **without** its length prefix (what Netty's frame decoder hands over).

        Java: RemotingCommand#decode

        Raises:
            RemotingCommandException: the header is cut short, of an unknown type, or not decodable.
        """
        if len(frame) < 4:
            raise RemotingCommandException(f"frame of {len(frame)} bytes has no header length")
        (marked,) = _INT.unpack_from(frame, 0)
        header_length = marked & 0xFFFFFF
        type_code = (marked >> 24) & 0xFF
        serialize_type = SerializeType.value_of(type_code)
        if serialize_type is None:
            raise RemotingCommandException(f"unknown header serialize type {type_code}")
        if 4 + header_length > len(frame):
            raise RemotingCommandException(
                f"header length {header_length} exceeds the frame ({len(frame) - 4} bytes after the length field)"
            )
        header = bytes(frame[4 : 4 + header_length])
        body = bytes(frame[4 + header_length :]) or None
        cmd = cls.header_decode(header, serialize_type)
        cmd.body = body
        return cmd

    @classmethod
    def header_decode(cls, header: bytes, serialize_type: SerializeType) -> RemotingCommand:
        """Decode a header of the given serialisation. Java: RemotingCommand#headerDecode."""
        if serialize_type is SerializeType.ROCKETMQ:
            code, language, version, opaque, flag, remark, ext = rocketmq_protocol_decode(header)
            lang = LanguageCode.value_of(language)
            return cls(
                code=code,
                language=lang if lang is not None else LanguageCode.OTHER,
                version=version,
                opaque=opaque,
                flag=flag,
                remark=remark,
                ext_fields=ext,
                serialize_type_current_rpc=SerializeType.ROCKETMQ,
            )
        try:
            data = remoting_serializable.from_json(header)
        except (ValueError, UnicodeDecodeError) as exc:
            raise RemotingCommandException(f"JSON header is not decodable: {exc}") from exc
        if not isinstance(data, dict):
            raise RemotingCommandException("JSON header is not an object")
        ext = data.get("extFields")
        ext_map = None
        if isinstance(ext, dict):
            ext_map = {}
            for key, value in ext.items():
                ext_map[str(key)] = value if isinstance(value, str) else remoting_serializable.to_json(value)
        language = data.get("language", "JAVA")
        try:
            lang = LanguageCode[language] if isinstance(language, str) else LanguageCode(language)
        except (KeyError, ValueError):
            lang = LanguageCode.OTHER
        try:
            return cls(
                code=int(data.get("code", 0)),
                language=lang,
                version=int(data.get("version", 0)),
                opaque=int(data.get("opaque", 0)),
                flag=int(data.get("flag", 0)),
                remark=data.get("remark"),
                ext_fields=ext_map,
                serialize_type_current_rpc=SerializeType.JSON,
            )
        except (TypeError, ValueError) as exc:
            raise RemotingCommandException(f"JSON header has a field of the wrong type: {exc}") from exc


def mark_protocol_type(source: int, serialize_type: SerializeType) -> int:
    """The int holding the header length in its low 3 bytes and the serialize type in its high byte.

    Java: RemotingCommand#markProtocolType
    """
    value = (serialize_type.code << 24) | (source & 0xFFFFFF)
    return value - (1 << 32) if value & 0x80000000 else value


class FrameDecoder:
    """Splits a byte stream into frames: Netty's ``LengthFieldBasedFrameDecoder(16 MiB, 0, 4, 0, 4)``.

    Java: org.apache.rocketmq.remoting.netty.NettyDecoder (the framing part)

    Whole frames are cut straight out of the received bytes; a frame that arrives in pieces is gathered until its
    announced length is there. The buffer grows with what arrived, never to the announced length up front, so a
    peer that announces 16 MiB and sends four bytes costs four bytes. At most one incomplete frame is held per
    connection, a prefix over the limit is refused before any of its bytes are kept, and ``clear`` drops the
    incomplete frame when the connection closes (HARD-8).
    """

    __slots__ = ("_frame", "_head", "_length", "max_frame_length")

    def __init__(self, max_frame_length: int = FRAME_MAX_LENGTH):
        self.max_frame_length = max_frame_length
        self._head = b""  # the first bytes (fewer than 4) of a length prefix
        self._frame: bytearray | None = None  # the incomplete frame, as much of it as arrived
        self._length = 0  # its announced length

    def _check_length(self, length: int, head: bytes) -> None:
        # Netty adds the 4 bytes of the length field before comparing with maxFrameLength.
        if length < 4 or length + 4 > self.max_frame_length:
            raise RemotingFrameError(
                f"frame length {length} is outside 4..{self.max_frame_length - 4} (first bytes {head[:8].hex()})"
            )

    def feed(self, data: bytes) -> list[bytes]:
        """Add received bytes; return the complete frames (without their length prefix).

        Raises:
            RemotingFrameError: a length prefix that is negative, under 4, or makes the whole frame (prefix
                included, as Netty counts it) longer than the limit (the connection must then be closed: the
                stream cannot be resynchronised).
        """
        frames: list[bytes] = []
        pos, end = 0, len(data)
        if self._head or self._frame is not None:
            pos = self._continue(data, frames)
            if self._head or self._frame is not None:
                return frames  # every byte went to the incomplete frame
        while end - pos >= 4:
            (length,) = _INT.unpack_from(data, pos)
            self._check_length(length, bytes(data[pos : pos + 8]))
            stop = pos + 4 + length
            if stop > end:
                self._frame, self._length = bytearray(memoryview(data)[pos + 4 : end]), length
                return frames
            frames.append(bytes(data[pos + 4 : stop]))
            pos = stop
        if pos < end:
            self._head = bytes(data[pos:end])
        return frames

    def _continue(self, data: bytes, frames: list[bytes]) -> int:
        """Give the incomplete frame (or length prefix) what it needs of ``data``; return how much was used."""
        pos = 0
        if self._frame is None:
            need = 4 - len(self._head)
            self._head += bytes(data[:need])
            pos = min(need, len(data))
            if len(self._head) < 4:
                return pos
            (length,) = _INT.unpack_from(self._head, 0)
            self._check_length(length, self._head + bytes(data[pos : pos + 4]))
            self._head = b""
            self._frame, self._length = bytearray(), length
        frame = self._frame
        take = min(self._length - len(frame), len(data) - pos)
        frame += memoryview(data)[pos : pos + take]
        if len(frame) == self._length:
            frames.append(bytes(frame))
            self._frame = None
        return pos + take

    @property
    def pending(self) -> int:
        """Bytes received but not yet part of a complete frame (an incomplete frame's length prefix included)."""
        return len(self._head) + (4 + len(self._frame) if self._frame is not None else 0)

    def clear(self) -> None:
        """Drop the bytes of an incomplete frame (the connection closed)."""
        self._head, self._frame, self._length = b"", None, 0

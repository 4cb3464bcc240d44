"""The body of REGISTER_BROKER: the topic table, its data version and the filter servers.

Java: org.apache.rocketmq.common.protocol.body.RegisterBrokerBody (rocketmq-all-4.9.3)

Plain form: fastjson JSON. Compressed form (``compressed=true``): a zlib stream of ``int len + DataVersion JSON``,
``int topicCount``, per topic ``int len + TopicConfig#encode``, then ``int len + filterServerList JSON``.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

from mqlab.common.data_version import DataVersion
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.protocol.body.topic_config_serialize_wrapper import TopicConfigSerializeWrapper
from mqlab.common.topic_config import TopicConfig
from mqlab.remoting.protocol import remoting_serializable


class RegisterBrokerBodyError(ValueError):
    """A REGISTER_BROKER body that decodes to nothing sensible."""


@dataclass(slots=True)
class RegisterBrokerBody:
    """What a broker tells the name server when it registers."""

    topic_config_serialize_wrapper: TopicConfigSerializeWrapper = field(default_factory=TopicConfigSerializeWrapper)
    filter_server_list: list[str] = field(default_factory=list)

    def encode(self, compress: bool = False) -> bytes:
        """JSON, or the compressed binary form. Java: RegisterBrokerBody#encode(boolean)."""
        if not compress:
            return remoting_serializable.encode(self)
        wrapper = self.topic_config_serialize_wrapper
        parts = []
        version = remoting_serializable.to_json(wrapper.data_version).encode("utf-8")
        parts.append(struct.pack(">i", len(version)) + version)
        parts.append(struct.pack(">i", len(wrapper.topic_config_table)))
        for config in wrapper.topic_config_table.values():
            encoded = config.encode().encode("utf-8")
            parts.append(struct.pack(">i", len(encoded)) + encoded)
        filters = remoting_serializable.to_json(self.filter_server_list).encode("utf-8")
        parts.append(struct.pack(">i", len(filters)) + filters)
        return zlib.compress(b"".join(parts), 9)

    @classmethod
    def decode(cls, data: bytes, compressed: bool) -> RegisterBrokerBody:
        """Inverse of :meth:`encode`. Java: RegisterBrokerBody#decode.

        Raises:
            RegisterBrokerBodyError: not JSON / not a zlib stream / cut short.
        """
        if not compressed:
            try:
                parsed = remoting_serializable.from_json(data)
            except ValueError as exc:
                raise RegisterBrokerBodyError(f"register body is not JSON: {exc}") from exc
            return cls(
                TopicConfigSerializeWrapper.from_json(parsed.get("topicConfigSerializeWrapper")),
                list(parsed.get("filterServerList") or []),
            )
        try:
            raw = zlib.decompress(data)
            pos = 0

            def take() -> bytes:
                nonlocal pos
                (length,) = struct.unpack_from(">i", raw, pos)
                pos += 4
                chunk = raw[pos : pos + length]
                if length < 0 or len(chunk) != length:
                    raise RegisterBrokerBodyError(f"compressed register body cut short at byte {pos}")
                pos += length
                return chunk

            version = DataVersion.from_json(remoting_serializable.from_json(take()))
            (count,) = struct.unpack_from(">i", raw, pos)
            pos += 4
            table: JavaHashMap[str, TopicConfig] = JavaHashMap()
            for _ in range(count):
                config = TopicConfig.decode(take().decode("utf-8"))
                table[config.topic_name or ""] = config
            filters = remoting_serializable.from_json(take())
        except (zlib.error, struct.error, ValueError) as exc:
            raise RegisterBrokerBodyError(f"compressed register body is not decodable: {exc}") from exc
        return cls(TopicConfigSerializeWrapper(table, version), list(filters or []))

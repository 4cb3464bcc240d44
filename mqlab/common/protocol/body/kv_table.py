"""A string-to-string table as a body (broker runtime info, the name server's order-topic list).

Java: org.apache.rocketmq.common.protocol.body.KVTable (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True)
class KVTable:
    """``{"table":{...}}``; a Java HashMap, so the wire order is HashMap order."""

    table: JavaHashMap[str, str] = field(default_factory=JavaHashMap)

    def encode(self) -> bytes:
        """Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> KVTable:
        """Java: RemotingSerializable#decode."""
        data = remoting_serializable.from_json(body) or {}
        return cls(JavaHashMap({str(k): str(v) for k, v in (data.get("table") or {}).items()}))

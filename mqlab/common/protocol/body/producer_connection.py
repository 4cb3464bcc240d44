"""The body of a GET_PRODUCER_CONNECTION_LIST answer: the connections of one producer group on one broker.

``{"connectionSet":[{"clientAddr":"ip:port","clientId":"...","language":"JAVA","version":399}]}``.

Java: org.apache.rocketmq.common.protocol.body.ProducerConnection (rocketmq-all-4.9.3). Java keeps the connections in
a HashSet of identity-hashed objects; mqlab keeps the broker's table order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.common.protocol.body.connection import Connection
from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True)
class ProducerConnection:
    """The group's connections (client id, remote address, language, version)."""

    connection_set: list[Connection] = field(default_factory=list)

    def encode(self) -> bytes:
        """Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> ProducerConnection:
        """Read a body written by mqlab or by a Java broker. Java: RemotingSerializable#decode.

        Raises:
            ValueError: the body is not a JSON object.
        """
        data = remoting_serializable.from_json(body)
        if not isinstance(data, dict):
            raise ValueError("a ProducerConnection body must be a JSON object")
        return cls([Connection.from_json(c) for c in data.get("connectionSet") or []])

"""The body of a GET_CONSUMER_LIST_BY_GROUP answer: the client ids of a group's live consumers.

Java: org.apache.rocketmq.common.protocol.body.GetConsumerListByGroupResponseBody (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True)
class GetConsumerListByGroupResponseBody:
    """``{"consumerIdList":[...]}`` in the broker's table order (the client sorts it before allocating)."""

    consumer_id_list: list[str] = field(default_factory=list)

    def encode(self) -> bytes:
        """Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> GetConsumerListByGroupResponseBody:
        """Java: RemotingSerializable#decode."""
        data = remoting_serializable.from_json(body) or {}
        return cls([str(c) for c in data.get("consumerIdList") or []])

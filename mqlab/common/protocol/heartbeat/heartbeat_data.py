"""What a client sends every 30 s: its id, its producer groups and its consumer groups with subscriptions.

Java: org.apache.rocketmq.common.protocol.heartbeat.HeartbeatData, ConsumerData, ProducerData
(rocketmq-all-4.9.3; the two small classes share this module)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData
from mqlab.remoting.protocol import remoting_serializable

E = TypeVar("E", bound=Enum)


def java_enum(cls: type[E], value: str | int) -> E:
    """An enum from JSON as fastjson reads it: by name, or by ordinal (the C++ 4.x client sends ordinals)."""
    if isinstance(value, int):
        members = list(cls)
        if not 0 <= value < len(members):
            raise ValueError(f"{value} is not an ordinal of {cls.__name__}")
        return members[value]
    return cls[value]


@dataclass(slots=True)
class ProducerData:
    """A producer group. Java: ProducerData."""

    group_name: str


@dataclass(slots=True)
class ConsumerData:
    """A consumer group and how it consumes. Java: ConsumerData."""

    group_name: str
    consume_type: ConsumeType = ConsumeType.CONSUME_PASSIVELY
    message_model: MessageModel = MessageModel.CLUSTERING
    consume_from_where: ConsumeFromWhere = ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET
    subscription_data_set: list[SubscriptionData] = field(default_factory=list)
    unit_mode: bool = False

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ConsumerData:
        """From decoded JSON."""
        return cls(
            data["groupName"],
            java_enum(ConsumeType, data.get("consumeType", "CONSUME_PASSIVELY")),
            java_enum(MessageModel, data.get("messageModel", "CLUSTERING")),
            java_enum(ConsumeFromWhere, data.get("consumeFromWhere", "CONSUME_FROM_LAST_OFFSET")),
            [SubscriptionData.from_json(s) for s in data.get("subscriptionDataSet") or []],
            bool(data.get("unitMode", False)),
        )


@dataclass(slots=True)
class HeartbeatData:
    """The HEART_BEAT body. Java: HeartbeatData."""

    client_id: str = field(default="", metadata={"json": "clientID"})
    producer_data_set: list[ProducerData] = field(default_factory=list)
    consumer_data_set: list[ConsumerData] = field(default_factory=list)

    def encode(self) -> bytes:
        """The fastjson JSON body."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> HeartbeatData:
        """From a HEART_BEAT body."""
        data = remoting_serializable.from_json(body) or {}
        return cls(
            data.get("clientID", ""),
            [ProducerData(p["groupName"]) for p in data.get("producerDataSet") or []],
            [ConsumerData.from_json(c) for c in data.get("consumerDataSet") or []],
        )

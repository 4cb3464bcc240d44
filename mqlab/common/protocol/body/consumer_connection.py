"""The body of a GET_CONSUMER_CONNECTION_LIST answer: a group's connections and subscriptions on one broker.

Fastjson writes the bean's properties in name order: ``{"connectionSet":[{"clientAddr":..,"clientId":..,
"language":"JAVA","version":399}],"consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET","consumeType":
"CONSUME_PASSIVELY","messageModel":"CLUSTERING","subscriptionTable":{"<topic>":{SubscriptionData}}}``.

Java: org.apache.rocketmq.common.protocol.body.ConsumerConnection (rocketmq-all-4.9.3). Java keeps the connections
in a HashSet of objects hashed by identity (an order no one can reproduce); mqlab keeps the broker's table order.
The subscriptions are a ConcurrentHashMap in Java; mqlab uses a JavaHashMap, which iterates String keys in the same
bucket order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import TypeVar

from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.protocol.body.connection import Connection
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData
from mqlab.remoting.protocol import remoting_serializable

E = TypeVar("E", bound=Enum)

# Java: Integer.MAX_VALUE, what computeMinVersion answers when there is no connection.
_INTEGER_MAX_VALUE = 2**31 - 1


@dataclass(slots=True)
class ConsumerConnection:
    """Connections, subscriptions (topic → SubscriptionData) and the group's consume settings."""

    connection_set: list[Connection] = field(default_factory=list)
    subscription_table: JavaHashMap[str, SubscriptionData] = field(default_factory=JavaHashMap)
    consume_type: ConsumeType | None = None
    message_model: MessageModel | None = None
    consume_from_where: ConsumeFromWhere | None = None

    def compute_min_version(self) -> int:
        """The oldest client version among the connections. Java: ConsumerConnection#computeMinVersion."""
        return min((c.version for c in self.connection_set), default=_INTEGER_MAX_VALUE)

    def encode(self) -> bytes:
        """Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> ConsumerConnection:
        """Read a body written by mqlab or by a Java broker. Java: RemotingSerializable#decode.

        Raises:
            ValueError: the body is not a JSON object.
        """
        data = remoting_serializable.from_json(body)
        if not isinstance(data, dict):
            raise ValueError("a ConsumerConnection body must be a JSON object")
        subscriptions: JavaHashMap[str, SubscriptionData] = JavaHashMap()
        for topic, sub in (data.get("subscriptionTable") or {}).items():
            subscriptions[str(topic)] = SubscriptionData.from_json(sub)
        return cls(
            [Connection.from_json(c) for c in data.get("connectionSet") or []],
            subscriptions,
            _enum(ConsumeType, data.get("consumeType")),
            _enum(MessageModel, data.get("messageModel")),
            _enum(ConsumeFromWhere, data.get("consumeFromWhere")),
        )


def _enum(kind: type[E], name: object) -> E | None:
    """The member called ``name`` (fastjson writes enums by name), ``None`` if absent or unknown."""
    return kind[name] if isinstance(name, str) and name in kind.__members__ else None

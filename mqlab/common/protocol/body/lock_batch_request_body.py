"""The body of LOCK_BATCH_MQ: which queues a client of a group wants to lock (orderly consumption).

Java: org.apache.rocketmq.common.protocol.body.LockBatchRequestBody (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlab.common.jdk.hash_map import JavaHashSet
from mqlab.common.message.message_queue import MessageQueue
from mqlab.remoting.protocol import remoting_serializable


def message_queue_from_json(data: dict[str, Any]) -> MessageQueue:
    """A MessageQueue from its fastjson object (``{"brokerName":..,"queueId":..,"topic":..}``)."""
    return MessageQueue(str(data.get("topic")), str(data.get("brokerName")), int(data.get("queueId", 0)))


@dataclass(slots=True)
class LockBatchRequestBody:
    """``{"clientId":..,"consumerGroup":..,"mqSet":[...]}`` (``mqSet`` is a Java HashSet)."""

    consumer_group: str | None = None
    client_id: str | None = None
    mq_set: JavaHashSet[MessageQueue] = field(default_factory=JavaHashSet)

    def encode(self) -> bytes:
        """Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> LockBatchRequestBody:
        """Java: RemotingSerializable#decode."""
        data = remoting_serializable.from_json(body) or {}
        return cls(
            data.get("consumerGroup"),
            data.get("clientId"),
            JavaHashSet(message_queue_from_json(mq) for mq in data.get("mqSet") or []),
        )

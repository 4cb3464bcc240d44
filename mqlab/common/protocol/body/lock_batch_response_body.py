"""The answer to LOCK_BATCH_MQ: the queues the client now holds.

Java: org.apache.rocketmq.common.protocol.body.LockBatchResponseBody (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.common.jdk.hash_map import JavaHashSet
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.body.lock_batch_request_body import message_queue_from_json
from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True)
class LockBatchResponseBody:
    """``{"lockOKMQSet":[...]}``."""

    lock_ok_mq_set: JavaHashSet[MessageQueue] = field(default_factory=JavaHashSet, metadata={"json": "lockOKMQSet"})

    def encode(self) -> bytes:
        """Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> LockBatchResponseBody:
        """Java: RemotingSerializable#decode."""
        data = remoting_serializable.from_json(body) or {}
        return cls(JavaHashSet(message_queue_from_json(mq) for mq in data.get("lockOKMQSet") or []))

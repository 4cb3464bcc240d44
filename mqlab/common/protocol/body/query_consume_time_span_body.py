"""The body of a QUERY_CONSUME_TIME_SPAN answer: one QueueTimeSpan per write queue of the topic.

Java: org.apache.rocketmq.common.protocol.body.QueryConsumeTimeSpanBody (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.common.protocol.body.queue_time_span import QueueTimeSpan
from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True)
class QueryConsumeTimeSpanBody:
    """``{"consumeTimeSpanSet":[QueueTimeSpan,...]}``."""

    consume_time_span_set: list[QueueTimeSpan] = field(default_factory=list)

    def encode(self) -> bytes:
        """Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> QueryConsumeTimeSpanBody:
        """Java: RemotingSerializable#decode."""
        data = remoting_serializable.from_json(body) or {}
        return cls([QueueTimeSpan.from_json(span) for span in data.get("consumeTimeSpanSet") or []])

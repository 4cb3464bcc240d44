"""The body of a QUERY_CONSUME_QUEUE answer: the queue's bounds and some of its units.

Java: org.apache.rocketmq.common.protocol.body.QueryConsumeQueueResponseBody (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.common.protocol.body.consume_queue_data import ConsumeQueueData
from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData
from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True)
class QueryConsumeQueueResponseBody:
    """The group's subscription and filter (when a group was named), the queue's min/max index and the units."""

    subscription_data: SubscriptionData | None = None
    filter_data: str | None = None
    queue_data: list[ConsumeQueueData] = field(default_factory=list)
    max_queue_index: int = 0
    min_queue_index: int = 0

    def encode(self) -> bytes:
        """Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> QueryConsumeQueueResponseBody:
        """Java: RemotingSerializable#decode.

        Raises:
            ValueError: the body is not a JSON object.
        """
        data = remoting_serializable.from_json(body)
        if not isinstance(data, dict):
            raise ValueError("a QueryConsumeQueueResponseBody must be a JSON object")
        sub = data.get("subscriptionData")
        return cls(
            SubscriptionData.from_json(sub) if isinstance(sub, dict) else None,
            data.get("filterData"),
            [ConsumeQueueData.from_json(unit) for unit in data.get("queueData") or []],
            int(data.get("maxQueueIndex", 0)),
            int(data.get("minQueueIndex", 0)),
        )

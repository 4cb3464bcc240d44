"""The body of CHECK_CLIENT_CONFIG: a consumer asks whether the broker can filter its subscription.

Java: org.apache.rocketmq.common.protocol.body.CheckClientRequestBody (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData
from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True)
class CheckClientRequestBody:
    """``{"clientId":..,"group":..,"subscriptionData":{...}}``."""

    client_id: str | None = None
    group: str | None = None
    subscription_data: SubscriptionData | None = None

    def encode(self) -> bytes:
        """Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes | None) -> CheckClientRequestBody | None:
        """Java: RemotingSerializable#decode (``None`` for no body)."""
        if not body:
            return None
        data = remoting_serializable.from_json(body) or {}
        sub = data.get("subscriptionData")
        return cls(data.get("clientId"), data.get("group"), SubscriptionData.from_json(sub) if sub else None)

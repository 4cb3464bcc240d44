"""What changed in a consumer group.

Java: org.apache.rocketmq.broker.client.ConsumerGroupEvent (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class ConsumerGroupEvent(Enum):
    """CHANGE (members or subscriptions), UNREGISTER (group gone), REGISTER (heartbeat seen)."""

    CHANGE = "CHANGE"
    UNREGISTER = "UNREGISTER"
    REGISTER = "REGISTER"

"""Push (passive) or pull (active) consumption.

Java: org.apache.rocketmq.common.protocol.heartbeat.ConsumeType (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class ConsumeType(Enum):
    """CONSUME_ACTIVELY (pull), CONSUME_PASSIVELY (push)."""

    CONSUME_ACTIVELY = "CONSUME_ACTIVELY"
    CONSUME_PASSIVELY = "CONSUME_PASSIVELY"

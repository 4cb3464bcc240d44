"""One queue's consumption as GET_CONSUME_STATS reports it.

Java: org.apache.rocketmq.common.admin.OffsetWrapper (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class OffsetWrapper:
    """Queue max offset (``brokerOffset``), the group's committed offset, and the store time of the last consumed."""

    broker_offset: int = 0
    consumer_offset: int = 0
    last_timestamp: int = 0

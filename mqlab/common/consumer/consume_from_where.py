"""Where a new consumer group starts reading a queue.

Java: org.apache.rocketmq.common.consumer.ConsumeFromWhere (rocketmq-all-4.9.3; three members are deprecated)
"""

from __future__ import annotations

from enum import Enum


class ConsumeFromWhere(Enum):
    """Java member names (the deprecated ones behave like CONSUME_FROM_LAST_OFFSET in 4.9.3)."""

    CONSUME_FROM_LAST_OFFSET = "CONSUME_FROM_LAST_OFFSET"
    CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST = "CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST"
    CONSUME_FROM_MIN_OFFSET = "CONSUME_FROM_MIN_OFFSET"
    CONSUME_FROM_MAX_OFFSET = "CONSUME_FROM_MAX_OFFSET"
    CONSUME_FROM_FIRST_OFFSET = "CONSUME_FROM_FIRST_OFFSET"
    CONSUME_FROM_TIMESTAMP = "CONSUME_FROM_TIMESTAMP"

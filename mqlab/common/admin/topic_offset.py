"""One queue's offsets as GET_TOPIC_STATS_INFO reports them.

Java: org.apache.rocketmq.common.admin.TopicOffset (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class TopicOffset:
    """Min and max logical offset of a queue, and the store time of its last message (0 if empty)."""

    min_offset: int = 0
    max_offset: int = 0
    last_update_timestamp: int = 0

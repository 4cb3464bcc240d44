"""A list of topic names (GET_ALL_TOPIC_LIST_FROM_NAMESERVER).

Java: org.apache.rocketmq.common.protocol.body.TopicList (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class TopicList:
    """``topic_list`` (a set in Java) and ``broker_addr`` (unused by the name server)."""

    topic_list: set[str] = field(default_factory=set)
    broker_addr: str | None = None

"""One topic subscription of a consumer group: the expression, its tags and their hash codes.

Java: org.apache.rocketmq.common.protocol.heartbeat.SubscriptionData (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlab.common.filter.expression_type import TAG
from mqlab.common.jdk.hash_map import JavaHashSet

SUB_ALL = "*"


@dataclass(slots=True)
class SubscriptionData:
    """``sub_string`` is ``*`` or ``"TagA || TagB"``; ``code_set`` holds the tags' Java hash codes.

    ``sub_version`` is the creation time in Java (a version the broker compares); here the caller passes it.
    ``filter_class_source`` is never serialised (Java marks it ``@JSONField(serialize = false)``).
    """

    topic: str | None = None
    sub_string: str | None = None
    tags_set: JavaHashSet[str] = field(default_factory=JavaHashSet)
    code_set: JavaHashSet[int] = field(default_factory=JavaHashSet)
    sub_version: int = 0
    expression_type: str = TAG
    class_filter_mode: bool = False
    filter_class_source: str | None = field(default=None, metadata={"transient": True})

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SubscriptionData:
        """From decoded fastjson JSON (a heartbeat)."""
        return cls(
            data.get("topic"),
            data.get("subString"),
            JavaHashSet(data.get("tagsSet") or []),
            JavaHashSet(int(c) for c in data.get("codeSet") or []),
            int(data.get("subVersion", 0)),
            data.get("expressionType") or TAG,
            bool(data.get("classFilterMode", False)),
        )

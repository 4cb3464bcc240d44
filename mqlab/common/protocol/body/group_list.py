"""The consumer groups of a topic on one broker (QUERY_TOPIC_CONSUME_BY_WHO): ``{"groupList":["g1","g2"]}``.

Java: org.apache.rocketmq.common.protocol.body.GroupList (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.common.jdk.hash_map import JavaHashSet
from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True)
class GroupList:
    """``group_list``: a Java HashSet of group names (its order reaches the wire)."""

    group_list: JavaHashSet[str] = field(default_factory=JavaHashSet)

    def encode(self) -> bytes:
        """Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> GroupList:
        """Java: RemotingSerializable#decode."""
        data = remoting_serializable.from_json(body) or {}
        return cls(JavaHashSet(str(g) for g in data.get("groupList") or []))

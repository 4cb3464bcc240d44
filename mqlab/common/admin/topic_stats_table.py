"""The body of GET_TOPIC_STATS_INFO: every queue of a topic on one broker with its offsets.

Java: org.apache.rocketmq.common.admin.TopicStatsTable (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.common.admin import _bean_keys
from mqlab.common.admin.topic_offset import TopicOffset
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message.message_queue import MessageQueue


@dataclass(slots=True)
class TopicStatsTable:
    """``offset_table``: MessageQueue → TopicOffset (a Java HashMap: its order reaches the wire)."""

    offset_table: JavaHashMap[MessageQueue, TopicOffset] = field(default_factory=JavaHashMap)

    def encode(self) -> bytes:
        """Fastjson JSON with the queues written as object keys. Java: RemotingSerializable#encode."""
        return ('{"offsetTable":' + _bean_keys.map_to_json(self.offset_table) + "}").encode("utf-8")

    @classmethod
    def decode(cls, body: bytes) -> TopicStatsTable:
        """Read :meth:`encode`'s output back."""
        data = _bean_keys.from_json(body) or {}
        table: JavaHashMap[MessageQueue, TopicOffset] = JavaHashMap()
        for key, value in (data.get("offsetTable") or {}).items():
            mq = dict(key)
            table[MessageQueue(mq["topic"], mq["brokerName"], int(mq["queueId"]))] = TopicOffset(
                int(value.get("minOffset", 0)),
                int(value.get("maxOffset", 0)),
                int(value.get("lastUpdateTimestamp", 0)),
            )
        return cls(table)

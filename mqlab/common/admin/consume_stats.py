"""The body of GET_CONSUME_STATS: a group's lag on every queue of its topics on one broker.

Java: org.apache.rocketmq.common.admin.ConsumeStats (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.common.admin import _bean_keys
from mqlab.common.admin.offset_wrapper import OffsetWrapper
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message.message_queue import MessageQueue
from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True)
class ConsumeStats:
    """``offset_table``: MessageQueue → OffsetWrapper; ``consume_tps``: a rate from the broker's statistics."""

    offset_table: JavaHashMap[MessageQueue, OffsetWrapper] = field(default_factory=JavaHashMap)
    consume_tps: float = 0.0

    def compute_total_diff(self) -> int:
        """Messages not yet consumed, over all queues. Java: ConsumeStats#computeTotalDiff."""
        return sum(w.broker_offset - w.consumer_offset for w in self.offset_table.values())

    def encode(self) -> bytes:
        """Fastjson JSON (properties alphabetical, queues as object keys). Java: RemotingSerializable#encode."""
        tps = remoting_serializable.to_json(self.consume_tps)
        return ('{"consumeTps":' + tps + ',"offsetTable":' + _bean_keys.map_to_json(self.offset_table) + "}").encode(
            "utf-8"
        )

    @classmethod
    def decode(cls, body: bytes) -> ConsumeStats:
        """Read :meth:`encode`'s output back."""
        data = _bean_keys.from_json(body) or {}
        table: JavaHashMap[MessageQueue, OffsetWrapper] = JavaHashMap()
        for key, value in (data.get("offsetTable") or {}).items():
            mq = dict(key)
            table[MessageQueue(mq["topic"], mq["brokerName"], int(mq["queueId"]))] = OffsetWrapper(
                int(value.get("brokerOffset", 0)),
                int(value.get("consumerOffset", 0)),
                int(value.get("lastTimestamp", 0)),
            )
        return cls(table, float(data.get("consumeTps", 0.0)))

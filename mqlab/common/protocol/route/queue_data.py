"""How a topic is laid out on one broker: queue counts, permission, system flag.

Java: org.apache.rocketmq.common.protocol.route.QueueData (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import total_ordering
from typing import Any

from mqlab.common.jdk.string_hash import java_string_compare


@total_ordering
@dataclass(slots=True, eq=True)
class QueueData:
    """One broker's share of a topic (ordered by broker name, as ``QueueData#compareTo``)."""

    broker_name: str
    read_queue_nums: int
    write_queue_nums: int
    perm: int
    topic_sys_flag: int = 0

    def __lt__(self, other: QueueData) -> bool:
        return java_string_compare(self.broker_name, other.broker_name) < 0

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QueueData:
        """From decoded JSON (older servers spelled the flag ``topicSynFlag``)."""
        return cls(
            data["brokerName"],
            int(data.get("readQueueNums", 0)),
            int(data.get("writeQueueNums", 0)),
            int(data.get("perm", 0)),
            int(data.get("topicSysFlag", data.get("topicSynFlag", 0))),
        )

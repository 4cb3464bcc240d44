"""One queue of a topic on one broker: the unit of routing, rebalancing and offsets.

Java: org.apache.rocketmq.common.message.MessageQueue (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import total_ordering

from mqlab.common.jdk.string_hash import java_string_compare, java_string_hash, to_int32


@total_ordering
@dataclass(frozen=True, slots=True, eq=True)
class MessageQueue:
    """``(topic, broker_name, queue_id)``, ordered by topic, then broker name, then queue id like Java's compareTo."""

    topic: str
    broker_name: str
    queue_id: int

    def compare_to(self, other: MessageQueue) -> int:
        """Java's three-way comparison.

        Java: MessageQueue#compareTo
        """
        result = java_string_compare(self.topic, other.topic)
        if result != 0:
            return result
        result = java_string_compare(self.broker_name, other.broker_name)
        if result != 0:
            return result
        return self.queue_id - other.queue_id

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, MessageQueue):
            return NotImplemented
        return self.compare_to(other) < 0

    def java_hash_code(self) -> int:
        """Java's hashCode (decides this queue's place in Java HashMaps and HashSets).

        Java: MessageQueue#hashCode
        """
        h = 1
        h = 31 * h + java_string_hash(self.broker_name)
        h = 31 * h + self.queue_id
        h = 31 * h + java_string_hash(self.topic)
        return to_int32(h)

    def __str__(self) -> str:
        return f"MessageQueue [topic={self.topic}, brokerName={self.broker_name}, queueId={self.queue_id}]"

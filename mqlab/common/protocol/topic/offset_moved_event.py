"""What a broker records in OFFSET_MOVED_EVENT when a pull's offset was illegal and had to move.

Java: org.apache.rocketmq.common.protocol.topic.OffsetMovedEvent (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.common.message.message_queue import MessageQueue
from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True)
class OffsetMovedEvent:
    """The group, the queue, the offset asked for and the one the broker suggested instead."""

    consumer_group: str
    message_queue: MessageQueue
    offset_request: int
    offset_new: int

    def encode(self) -> bytes:
        """The message body: fastjson JSON. Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

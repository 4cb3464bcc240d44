"""The offset-reset body a broker sends to C++ consumers: a list of queues with their offsets instead of a map.

The broker uses this form when the admin request came with language CPP (``mqadmin resetOffsetByTime -c``):
``{"offsetTable":[{"brokerName":"broker-a","offset":3,"queueId":0,"topic":"T"}]}``. A Java (or mqlab) consumer
cannot read it as a ResetOffsetBody.

Java: org.apache.rocketmq.common.protocol.body.ResetOffsetBodyForC (rocketmq-all-4.9.3)
Also here: ``MessageQueueForC`` (Java: org.apache.rocketmq.common.message.MessageQueueForC), used only by this body.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from mqlab.common.message.message_queue import MessageQueue
from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True, frozen=True)
class MessageQueueForC:
    """A queue and its offset as one bean (fastjson writes the fields alphabetically).

    Java: org.apache.rocketmq.common.message.MessageQueueForC
    """

    topic: str
    broker_name: str
    queue_id: int
    offset: int


@dataclass(slots=True)
class ResetOffsetBodyForC:
    """``offset_table``: one MessageQueueForC per queue, in the order of the map it was made from."""

    offset_table: list[MessageQueueForC] = field(default_factory=list)

    @classmethod
    def of(cls, table: Mapping[MessageQueue, int]) -> ResetOffsetBodyForC:
        """The list form of a queue → offset map. Java: Broker2Client#convertOffsetTable2OffsetList."""
        return cls([MessageQueueForC(mq.topic, mq.broker_name, mq.queue_id, offset) for mq, offset in table.items()])

    def encode(self) -> bytes:
        """Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> ResetOffsetBodyForC:
        """Java: RemotingSerializable#decode."""
        data = remoting_serializable.from_json(body) or {}
        return cls(
            [
                MessageQueueForC(str(e["topic"]), str(e["brokerName"]), int(e["queueId"]), int(e["offset"]))
                for e in data.get("offsetTable") or []
            ]
        )

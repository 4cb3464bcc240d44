"""The body of an offset reset: the offset each queue is reset to.

The broker answers INVOKE_BROKER_TO_RESET_OFFSET with it and sends it to every online consumer of the group with
RESET_CONSUMER_CLIENT_OFFSET. Java keeps the table in a HashMap keyed by MessageQueue, which fastjson writes with
the queue as an object key: ``{"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:3}}`` (not JSON a
standard reader accepts; ``_bean_keys`` reads and writes it, as for ConsumeStats).

Java: org.apache.rocketmq.common.protocol.body.ResetOffsetBody (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.common.admin import _bean_keys
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message.message_queue import MessageQueue


@dataclass(slots=True)
class ResetOffsetBody:
    """``offset_table``: MessageQueue → the offset to consume from next (a Java HashMap: its order is on the wire)."""

    offset_table: JavaHashMap[MessageQueue, int] = field(default_factory=JavaHashMap)

    def encode(self) -> bytes:
        """Compact fastjson JSON with the queues as object keys. Java: RemotingSerializable#encode."""
        return ('{"offsetTable":' + _bean_keys.map_to_json(self.offset_table) + "}").encode("utf-8")

    @classmethod
    def decode(cls, body: bytes) -> ResetOffsetBody:
        """Read a body written by mqlab or by a Java broker. Java: RemotingSerializable#decode.

        Raises:
            ValueError: the body is not an object, its table is not a map (the C++ list form), or a key is not a
                MessageQueue object.
        """
        data = _bean_keys.from_json(body)
        if not isinstance(data, dict):
            raise ValueError("a ResetOffsetBody must be a JSON object")
        entries = data.get("offsetTable") or {}
        if not isinstance(entries, dict):
            raise ValueError(f"offsetTable must map MessageQueue objects to offsets, not {type(entries).__name__}")
        table: JavaHashMap[MessageQueue, int] = JavaHashMap()
        for key, value in entries.items():
            if not isinstance(key, tuple):
                raise ValueError(f"offsetTable key {key!r} is not a MessageQueue object")
            mq = dict(key)
            table[MessageQueue(str(mq["topic"]), str(mq["brokerName"]), int(mq["queueId"]))] = int(value)
        return cls(table)

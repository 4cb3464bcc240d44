"""One queue's time span for a group: first and last store time, the consumed position's time and the delay.

Java: org.apache.rocketmq.common.protocol.body.QueueTimeSpan (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.body.lock_batch_request_body import message_queue_from_json


@dataclass(slots=True)
class QueueTimeSpan:
    """Times in epoch ms (-1 when a store-time lookup failed); ``delay_time`` in ms."""

    message_queue: MessageQueue | None = None
    min_time_stamp: int = 0
    max_time_stamp: int = 0
    consume_time_stamp: int = 0
    delay_time: int = 0

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QueueTimeSpan:
        """From decoded fastjson JSON."""
        mq = data.get("messageQueue")
        return cls(
            message_queue_from_json(mq) if isinstance(mq, dict) else None,
            int(data.get("minTimeStamp", 0)),
            int(data.get("maxTimeStamp", 0)),
            int(data.get("consumeTimeStamp", 0)),
            int(data.get("delayTime", 0)),
        )

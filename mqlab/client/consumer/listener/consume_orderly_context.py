"""What an orderly listener may set besides its status: commit mode and how long to pause after a failure.

``auto_commit`` (default true) commits the offset after SUCCESS; ``suspend_current_queue_time_millis`` -1 means the
consumer's ``suspendCurrentQueueTimeMillis`` (1000 ms), and any value is clamped to [10, 30000] ms when used.

Java: org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyContext (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.common.message.message_queue import MessageQueue


@dataclass(slots=True)
class ConsumeOrderlyContext:
    """Per consume request; the listener may change the two settings."""

    message_queue: MessageQueue
    auto_commit: bool = True
    suspend_current_queue_time_millis: int = -1

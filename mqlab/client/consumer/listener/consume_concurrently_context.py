"""What a concurrent listener may set besides its status: how far the batch succeeded, and the retry delay.

``delay_level_when_next_consume``: 0 lets the broker choose (``3 + reconsumeTimes``: 10 s, 30 s, 1 min...), -1 sends
failed messages straight to the dead-letter queue, a positive value is that delay level. ``ack_index``: with
CONSUME_SUCCESS the messages after this index are still sent back (it is clamped to ``size - 1``).

Java: org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.common.message.message_queue import MessageQueue

INTEGER_MAX_VALUE = 2**31 - 1


@dataclass(slots=True)
class ConsumeConcurrentlyContext:
    """Per consume request; the listener may change the two settings."""

    message_queue: MessageQueue
    delay_level_when_next_consume: int = 0
    ack_index: int = INTEGER_MAX_VALUE

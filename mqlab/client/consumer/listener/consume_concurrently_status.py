"""A concurrent listener's verdict on a batch: all consumed, or all to be retried later.

Java: org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class ConsumeConcurrentlyStatus(Enum):
    """CONSUME_SUCCESS acknowledges up to the context's ``ack_index``; RECONSUME_LATER sends every message back."""

    CONSUME_SUCCESS = "CONSUME_SUCCESS"
    RECONSUME_LATER = "RECONSUME_LATER"

"""An orderly listener's verdict on a batch: done, or pause this queue and try the same messages again.

Java: org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus (rocketmq-all-4.9.3; ROLLBACK and COMMIT are
deprecated and only mean something when the context's ``auto_commit`` is off)
"""

from __future__ import annotations

from enum import Enum


class ConsumeOrderlyStatus(Enum):
    """Java member names."""

    SUCCESS = "SUCCESS"
    ROLLBACK = "ROLLBACK"  # deprecated
    COMMIT = "COMMIT"  # deprecated
    SUSPEND_CURRENT_QUEUE_A_MOMENT = "SUSPEND_CURRENT_QUEUE_A_MOMENT"

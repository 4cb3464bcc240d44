"""What a producer knows about its local transaction: commit the half message, roll it back, or not yet known.

Java: org.apache.rocketmq.client.producer.LocalTransactionState (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class LocalTransactionState(Enum):
    """Java's members in Java's order (``UNKNOW`` is Java's spelling of the member name)."""

    COMMIT_MESSAGE = "COMMIT_MESSAGE"
    ROLLBACK_MESSAGE = "ROLLBACK_MESSAGE"
    UNKNOW = "UNKNOW"

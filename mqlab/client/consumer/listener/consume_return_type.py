"""How a consume call ended, as the consume services report it to hooks (``ConsumeContextType``).

A consume-message trace writes the member's ordinal as the SubAfter record's context code, so the order matters.

Java: org.apache.rocketmq.client.consumer.listener.ConsumeReturnType (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class ConsumeReturnType(Enum):
    """SUCCESS 0, TIME_OUT 1 (took at least ``consumeTimeout``), EXCEPTION 2, RETURNNULL 3, FAILED 4."""

    SUCCESS = 0
    TIME_OUT = 1
    EXCEPTION = 2
    RETURNNULL = 3
    FAILED = 4

    @property
    def ordinal(self) -> int:
        """Java's ``Enum#ordinal``."""
        return self.value

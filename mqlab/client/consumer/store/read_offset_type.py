"""Where ``OffsetStore#readOffset`` looks: the in-memory table, the store (broker or file), or memory then store.

Java: org.apache.rocketmq.client.consumer.store.ReadOffsetType (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class ReadOffsetType(Enum):
    """Java member names."""

    READ_FROM_MEMORY = "READ_FROM_MEMORY"
    READ_FROM_STORE = "READ_FROM_STORE"
    MEMORY_FIRST_THEN_STORE = "MEMORY_FIRST_THEN_STORE"

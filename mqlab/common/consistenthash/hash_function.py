"""Turns a string into a position on the ring.

Java: org.apache.rocketmq.common.consistenthash.HashFunction (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import Protocol


class HashFunction(Protocol):
    """Maps a key to a ring position (a Java ``long``; ConsistentHashRouter orders positions as signed longs)."""

    def hash(self, key: str) -> int:
        """The ring position of ``key``.

        Java: HashFunction#hash
        """
        ...

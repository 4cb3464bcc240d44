"""Anything that can be placed on a consistent-hash ring: it only needs a key to hash.

Java: org.apache.rocketmq.common.consistenthash.Node (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import Protocol


class Node(Protocol):
    """A physical node of the ring (for allocation: one consumer id)."""

    def get_key(self) -> str:
        """The string the ring hashes to place this node.

        Java: Node#getKey
        """
        ...

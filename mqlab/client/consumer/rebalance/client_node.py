"""A consumer id as a node of the consistent-hash ring.

Java: org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash$ClientNode
(rocketmq-all-4.9.3; a private nested class, promoted here)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ClientNode:
    """The ring hashes ``client_id`` (plus ``-<replica>``) to place this consumer."""

    client_id: str

    def get_key(self) -> str:
        """The consumer id. Java: AllocateMessageQueueConsistentHash$ClientNode#getKey."""
        return self.client_id

"""One replica of a physical node on the ring: the node's key with ``-<replica index>`` appended.

Java: org.apache.rocketmq.common.consistenthash.VirtualNode (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import Generic, TypeVar

from mqlab.common.consistenthash.node import Node

T = TypeVar("T", bound=Node)


class VirtualNode(Generic[T]):
    """Replica ``replica_index`` of ``physical_node``; it is itself a Node (its key is what the ring hashes)."""

    __slots__ = ("physical_node", "replica_index")

    def __init__(self, physical_node: T, replica_index: int) -> None:
        self.physical_node = physical_node
        self.replica_index = replica_index

    def get_key(self) -> str:
        """``"<physical key>-<replica index>"``, e.g. ``"10.0.0.1@1001-3"``.

        Java: VirtualNode#getKey
        """
        return f"{self.physical_node.get_key()}-{self.replica_index}"

    def is_virtual_node_of(self, p_node: T) -> bool:
        """True when this replica belongs to a physical node with the same key (keys, not identity, decide).

        Java: VirtualNode#isVirtualNodeOf
        """
        return self.physical_node.get_key() == p_node.get_key()

    def __repr__(self) -> str:
        return f"VirtualNode({self.get_key()!r})"

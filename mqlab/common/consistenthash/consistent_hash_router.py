"""A hash ring: physical nodes are placed at the hashes of their virtual nodes; a key goes to the next one clockwise.

Java: org.apache.rocketmq.common.consistenthash.ConsistentHashRouter (rocketmq-all-4.9.3)
Promoted nested class: MD5Hash (``md5_hash.py``)

Java keeps the ring in a ``TreeMap<Long, VirtualNode>``. mqlab keeps a dict from position to virtual node plus the
positions in a sorted list, which gives the same two operations: put (a later virtual node at an occupied position
replaces the earlier one, as ``TreeMap#put`` does) and "first position at or after h, else the first position".
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Generic, TypeVar

from mqlab.common.consistenthash.hash_function import HashFunction
from mqlab.common.consistenthash.md5_hash import MD5Hash
from mqlab.common.consistenthash.node import Node
from mqlab.common.consistenthash.virtual_node import VirtualNode

T = TypeVar("T", bound=Node)


class IllegalVirtualNodeCountError(ValueError):
    """A negative number of virtual nodes (Java throws IllegalArgumentException).

    Attributes:
        count: The number asked for.
    """

    def __init__(self, message: str, count: int) -> None:
        super().__init__(message)
        self.count = count


class ConsistentHashRouter(Generic[T]):
    """Builds the ring from ``p_nodes`` (each with ``v_node_count`` replicas, in iteration order) and routes keys.

    ``hash_function`` defaults to MD5Hash, like Java's two-argument constructor. (Java's three-argument constructor
    throws NullPointerException for a null hash function; in Python None simply means the default.)
    """

    def __init__(
        self, p_nodes: Iterable[T] | None, v_node_count: int, hash_function: HashFunction | None = None
    ) -> None:
        self.hash_function: HashFunction = hash_function if hash_function is not None else MD5Hash()
        self._ring: dict[int, VirtualNode[T]] = {}
        self._positions: list[int] = []  # the ring's keys, ascending (TreeMap order of Java longs)
        for p_node in p_nodes or ():
            self.add_node(p_node, v_node_count)

    def add_node(self, p_node: T, v_node_count: int) -> None:
        """Place ``v_node_count`` more replicas of ``p_node``, numbered after the replicas it already has.

        Java: ConsistentHashRouter#addNode
        """
        if v_node_count < 0:
            raise IllegalVirtualNodeCountError(f"illegal virtual node counts :{v_node_count}", v_node_count)
        existing_replicas = self.get_existing_replicas(p_node)
        for i in range(v_node_count):
            v_node = VirtualNode(p_node, i + existing_replicas)
            self._put(self.hash_function.hash(v_node.get_key()), v_node)

    def remove_node(self, p_node: T) -> None:
        """Take every replica of ``p_node`` (same key) off the ring.

        Java: ConsistentHashRouter#removeNode
        """
        doomed = [pos for pos in self._positions if self._ring[pos].is_virtual_node_of(p_node)]
        for pos in doomed:
            del self._ring[pos]
        if doomed:
            self._positions = sorted(self._ring)

    def route_node(self, object_key: str) -> T | None:
        """The physical node owning ``object_key``: the first replica at or after its hash, wrapping to the start.

        None when the ring is empty (no nodes, or zero virtual nodes each).

        Java: ConsistentHashRouter#routeNode
        """
        if not self._positions:
            return None
        hash_val = self.hash_function.hash(object_key)
        i = bisect.bisect_left(self._positions, hash_val)
        node_hash_val = self._positions[i] if i < len(self._positions) else self._positions[0]
        return self._ring[node_hash_val].physical_node

    def get_existing_replicas(self, p_node: T) -> int:
        """How many replicas with ``p_node``'s key the ring holds now (overwritten ones no longer count).

        Java: ConsistentHashRouter#getExistingReplicas
        """
        return sum(1 for v_node in self._ring.values() if v_node.is_virtual_node_of(p_node))

    def ring_entries(self) -> list[tuple[int, VirtualNode[T]]]:
        """The ring as ``(position, virtual node)`` pairs in ascending position order.

        Java: none (teaching helper; Java's ring field is private).
        """
        return [(pos, self._ring[pos]) for pos in self._positions]

    def _put(self, position: int, v_node: VirtualNode[T]) -> None:
        if position not in self._ring:
            bisect.insort(self._positions, position)
        self._ring[position] = v_node

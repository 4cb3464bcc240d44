"""Consumers on a hash ring; each queue goes to the consumer whose virtual node follows the queue's hash.

Java: org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash (rocketmq-all-4.9.3)
Promoted nested class: ClientNode (``client_node.py``)

When a consumer joins or leaves, only the queues next to its virtual nodes change hands; the price is a split
that is rarely even (with 10 virtual nodes per consumer, shares of 2x the average are common).
"""

from __future__ import annotations

from collections.abc import Sequence

from mqlab.client.consumer.rebalance.abstract_allocate_message_queue_strategy import (
    AbstractAllocateMessageQueueStrategy,
)
from mqlab.client.consumer.rebalance.client_node import ClientNode
from mqlab.common.consistenthash.consistent_hash_router import ConsistentHashRouter, IllegalVirtualNodeCountError
from mqlab.common.consistenthash.hash_function import HashFunction
from mqlab.common.message.message_queue import MessageQueue


class AllocateMessageQueueConsistentHash(AbstractAllocateMessageQueueStrategy):
    """Consistent hashing over consumer ids (``"CONSISTENT_HASH"``).

    Attributes:
        virtual_node_cnt: Replicas per consumer on the ring (Java default 10; 0 leaves the ring empty, and then
            no consumer gets any queue).
        custom_hash_function: Replaces the ring's MD5Hash when given.
    """

    def __init__(self, virtual_node_cnt: int = 10, custom_hash_function: HashFunction | None = None) -> None:
        if virtual_node_cnt < 0:
            raise IllegalVirtualNodeCountError(f"illegal virtualNodeCnt :{virtual_node_cnt}", virtual_node_cnt)
        self.virtual_node_cnt = virtual_node_cnt
        self.custom_hash_function = custom_hash_function

    def allocate(
        self,
        consumer_group: str,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """The queues, in ``mq_all`` order, whose ``str(mq)`` routes to ``current_cid`` on the ring of ``cid_all``.

        Java: AllocateMessageQueueConsistentHash#allocate
        """
        if not self.check(consumer_group, current_cid, mq_all, cid_all):
            return []
        router = self.build_router(cid_all)
        results = []
        for mq in mq_all:
            # The routing key is MessageQueue#toString: "MessageQueue [topic=..., brokerName=..., queueId=...]".
            client_node = router.route_node(str(mq))
            if client_node is not None and client_node.get_key() == current_cid:
                results.append(mq)
        return results

    def build_router(self, cid_all: Sequence[str]) -> ConsistentHashRouter[ClientNode]:
        """The ring every member of the group builds: ``virtual_node_cnt`` replicas per id, in ``cid_all`` order.

        Java: the router construction inside AllocateMessageQueueConsistentHash#allocate
        """
        return ConsistentHashRouter(
            [ClientNode(cid) for cid in cid_all], self.virtual_node_cnt, self.custom_hash_function
        )

    def get_name(self) -> str:
        """``"CONSISTENT_HASH"``. Java: AllocateMessageQueueConsistentHash#getName."""
        return "CONSISTENT_HASH"

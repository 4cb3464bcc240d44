"""Dealt like cards: queue ``j`` (in sorted order) goes to consumer ``j % c``.

Java: org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Sequence

from mqlab.client.consumer.rebalance.abstract_allocate_message_queue_strategy import (
    AbstractAllocateMessageQueueStrategy,
)
from mqlab.common.message.message_queue import MessageQueue


class AllocateMessageQueueAveragelyByCircle(AbstractAllocateMessageQueueStrategy):
    """Round robin over the consumers (``"AVG_BY_CIRCLE"``): neighbouring queues go to different consumers."""

    def allocate(
        self,
        consumer_group: str,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """Every ``len(cid_all)``-th queue, starting at ``current_cid``'s position.

        Java: AllocateMessageQueueAveragelyByCircle#allocate
        """
        if not self.check(consumer_group, current_cid, mq_all, cid_all):
            return []
        index = cid_all.index(current_cid)
        return [mq_all[i] for i in range(index, len(mq_all)) if i % len(cid_all) == index]

    def get_name(self) -> str:
        """``"AVG_BY_CIRCLE"``. Java: AllocateMessageQueueAveragelyByCircle#getName."""
        return "AVG_BY_CIRCLE"

"""Contiguous blocks: consumer ``i`` (in sorted order) gets the ``i``-th block of the sorted queues.

With ``q`` queues and ``c`` consumers every block has ``q // c`` queues and the first ``q % c`` blocks one more;
with fewer queues than consumers the first ``q`` consumers get one queue each and the rest none.

Java: org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Sequence

from mqlab.client.consumer.rebalance.abstract_allocate_message_queue_strategy import (
    AbstractAllocateMessageQueueStrategy,
)
from mqlab.common.message.message_queue import MessageQueue


class AllocateMessageQueueAveragely(AbstractAllocateMessageQueueStrategy):
    """The default strategy of DefaultMQPushConsumer and DefaultLitePullConsumer (``"AVG"``)."""

    def allocate(
        self,
        consumer_group: str,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """The block of ``mq_all`` that belongs to ``current_cid``'s position in ``cid_all``.

        Java: AllocateMessageQueueAveragely#allocate
        """
        if not self.check(consumer_group, current_cid, mq_all, cid_all):
            return []
        index = cid_all.index(current_cid)
        start, size = self.block_of(index, len(mq_all), len(cid_all))
        # Java indexes modulo the queue count; with start + size <= len(mq_all) the modulo never wraps.
        return [mq_all[(start + i) % len(mq_all)] for i in range(size)]

    @staticmethod
    def block_of(index: int, mq_count: int, cid_count: int) -> tuple[int, int]:
        """``(start, size)`` of consumer ``index``'s block; ``size`` is 0 when it gets nothing.

        Java: the arithmetic inside AllocateMessageQueueAveragely#allocate (averageSize, startIndex, range)
        """
        mod = mq_count % cid_count
        if mq_count <= cid_count:
            average_size = 1
        elif mod > 0 and index < mod:
            average_size = mq_count // cid_count + 1
        else:
            average_size = mq_count // cid_count
        start_index = index * average_size if mod > 0 and index < mod else index * average_size + mod
        return start_index, max(0, min(average_size, mq_count - start_index))

    def get_name(self) -> str:
        """``"AVG"``. Java: AllocateMessageQueueAveragely#getName."""
        return "AVG"

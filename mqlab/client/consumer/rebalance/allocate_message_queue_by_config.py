"""A fixed list of queues, whatever the group looks like.

Java: org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByConfig (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Sequence

from mqlab.client.consumer.rebalance.abstract_allocate_message_queue_strategy import (
    AbstractAllocateMessageQueueStrategy,
)
from mqlab.common.message.message_queue import MessageQueue


class AllocateMessageQueueByConfig(AbstractAllocateMessageQueueStrategy):
    """Returns ``message_queue_list`` to every caller (``"CONFIG"``); the operator decides who consumes what.

    Attributes:
        message_queue_list: The queues to consume; Java's getter/setter pair. None until set.
    """

    def __init__(self, message_queue_list: list[MessageQueue] | None = None) -> None:
        self.message_queue_list = message_queue_list

    def allocate(
        self,
        consumer_group: str,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """The configured list itself, with no argument checks: ids, queues and consumers are all ignored.

        Java returns null while nothing is configured; its only caller, RebalanceImpl#rebalanceByTopic, turns a null
        result into an empty set, so mqlab returns an empty list instead.

        Java: AllocateMessageQueueByConfig#allocate
        """
        return self.message_queue_list if self.message_queue_list is not None else []

    def get_name(self) -> str:
        """``"CONFIG"``. Java: AllocateMessageQueueByConfig#getName."""
        return "CONFIG"

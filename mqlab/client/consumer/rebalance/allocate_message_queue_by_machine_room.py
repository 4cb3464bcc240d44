"""Only queues of brokers named ``<room>@<broker>`` in the configured rooms, split in blocks among all consumers.

Java: org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueByMachineRoom (rocketmq-all-4.9.3)

The queues left after filtering are cut into ``len(cid_all)`` blocks of ``n // c``; the ``n % c`` queues left over
at the end go one each to the first consumers. Queues of other rooms, and of brokers whose name does not have
exactly two ``@``-separated parts, are allocated to nobody by this strategy.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from mqlab.client.consumer.rebalance.abstract_allocate_message_queue_strategy import (
    AbstractAllocateMessageQueueStrategy,
)
from mqlab.common.jdk.strings import java_split
from mqlab.common.message.message_queue import MessageQueue


class ConsumerIdcsNotSetError(TypeError):
    """``consumeridcs`` was never set and a broker name had to be looked up (Java: NullPointerException)."""


def java_split_at(s: str) -> list[str]:
    """``s.split("@")`` as Java computes it: trailing empty parts are dropped (``"a@b@"`` has 2 parts, ``"@"`` 0).

    Java: java.lang.String#split(String) with a one-character literal separator
    """
    return java_split(s, "@")


class AllocateMessageQueueByMachineRoom(AbstractAllocateMessageQueueStrategy):
    """Machine-room filter plus block split (``"MACHINE_ROOM"``), as in Alipay's logical rooms.

    Attributes:
        consumeridcs: The rooms whose queues this group consumes; Java's getter/setter pair. None until set.
    """

    blank_cid_is_empty = True  # 4.9.3 checks this one with StringUtils#isBlank

    def __init__(self, consumeridcs: Set[str] | None = None) -> None:
        self.consumeridcs = consumeridcs

    def allocate(
        self,
        consumer_group: str,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """``current_cid``'s block of the queues in the configured rooms, plus one leftover queue if it has one.

        Java: AllocateMessageQueueByMachineRoom#allocate
        """
        if not self.check(consumer_group, current_cid, mq_all, cid_all):
            return []
        current_index = cid_all.index(current_cid)
        premq_all = self.filter_by_room(mq_all)
        mod, rem = divmod(len(premq_all), len(cid_all))
        start_index = mod * current_index
        result = list(premq_all[start_index : start_index + mod])
        if rem > current_index:
            result.append(premq_all[current_index + mod * len(cid_all)])
        return result

    def filter_by_room(self, mq_all: Sequence[MessageQueue]) -> list[MessageQueue]:
        """The queues whose broker name is ``<room>@<rest>`` with ``<room>`` in ``consumeridcs``, in input order.

        Java: the premqAll loop of AllocateMessageQueueByMachineRoom#allocate
        """
        result = []
        for mq in mq_all:
            temp = java_split_at(mq.broker_name)
            if len(temp) == 2:
                if self.consumeridcs is None:
                    raise ConsumerIdcsNotSetError(f"consumeridcs is not set (looking up {mq})")
                if temp[0] in self.consumeridcs:
                    result.append(mq)
        return result

    def get_name(self) -> str:
        """``"MACHINE_ROOM"``. Java: AllocateMessageQueueByMachineRoom#getName."""
        return "MACHINE_ROOM"

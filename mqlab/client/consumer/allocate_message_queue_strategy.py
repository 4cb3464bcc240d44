"""How the consumers of one group split a topic's queues among themselves, each deciding alone.

Every consumer of a group runs the same strategy over the same inputs (all queues of the topic, all consumer ids
of the group) and keeps the part it computes for itself. Nobody coordinates: the split is consistent only because
the strategy is deterministic and every consumer sees the same sorted lists.

Java: org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy (rocketmq-all-4.9.3)
Implementations: ``mqlab.client.consumer.rebalance``
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cmp_to_key
from typing import Protocol

from mqlab.common.jdk.string_hash import java_string_compare
from mqlab.common.message.message_queue import MessageQueue


class AllocateMessageQueueStrategy(Protocol):
    """A rule that gives ``current_cid`` its share of ``mq_all`` among ``cid_all``."""

    def allocate(
        self,
        consumer_group: str,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """The queues ``current_cid`` should consume; the caller has sorted ``mq_all`` and ``cid_all``.

        Java: AllocateMessageQueueStrategy#allocate
        """
        ...

    def get_name(self) -> str:
        """The strategy's name, as logged by RebalanceImpl (``"AVG"``, ``"CONSISTENT_HASH"``, ...).

        Java: AllocateMessageQueueStrategy#getName
        """
        ...


def sort_for_allocation(mq_all: Iterable[MessageQueue], cid_all: Iterable[str]) -> tuple[list[MessageQueue], list[str]]:
    """Order the inputs as the caller does before every allocation: queues by (topic, broker, id), ids as strings.

    The strategies themselves do not sort, and most of them depend on the order they are given (Averagely uses the
    position of ``current_cid`` in ``cid_all``). In Java the caller, RebalanceImpl#rebalanceByTopic, copies the
    topic's queue set into a list and sorts it with ``MessageQueue#compareTo``, and sorts the consumer id list
    with ``String#compareTo`` (UTF-16 code unit order), before calling ``allocate``. Duplicates are kept.

    Java: none as a method (teaching helper): the two sorts inside RebalanceImpl#rebalanceByTopic
    """
    return sorted(mq_all), sorted(cid_all, key=cmp_to_key(java_string_compare))

"""The argument checks every allocation strategy starts with, and the errors they raise.

Java: none in rocketmq-all-4.9.3, where each strategy repeats the checks inline. RocketMQ 4.9.4 (ISSUE #3940)
moved them into ``org.apache.rocketmq.client.consumer.rebalance.AbstractAllocateMessageQueueStrategy#check``;
mqlab uses that shape but keeps 4.9.3's behaviour, which differs in one place: 4.9.3's AllocateMessageQueueByMachineRoom
rejects a whitespace-only current consumer id (commons-lang3 ``StringUtils#isBlank``), the other strategies reject
only null or empty ones (and so does 4.9.4's shared check, for all of them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from mqlab.common import util_all
from mqlab.common.message.message_queue import MessageQueue


class AllocateArgumentError(ValueError):
    """An allocation call with unusable arguments (Java throws IllegalArgumentException).

    RebalanceImpl#rebalanceByTopic catches it, logs it and leaves the consumer's queues as they were.
    """


class EmptyCurrentCidError(AllocateArgumentError):
    """The current consumer id is None or empty (ByMachineRoom: also whitespace only)."""

    def __init__(self, current_cid: str | None) -> None:
        super().__init__(f"currentCID is empty: {current_cid!r}")
        self.current_cid = current_cid


class EmptyMessageQueueListError(AllocateArgumentError):
    """``mq_all`` is None or empty: there is nothing to allocate."""

    def __init__(self) -> None:
        super().__init__("mqAll is null or mqAll empty")


class EmptyConsumerIdListError(AllocateArgumentError):
    """``cid_all`` is None or empty: nobody to allocate to."""

    def __init__(self) -> None:
        super().__init__("cidAll is null or cidAll empty")


class AbstractAllocateMessageQueueStrategy:
    """Base of the strategies: ``check`` plus the class attribute saying which emptiness test applies."""

    # True only for AllocateMessageQueueByMachineRoom, whose 4.9.3 check is StringUtils#isBlank.
    blank_cid_is_empty: ClassVar[bool] = False

    def check(
        self,
        consumer_group: str,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> bool:
        """Raise for an empty id or list; False (allocate nothing) when ``current_cid`` is not in ``cid_all``.

        The order is Java's: current id, then queues, then consumer ids. A consumer that is missing from the id
        list (the broker has not seen its heartbeat yet) gets nothing rather than an error; Java logs it as
        ``[BUG]`` at info level.

        Java: the inline checks at the top of each 4.9.3 ``allocate``; AbstractAllocateMessageQueueStrategy#check
        (4.9.4)
        """
        if current_cid is None or current_cid == "" or (self.blank_cid_is_empty and util_all.is_blank(current_cid)):
            raise EmptyCurrentCidError(current_cid)
        if not mq_all:
            raise EmptyMessageQueueListError()
        if not cid_all:
            raise EmptyConsumerIdListError()
        return current_cid in cid_all

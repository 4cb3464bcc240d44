"""Where a consumer keeps the next offset to consume for each queue it holds.

Consume services call ``update_offset`` after each batch (increase-only for concurrent consumption, so a batch that
finishes late cannot move the offset back); a scheduled task calls ``persist_all`` every
``persistConsumerOffsetInterval`` (5 s); rebalance reads the stored offset of a newly assigned queue and persists and
removes the offset of a queue it gives up. Clustering consumers keep offsets on the broker
(RemoteBrokerOffsetStore), broadcasting consumers in a local file (LocalFileOffsetStore).

``read_offset`` returns -1 when there is no offset, and RemoteBrokerOffsetStore returns -2 when the broker could not
be asked.

Java: org.apache.rocketmq.client.consumer.store.OffsetStore (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Mapping, Set
from typing import Protocol

from mqlab.client.consumer.store.read_offset_type import ReadOffsetType
from mqlab.common.message.message_queue import MessageQueue


class OffsetStore(Protocol):
    """An in-memory offset table backed by a store."""

    def load(self) -> None:
        """Read the stored offsets into memory (a no-op for the broker store).

        Java: OffsetStore#load
        """
        ...

    def update_offset(self, mq: MessageQueue, offset: int, increase_only: bool) -> None:
        """Set the in-memory offset of ``mq`` (with ``increase_only``, only if it grows).

        Java: OffsetStore#updateOffset
        """
        ...

    def read_offset(self, mq: MessageQueue, read_type: ReadOffsetType) -> int:
        """The offset of ``mq`` from memory and/or the store; -1 if there is none.

        Java: OffsetStore#readOffset
        """
        ...

    def persist_all(self, mqs: Set[MessageQueue]) -> None:
        """Write the offsets of ``mqs`` to the store.

        Java: OffsetStore#persistAll
        """
        ...

    def persist(self, mq: MessageQueue) -> None:
        """Write the offset of one queue to the store.

        Java: OffsetStore#persist
        """
        ...

    def remove_offset(self, mq: MessageQueue) -> None:
        """Forget the in-memory offset of ``mq``.

        Java: OffsetStore#removeOffset
        """
        ...

    def clone_offset_table(self, topic: str | None) -> Mapping[MessageQueue, int]:
        """A copy of the in-memory offsets (of ``topic`` only, unless it is blank).

        Java: OffsetStore#cloneOffsetTable
        """
        ...

    def update_consume_offset_to_broker(self, mq: MessageQueue, offset: int, is_oneway: bool) -> None:
        """Send ``offset`` for ``mq`` to the broker (a no-op for the file store).

        Java: OffsetStore#updateConsumeOffsetToBroker
        """
        ...

"""A standing order to keep pulling one queue for one consumer group, re-queued after every pull.

Rebalance creates one per newly assigned queue (with the start offset from ``computePullFromWhere``) and hands it to
PullMessageService; ``DefaultMQPushConsumerImpl#pullMessage`` updates ``next_offset`` from each result and puts the
same object back, immediately or after a delay. ``previously_locked`` makes an orderly consumer re-read its offset
from the broker on the first pull after the queue lock is obtained. Two pull requests are equal when group and queue
are equal.

Java: org.apache.rocketmq.client.impl.consumer.PullRequest (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.client.impl.consumer.process_queue import ProcessQueue
from mqlab.common.message.message_queue import MessageQueue


class PullRequest:
    """Group, queue, its ProcessQueue and the next offset to pull."""

    __slots__ = ("consumer_group", "message_queue", "next_offset", "previously_locked", "process_queue")

    def __init__(
        self,
        consumer_group: str,
        message_queue: MessageQueue,
        process_queue: ProcessQueue,
        next_offset: int,
        *,
        previously_locked: bool = False,
    ):
        self.consumer_group = consumer_group
        self.message_queue = message_queue
        self.process_queue = process_queue
        self.next_offset = next_offset
        self.previously_locked = previously_locked

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PullRequest):
            return NotImplemented
        return (self.consumer_group, self.message_queue) == (other.consumer_group, other.message_queue)

    def __hash__(self) -> int:
        return hash((self.consumer_group, self.message_queue))

    def __str__(self) -> str:
        return (
            f"PullRequest [consumerGroup={self.consumer_group}, messageQueue={self.message_queue}, "
            f"nextOffset={self.next_offset}]"
        )

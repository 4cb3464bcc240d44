"""A lite pull consumer's queues and, per queue, where it pulls, what it consumed, a pending seek and a pause flag.

Three offsets per queue move independently: the **pull offset** (where the next pull starts, from the last pull's
``nextBeginOffset``), the **consume offset** (what ``poll`` handed out: the offset ``ProcessQueue#removeMessage``
returned, committed by ``commitSync`` or auto-commit) and the **seek offset** (-1, or where a ``seek`` wants the next
pull to start; the pull task takes it and resets it to -1).

In subscribe mode the queues come from rebalance (each queue shares its ProcessQueue with the rebalance table); in
assign mode the user lists them and each gets its own ProcessQueue. A queue that leaves the set is dropped.

Java: org.apache.rocketmq.client.impl.consumer.AssignedMessageQueue (rocketmq-all-4.9.3), with its inner class
MessageQueueState (``MessageQueueState`` here).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqlab.client.impl.consumer.process_queue import ProcessQueue
    from mqlab.client.impl.consumer.rebalance_impl import RebalanceImpl
    from mqlab.common.message.message_queue import MessageQueue


@dataclass(slots=True)
class MessageQueueState:
    """One assigned queue's state. Java: AssignedMessageQueue$MessageQueueState."""

    message_queue: MessageQueue
    process_queue: ProcessQueue
    paused: bool = False
    pull_offset: int = -1
    consume_offset: int = -1
    seek_offset: int = -1


class AssignedMessageQueue:
    """The assigned queues of a lite pull consumer, in assignment order.

    Args:
        new_process_queue: makes the ProcessQueue of a queue rebalance does not know (Java: ``new ProcessQueue()``).
    """

    def __init__(self, new_process_queue: Callable[[], ProcessQueue]):
        self.new_process_queue = new_process_queue
        self.assigned_message_queue_state: dict[MessageQueue, MessageQueueState] = {}
        self.rebalance_impl: RebalanceImpl | None = None
        self._lock = threading.RLock()

    def message_queues(self) -> list[MessageQueue]:
        """The assigned queues. Java: AssignedMessageQueue#messageQueues."""
        with self._lock:
            return list(self.assigned_message_queue_state)

    def is_paused(self, mq: MessageQueue) -> bool:
        """Paused, or not assigned at all. Java: AssignedMessageQueue#isPaused."""
        state = self.assigned_message_queue_state.get(mq)
        return state.paused if state is not None else True

    def pause(self, mqs: Collection[MessageQueue]) -> None:
        """Java: AssignedMessageQueue#pause."""
        for mq in mqs:
            state = self.assigned_message_queue_state.get(mq)
            if state is not None:
                state.paused = True

    def resume(self, mqs: Collection[MessageQueue]) -> None:
        """Java: AssignedMessageQueue#resume."""
        for mq in mqs:
            state = self.assigned_message_queue_state.get(mq)
            if state is not None:
                state.paused = False

    def get_process_queue(self, mq: MessageQueue) -> ProcessQueue | None:
        """Java: AssignedMessageQueue#getProcessQueue."""
        state = self.assigned_message_queue_state.get(mq)
        return state.process_queue if state is not None else None

    def get_pull_offset(self, mq: MessageQueue) -> int:
        """-1 until the first pull answered. Java: AssignedMessageQueue#getPullOffset."""
        state = self.assigned_message_queue_state.get(mq)
        return state.pull_offset if state is not None else -1

    def update_pull_offset(self, mq: MessageQueue, offset: int, process_queue: ProcessQueue) -> None:
        """Set the pull offset, unless the queue's ProcessQueue was replaced meanwhile.

        Java: AssignedMessageQueue#updatePullOffset
        """
        state = self.assigned_message_queue_state.get(mq)
        if state is not None and state.process_queue is process_queue:
            state.pull_offset = offset

    def get_consumer_offset(self, mq: MessageQueue) -> int:
        """Java: AssignedMessageQueue#getConsumerOffset."""
        state = self.assigned_message_queue_state.get(mq)
        return state.consume_offset if state is not None else -1

    def update_consume_offset(self, mq: MessageQueue, offset: int) -> None:
        """Java: AssignedMessageQueue#updateConsumeOffset."""
        state = self.assigned_message_queue_state.get(mq)
        if state is not None:
            state.consume_offset = offset

    def set_seek_offset(self, mq: MessageQueue, offset: int) -> None:
        """Java: AssignedMessageQueue#setSeekOffset."""
        state = self.assigned_message_queue_state.get(mq)
        if state is not None:
            state.seek_offset = offset

    def get_seek_offset(self, mq: MessageQueue) -> int:
        """Java: AssignedMessageQueue#getSeekOffset."""
        state = self.assigned_message_queue_state.get(mq)
        return state.seek_offset if state is not None else -1

    def update_assigned_message_queue(self, assigned: Collection[MessageQueue], topic: str | None = None) -> None:
        """Make the set (of ``topic`` only, when given) equal ``assigned``; removed queues are dropped.

        Java: AssignedMessageQueue#updateAssignedMessageQueue (both overloads)
        """
        with self._lock:
            for mq, state in list(self.assigned_message_queue_state.items()):
                if (topic is None or mq.topic == topic) and mq not in assigned:
                    state.process_queue.dropped = True
                    del self.assigned_message_queue_state[mq]
            self._add_assigned_message_queue(assigned)

    def _add_assigned_message_queue(self, assigned: Collection[MessageQueue]) -> None:
        """New queues share rebalance's ProcessQueue when there is one. Java: #addAssignedMessageQueue."""
        for mq in assigned:
            if mq in self.assigned_message_queue_state:
                continue
            pq = None
            if self.rebalance_impl is not None:
                pq = self.rebalance_impl.process_queue_table.get(mq)
            self.assigned_message_queue_state[mq] = MessageQueueState(
                mq, pq if pq is not None else self.new_process_queue()
            )

    def remove_assigned_message_queue(self, topic: str) -> None:
        """Forget every queue of ``topic``. Java: AssignedMessageQueue#removeAssignedMessageQueue."""
        with self._lock:
            for mq in [mq for mq in self.assigned_message_queue_state if mq.topic == topic]:
                del self.assigned_message_queue_state[mq]

    def get_assigned_message_queues(self) -> list[MessageQueue]:
        """Java: AssignedMessageQueue#getAssignedMessageQueues."""
        return self.message_queues()

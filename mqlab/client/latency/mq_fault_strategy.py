"""How a producer picks the queue for each send attempt, optionally steering around slow brokers.

With ``send_latency_fault_enable`` off (the 4.9.3 default) this is just TopicPublishInfo's round robin that avoids
the broker of the previous failed attempt. With it on, every attempt's latency is turned into an isolation window
(the ``latency_max`` step it reaches selects the ``not_available_duration`` at the same index; an exception counts
as 30 s of latency → 10 minutes) and the round robin skips queues whose broker is inside its window. If every
broker is isolated, the least bad one (``pick_one_at_least``) gets the send.

Java: org.apache.rocketmq.client.latency.MQFaultStrategy (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mqlab.client.common.thread_local_index import java_int_rem, queue_position
from mqlab.client.impl.producer.topic_publish_info import TopicPublishInfo
from mqlab.client.latency.latency_fault_tolerance_impl import LatencyFaultToleranceImpl
from mqlab.common.jdk.string_hash import to_int32
from mqlab.common.message.message_queue import MessageQueue

if TYPE_CHECKING:
    from random import Random

# Latency steps (ms) and the isolation (ms) each step earns, index by index.
LATENCY_MAX = (50, 100, 550, 1000, 2000, 3000, 15000)
NOT_AVAILABLE_DURATION = (0, 0, 30000, 60000, 120000, 180000, 600000)
# The latency an exception is charged with (isolation=True), which lands on the 15000 step: 600,000 ms.
ISOLATION_LATENCY = 30000


class MQFaultStrategy:
    """Queue selection for sends, plus the latency bookkeeping behind ``send_latency_fault_enable``.

    Args:
        now_ms: The clock (epoch ms).
        rng: The node's random stream (for the fault table's shuffle and round robin).
    """

    def __init__(self, now_ms: Callable[[], int], rng: Random):
        self.latency_fault_tolerance = LatencyFaultToleranceImpl(now_ms, rng)
        self.send_latency_fault_enable = False
        self.latency_max: list[int] = list(LATENCY_MAX)
        self.not_available_duration: list[int] = list(NOT_AVAILABLE_DURATION)

    def select_one_message_queue(self, tp_info: TopicPublishInfo, last_broker_name: str | None) -> MessageQueue:
        """The queue for the next send attempt.

        Fault avoidance off: ``tp_info.select_one_message_queue(last_broker_name)``. On: the first queue in round
        robin whose broker is available (``last_broker_name`` is not consulted); else a queue rewritten onto the
        broker ``pick_one_at_least`` names; else (no such broker in the route, or anything failing on the way, which
        Java catches and logs) plain round robin.

        Java: MQFaultStrategy#selectOneMessageQueue
        """
        if not self.send_latency_fault_enable:
            return tp_info.select_one_message_queue(last_broker_name)
        try:
            mq = self._select_available_queue(tp_info)
            if mq is not None:
                return mq
            mq = self._select_not_best_broker_queue(tp_info)
            if mq is not None:
                return mq
        except Exception:
            pass  # Java catches (and logs) every exception here, then falls back to plain round robin
        return tp_info.select_one_message_queue()

    def _select_available_queue(self, tp_info: TopicPublishInfo) -> MessageQueue | None:
        """One counter value, then up to ``size`` consecutive positions: the first queue on an available broker.

        Java: the first loop of MQFaultStrategy#selectOneMessageQueue
        """
        queues = tp_info.message_queue_list
        index = tp_info.send_which_queue.increment_and_get()
        for _ in range(len(queues)):
            mq = queues[queue_position(index, len(queues))]
            index = to_int32(index + 1)  # Java's index++ on an int
            if self.latency_fault_tolerance.is_available(mq.broker_name):
                return mq
        return None

    def _select_not_best_broker_queue(self, tp_info: TopicPublishInfo) -> MessageQueue | None:
        """Move the next round-robin queue onto the least bad broker, or drop that broker from the table.

        Java takes the queue object out of ``messageQueueList`` and sets its broker name and queue id in place, so
        the producer's list itself changes until the route is rebuilt (and the same queue object may now be listed
        under a broker that already had that queue id). mqlab keeps this 4.9.3 behaviour: MessageQueue is immutable
        here, so the rewritten queue replaces the original at the same position of the list.

        Java: the fallback branch of MQFaultStrategy#selectOneMessageQueue
        """
        not_best_broker = self.latency_fault_tolerance.pick_one_at_least()
        write_queue_nums = tp_info.get_queue_id_by_broker(not_best_broker)
        if write_queue_nums <= 0:
            self.latency_fault_tolerance.remove(not_best_broker)
            return None
        mq = tp_info.select_one_message_queue()
        if not_best_broker is None:
            return mq
        queue_id = java_int_rem(tp_info.send_which_queue.increment_and_get(), write_queue_nums)
        rewritten = MessageQueue(mq.topic, not_best_broker, queue_id)
        queues = tp_info.message_queue_list
        position = next(i for i, queue in enumerate(queues) if queue is mq)
        queues[position] = rewritten
        return rewritten

    def update_fault_item(self, broker_name: str, current_latency: int, isolation: bool) -> None:
        """Record a send attempt's latency (``isolation``: it failed; charge 30 s) when fault avoidance is on.

        Java: MQFaultStrategy#updateFaultItem
        """
        if self.send_latency_fault_enable:
            duration = self.compute_not_available_duration(ISOLATION_LATENCY if isolation else current_latency)
            self.latency_fault_tolerance.update_fault_item(broker_name, current_latency, duration)

    def compute_not_available_duration(self, current_latency: int) -> int:
        """The isolation of the highest ``latency_max`` step that ``current_latency`` reaches (0 below 50 ms).

        Java: MQFaultStrategy#computeNotAvailableDuration
        """
        for i in range(len(self.latency_max) - 1, -1, -1):
            if current_latency >= self.latency_max[i]:
                return self.not_available_duration[i]
        return 0

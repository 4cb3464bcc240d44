"""The one loop of a client instance that sends every push consumer's pulls, one PullRequest at a time.

Rebalance puts a PullRequest for each newly assigned queue on the queue of this service; the service takes one,
finds its consumer by group and calls ``DefaultMQPushConsumerImpl#pullMessage``, which sends an asynchronous
PULL_MESSAGE and returns at once. The request comes back to this queue from the pull callback (immediately after a
result, or later after flow control or an error), so each assigned queue has exactly one pull in flight or waiting.

Java's thread blocks in ``LinkedBlockingQueue#take``. mqlab's ``run_once`` takes at most one request; putting a
request wakes the service, and the service wakes itself again while requests are waiting, so the requests are served
in arrival order exactly as by ``take``. The idle wait (``IDLE_WAIT_MILLIS``) only bounds how long a lost wake-up
could delay a pull; it is not a RocketMQ setting.

Java: org.apache.rocketmq.client.impl.consumer.PullMessageService (rocketmq-all-4.9.3). 4.9.3 serves push consumers
only (the lite pull consumer schedules its own pull tasks).
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mqlab.common.service_thread import ServiceThread

if TYPE_CHECKING:
    from mqlab.client.impl.consumer.pull_request import PullRequest
    from mqlab.client.impl.factory.mq_client_instance import MQClientInstance

# How long the loop sleeps when no request is waiting (Java blocks without limit on take()).
IDLE_WAIT_MILLIS = 10_000


class PullMessageService(ServiceThread):
    """A FIFO of PullRequests and the loop that serves it.

    Args:
        mq_client_factory: the client instance; its ``runtime`` drives the loop and the delayed re-queues, and
            ``select_consumer(group)`` finds the consumer of a request.
    """

    works_after_last_wait = False  # Java's shutdown(true) interrupts take(): no pull after the last wait

    def __init__(self, mq_client_factory: MQClientInstance):
        super().__init__(mq_client_factory.runtime)
        self.mq_client_factory = mq_client_factory
        self.pull_request_queue: collections.deque[PullRequest] = collections.deque()
        self._queue_lock = threading.Lock()
        self._timers: set[Any] = set()
        self._timers_lock = threading.Lock()

    def get_service_name(self) -> str:
        """Java: PullMessageService#getServiceName."""
        return "PullMessageService"

    def wait_interval_ms(self) -> int:
        """Idle wait between rounds (a put wakes the loop at once)."""
        return IDLE_WAIT_MILLIS

    # -- putting requests -------------------------------------------------------------------------------------
    def execute_pull_request_later(self, pull_request: PullRequest, time_delay: int) -> None:
        """Put ``pull_request`` back after ``time_delay`` ms (nothing once the service is stopped).

        Java: PullMessageService#executePullRequestLater
        """
        if self.is_stopped():
            self.runtime.trace_event(self.get_service_name(), "stoppedDropLater", mq=str(pull_request.message_queue))
            return
        self._schedule(time_delay, lambda: self.execute_pull_request_immediately(pull_request))

    def execute_pull_request_immediately(self, pull_request: PullRequest) -> None:
        """Put ``pull_request`` at the tail of the queue and wake the loop.

        Java: PullMessageService#executePullRequestImmediately
        """
        with self._queue_lock:
            self.pull_request_queue.append(pull_request)
        self.wakeup()

    def execute_task_later(self, task: Callable[[], Any], time_delay: int) -> None:
        """Run ``task`` after ``time_delay`` ms on the service's timer (nothing once stopped).

        Java: PullMessageService#executeTaskLater
        """
        if self.is_stopped():
            return
        self._schedule(time_delay, task)

    def _schedule(self, delay: int, task: Callable[[], Any]) -> None:
        """One timer of Java's single-thread ``scheduledExecutorService``; remembered so shutdown can cancel it."""
        holder: list[Any] = []

        def run() -> None:
            with self._timers_lock:
                if holder:
                    self._timers.discard(holder[0])
            if not self.is_stopped():
                task()

        handle = self.runtime.scheduler.call_later(delay, run, name="PullMessageServiceScheduledThread")
        with self._timers_lock:
            holder.append(handle)
            self._timers.add(handle)

    # -- the loop ------------------------------------------------------------------------------------------------
    def run_once(self) -> PullRequest | None:
        """Take the oldest waiting request (if any) and pull for it; returns the request served.

        Java: the body of PullMessageService#run (``take`` then ``pullMessage``)
        """
        with self._queue_lock:
            pull_request = self.pull_request_queue.popleft() if self.pull_request_queue else None
            more_waiting = bool(self.pull_request_queue)
        if pull_request is not None:
            try:
                self.pull_message(pull_request)
            except Exception as exc:  # Java logs "Pull Message Service Run Method exception" and goes on
                self.runtime.trace_event(self.get_service_name(), "runException", error=repr(exc))
        if more_waiting:
            self.wakeup()  # take() would return again at once
        return pull_request

    def pull_message(self, pull_request: PullRequest) -> None:
        """Hand the request to the consumer of its group (dropped with a trace if that group is gone).

        Java: PullMessageService#pullMessage
        """
        consumer = self.mq_client_factory.select_consumer(pull_request.consumer_group)
        if consumer is None:
            self.runtime.trace_event(self.get_service_name(), "noConsumer", group=pull_request.consumer_group)
            return
        consumer.pull_message(pull_request)

    def shutdown(self) -> None:
        """Stop the loop and cancel the delayed re-queues.

        Java: PullMessageService#shutdown (ThreadUtils#shutdownGracefully of the scheduled executor)
        """
        super().shutdown()
        with self._timers_lock:
            timers, self._timers = list(self._timers), set()
        for timer in timers:
            timer.cancel()

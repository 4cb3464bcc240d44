"""Answer requests early rather than late: the broker's sweeper over its processor queues, every 10 ms.

Each run (only while ``brokerFastFailureEnable``, the default):

1. While the store's page cache is busy (the CommitLog put lock held for more than ``osPageCacheBusyTimeOutMills``),
   take the send queue's head and answer it SYSTEM_BUSY ``[PCBUSY_CLEAN_QUEUE]broker busy, start flow control for a
   while, period in queue: <ms>ms, size of queue: <n>`` (period = now − arrival, size after the removal).
2. For the send, pull, heartbeat and end-transaction queues, with ``waitTimeMillsInSendQueue`` (200),
   ``waitTimeMillsInPullQueue`` (5000), ``waitTimeMillsInHeartbeatQueue`` (31,000) and
   ``waitTimeMillsInTransactionQueue`` (3000): while the head has waited at least that long, stop it, remove it and
   answer SYSTEM_BUSY ``[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: <ms>ms,
   size of queue: <n>``. Only the head is examined, so the queue is cleaned in arrival order.

Answers go out with the request's opaque even for oneway requests. Failures inside a run are swallowed. The other
pools (query, client and consumer management, admin) are never swept.

Java: org.apache.rocketmq.broker.latency.BrokerFastFailure (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.broker.latency.broker_fixed_thread_pool_executor import BrokerFixedThreadPoolExecutor
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.netty.request_task import RequestTask

if TYPE_CHECKING:
    from mqlab.broker.broker_controller import BrokerController
    from mqlab.broker.latency.future_task_ext import FutureTaskExt

COMPONENT = "BrokerFastFailure"
# Java: scheduleAtFixedRate(..., 1000, 10, MILLISECONDS)
INITIAL_DELAY_MILLIS = 1000
PERIOD_MILLIS = 10
PCBUSY_REMARK = (
    "[PCBUSY_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: {}ms, size of queue: {}"
)
TIMEOUT_REMARK = (
    "[TIMEOUT_CLEAN_QUEUE]broker busy, start flow control for a while, period in queue: {}ms, size of queue: {}"
)


def cast_runnable(runnable: FutureTaskExt | None) -> RequestTask | None:
    """The RequestTask inside a queued task, or None. Java: BrokerFastFailure#castRunnable."""
    if runnable is None:
        return None
    task = runnable.get_runnable()
    return task if isinstance(task, RequestTask) else None


class BrokerFastFailure:
    """The sweeper of one broker.

    Args:
        broker_controller: its store (page-cache state), its pools and its BrokerConfig.
    """

    def __init__(self, broker_controller: BrokerController):
        self.broker_controller = broker_controller
        self.runtime = broker_controller.runtime
        self._timer: Any = None

    def start(self) -> None:
        """Run every 10 ms after 1 s. Java: BrokerFastFailure#start."""
        self._timer = self.runtime.scheduler.schedule_at_fixed_rate(
            INITIAL_DELAY_MILLIS, PERIOD_MILLIS, self.run_once, name="BrokerFastFailureScheduledThread"
        )

    def shutdown(self) -> None:
        """Java: BrokerFastFailure#shutdown."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def run_once(self) -> int:
        """One tick: clean if enabled; the number of requests answered."""
        if not self.broker_controller.broker_config.broker_fast_failure_enable:
            return 0
        return self.clean_expired_request()

    def _queue(self, name: str) -> BrokerFixedThreadPoolExecutor | None:
        executor = getattr(self.broker_controller, name, None)
        return executor if isinstance(executor, BrokerFixedThreadPoolExecutor) else None

    def clean_expired_request(self) -> int:
        """Page-cache clean-up of the send queue, then the four timeout sweeps.

        Java: BrokerFastFailure#cleanExpiredRequest
        """
        answered = self.clean_page_cache_busy()
        config = self.broker_controller.broker_config
        for executor_name, max_wait in (
            ("send_message_executor", config.wait_time_mills_in_send_queue),
            ("pull_message_executor", config.wait_time_mills_in_pull_queue),
            ("heartbeat_executor", config.wait_time_mills_in_heartbeat_queue),
            ("end_transaction_executor", config.wait_time_mills_in_transaction_queue),
        ):
            executor = self._queue(executor_name)
            if executor is not None:
                answered += self.clean_expired_request_in_queue(executor, max_wait)
        return answered

    def clean_page_cache_busy(self) -> int:
        """While the page cache is busy, answer the send queue's head with ``[PCBUSY_CLEAN_QUEUE]``.

        Java: the first loop of BrokerFastFailure#cleanExpiredRequest
        """
        send = self._queue("send_message_executor")
        store = self.broker_controller.message_store
        answered = 0
        while send is not None and store.is_os_page_cache_busy():
            runnable = send.poll()
            if runnable is None:
                break
            task = cast_runnable(runnable)
            if task is None:
                continue  # Java: the cast's null fails inside the try and the loop goes on
            period = self.runtime.now_ms() - task.create_timestamp
            answered += self._answer(task, PCBUSY_REMARK.format(period, len(send.queue)), "pcBusyCleanQueue")
        return answered

    def clean_expired_request_in_queue(self, executor: BrokerFixedThreadPoolExecutor, max_wait_mills: int) -> int:
        """Answer ``[TIMEOUT_CLEAN_QUEUE]`` to the head while it has waited ``max_wait_mills`` or more.

        Java: BrokerFastFailure#cleanExpiredRequestInQueue
        """
        answered = 0
        while True:
            runnable = executor.peek()
            task = cast_runnable(runnable)
            if runnable is None or task is None or task.stop_run:
                return answered
            behind = self.runtime.now_ms() - task.create_timestamp
            if behind < max_wait_mills:
                return answered
            if executor.remove(runnable):
                task.stop_run = True
                answered += self._answer(task, TIMEOUT_REMARK.format(behind, len(executor.queue)), "timeoutCleanQueue")

    def _answer(self, task: RequestTask, remark: str, event: str) -> int:
        self.runtime.trace_event(COMPONENT, event, code=task.request.code, opaque=task.request.opaque, remark=remark)
        try:
            task.return_response(ResponseCode.SYSTEM_BUSY, remark)
        except Exception as exc:  # Java swallows every failure of the sweep
            self.runtime.trace_event(COMPONENT, "answerFailed", error=repr(exc))
        return 1

"""Long polling: pulls that found nothing wait here until a message arrives or their time is up.

Java: org.apache.rocketmq.broker.longpolling.PullRequestHoldService (rocketmq-all-4.9.3)

Two things wake a held pull. (1) ``notify_message_arriving``, called by the store's reput for every dispatched
message (``NotifyMessageArrivingListener``): a pull of that queue whose offset is now below the max offset and whose
filter accepts the new message's tags code is run again at once. (2) ``run_once`` (Java's ``checkHoldRequest``),
every 5 s with long polling or every ``shortPollingTimeMills`` without: each queue's max offset is compared with every
held pull, and a pull whose suspend time has passed is run again, which answers PULL_NOT_FOUND. A pull run again
goes through the whole PullMessageProcessor once more, with suspending forbidden.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mqlab.broker.longpolling.many_pull_request import ManyPullRequest
from mqlab.common.service_thread import ServiceThread

if TYPE_CHECKING:
    from mqlab.broker.longpolling.pull_request import PullRequest
    from mqlab.common.broker_config import BrokerConfig
    from mqlab.remoting.protocol.remoting_command import RemotingCommand
    from mqlab.runtime.runtime import Runtime

TOPIC_QUEUEID_SEPARATOR = "@"
# Java: waitForRunning(5 * 1000) when longPollingEnable.
LONG_POLLING_CHECK_INTERVAL_MS = 5 * 1000


class PullRequestHoldService(ServiceThread):
    """Held pulls keyed ``topic@queueId``.

    Args:
        runtime: clock, scheduler, trace.
        broker_config: ``longPollingEnable`` and ``shortPollingTimeMills``.
        get_max_offset_in_queue: the store's ``get_max_offset_in_queue(topic, queue_id)``.
        execute_request_when_wakeup: runs a pull again (``PullMessageProcessor#executeRequestWhenWakeup``).
    """

    def __init__(
        self,
        runtime: Runtime,
        broker_config: BrokerConfig,
        get_max_offset_in_queue: Callable[[str, int], int],
        execute_request_when_wakeup: Callable[[Any, RemotingCommand], None],
    ):
        super().__init__(runtime)
        self.broker_config = broker_config
        self.get_max_offset_in_queue = get_max_offset_in_queue
        self.execute_request_when_wakeup = execute_request_when_wakeup
        self.pull_request_table: dict[str, ManyPullRequest] = {}
        self._table_lock = threading.Lock()

    def get_service_name(self) -> str:
        """Java: PullRequestHoldService#getServiceName."""
        return "PullRequestHoldService"

    def wait_interval_ms(self) -> int:
        """5 s with long polling, else ``shortPollingTimeMills`` (1 s by default)."""
        if self.broker_config.long_polling_enable:
            return LONG_POLLING_CHECK_INTERVAL_MS
        return int(self.broker_config.short_polling_time_mills)

    @staticmethod
    def build_key(topic: str, queue_id: int) -> str:
        """``topic@queueId``. Java: PullRequestHoldService#buildKey."""
        return f"{topic}{TOPIC_QUEUEID_SEPARATOR}{queue_id}"

    def suspend_pull_request(self, topic: str, queue_id: int, pull_request: PullRequest) -> None:
        """Hold a pull until a message arrives or it times out. Java: PullRequestHoldService#suspendPullRequest."""
        key = self.build_key(topic, queue_id)
        with self._table_lock:
            many = self.pull_request_table.get(key)
            if many is None:
                many = self.pull_request_table[key] = ManyPullRequest()
        many.add_pull_request(pull_request)
        self.runtime.trace_event(
            "PullRequestHoldService",
            "suspend",
            topic=topic,
            queueId=queue_id,
            offset=pull_request.pull_from_this_offset,
            timeoutMillis=pull_request.timeout_millis,
        )

    def held(self) -> int:
        """How many pulls are held now (for notebooks and tests)."""
        return sum(len(many.pull_request_list) for many in list(self.pull_request_table.values()))

    def run_once(self) -> int:
        """One check of every held queue; returns the number of pulls run again.

        Java: PullRequestHoldService#checkHoldRequest
        """
        return self.check_hold_request()

    def check_hold_request(self) -> int:
        """Compare each queue's max offset with its held pulls. Java: PullRequestHoldService#checkHoldRequest."""
        woken = 0
        for key in list(self.pull_request_table):
            # Java splits on "@"; a topic cannot contain "@" (TopicValidator), so there are exactly two parts.
            parts = key.split(TOPIC_QUEUEID_SEPARATOR)
            if len(parts) != 2:
                continue
            topic, queue_id = parts[0], int(parts[1])
            offset = self.get_max_offset_in_queue(topic, queue_id)
            woken += self.notify_message_arriving(topic, queue_id, offset)
        return woken

    def notify_message_arriving(
        self,
        topic: str,
        queue_id: int,
        max_offset: int,
        tags_code: int | None = None,
        msg_store_time: int = 0,
        filter_bit_map: bytes | None = None,
        properties: dict[str, str] | None = None,
    ) -> int:
        """Run again every held pull of the queue that can now find something or has waited long enough.

        Returns the number of pulls run again.

        Java: PullRequestHoldService#notifyMessageArriving (both overloads)
        """
        many = self.pull_request_table.get(self.build_key(topic, queue_id))
        if many is None:
            return 0
        requests = many.clone_list_and_clear()
        if requests is None:
            return 0
        keep: list[PullRequest] = []
        woken = 0
        now = self.runtime.now_ms()
        for request in requests:
            newest = max_offset
            if newest <= request.pull_from_this_offset:
                newest = self.get_max_offset_in_queue(topic, queue_id)
            if newest > request.pull_from_this_offset and self._matches(request, tags_code, properties):
                self._wake(request, topic, queue_id, "arrived")
                woken += 1
                continue
            if now >= request.suspend_timestamp + request.timeout_millis:
                self._wake(request, topic, queue_id, "timeout")
                woken += 1
                continue
            keep.append(request)
        if keep:
            many.add_pull_request(keep)
        return woken

    @staticmethod
    def _matches(request: PullRequest, tags_code: int | None, properties: dict[str, str] | None) -> bool:
        message_filter = request.message_filter
        match = message_filter.is_matched_by_consume_queue(tags_code, None)
        if match and properties is not None:
            match = message_filter.is_matched_by_commit_log(None, properties)
        return match

    def _wake(self, request: PullRequest, topic: str, queue_id: int, why: str) -> None:
        self.runtime.trace_event(
            "PullRequestHoldService",
            "wakeup",
            topic=topic,
            queueId=queue_id,
            offset=request.pull_from_this_offset,
            why=why,
            heldMs=self.runtime.now_ms() - request.suspend_timestamp,
        )
        try:
            self.execute_request_when_wakeup(request.client_channel, request.request_command)
        except Exception as exc:  # Java logs and goes on with the other requests
            self.runtime.trace_event("PullRequestHoldService", "wakeupFailed", error=repr(exc))

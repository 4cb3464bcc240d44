"""The background loop that checks unresolved half messages every ``transactionCheckInterval``.

Java: org.apache.rocketmq.broker.transaction.TransactionalMessageCheckService (rocketmq-all-4.9.3)

The interval is read once, when the service starts (a later config change does not move it); the timeout and the
maximum number of checks are read again at every round. Java does the work in ``onWaitEnd``; mqlab's loop calls
``run_once`` right after it, so the work is there and returns the round's summary. Runs only on a broker that is
not a SLAVE.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.common.service_thread import ServiceThread

if TYPE_CHECKING:
    from mqlab.broker.broker_controller import BrokerController
    from mqlab.broker.transaction.queue.transactional_message_service_impl import CheckSummary


class TransactionalMessageCheckService(ServiceThread):
    """The check loop of one broker.

    Args:
        broker_controller: its BrokerConfig, its transactional message service and check listener.
    """

    def __init__(self, broker_controller: BrokerController):
        super().__init__(broker_controller.runtime)
        self.broker_controller = broker_controller
        self.check_interval = broker_controller.broker_config.transaction_check_interval

    def get_service_name(self) -> str:
        """Java: TransactionalMessageCheckService#getServiceName."""
        return "TransactionalMessageCheckService"

    def start(self) -> None:
        """Read ``transactionCheckInterval`` (once, as Java's ``run`` does) and start the loop."""
        self.check_interval = self.broker_controller.broker_config.transaction_check_interval
        super().start()

    def wait_interval_ms(self) -> int:
        """``transactionCheckInterval`` as it was at start (60 s by default)."""
        return int(self.check_interval)

    def run_once(self) -> CheckSummary:
        """One check of every half queue with the current timeout and maximum.

        Java: TransactionalMessageCheckService#onWaitEnd
        """
        config = self.broker_controller.broker_config
        timeout = int(config.transaction_time_out)
        check_max = int(config.transaction_check_max)
        begin = self.runtime.now_ms()
        self.runtime.trace_event(self.get_service_name(), "checkBegin", timeout=timeout, checkMax=check_max)
        summary = self.broker_controller.transactional_message_service.check(
            timeout, check_max, self.broker_controller.transactional_message_check_listener
        )
        self.runtime.trace_event(
            self.get_service_name(),
            "checkEnd",
            cost=self.runtime.now_ms() - begin,
            checked=len(summary.checked),
            discarded=len(summary.discarded),
            done=len(summary.done),
        )
        return summary

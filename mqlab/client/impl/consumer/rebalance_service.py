"""The loop that rebalances every consumer of a client instance: every 20 s, and at once when woken.

A consumer learns that its group changed in two ways: the broker sends NOTIFY_CONSUMER_IDS_CHANGED (the client's
remoting processor then calls ``MQClientInstance#rebalanceImmediately``, which wakes this service), or nothing
arrives and the 20-second wait simply runs out. A consumer's own start wakes it too. Each round calls
``MQClientInstance#doRebalance``, i.e. ``doRebalance`` of every registered consumer.

Java: org.apache.rocketmq.client.impl.consumer.RebalanceService (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.common.service_thread import ServiceThread

if TYPE_CHECKING:
    from mqlab.client.impl.factory.mq_client_instance import MQClientInstance

# System property rocketmq.client.rebalance.waitInterval.
WAIT_INTERVAL = 20_000


class RebalanceService(ServiceThread):
    """``waitForRunning(20 s)`` then ``doRebalance``, forever.

    Args:
        mq_client_factory: the client instance whose consumers are rebalanced (its ``runtime`` drives the loop).
        wait_interval: Java's ``rocketmq.client.rebalance.waitInterval`` (ms).
    """

    def __init__(self, mq_client_factory: MQClientInstance, wait_interval: int = WAIT_INTERVAL):
        super().__init__(mq_client_factory.runtime)
        self.mq_client_factory = mq_client_factory
        self.wait_interval = wait_interval
        self.rounds = 0

    def get_service_name(self) -> str:
        """Java: RebalanceService#getServiceName."""
        return "RebalanceService"

    def wait_interval_ms(self) -> int:
        """20 s unless woken."""
        return self.wait_interval

    def run_once(self) -> int:
        """Rebalance every consumer once; returns how many rounds have run so far.

        Java: the body of RebalanceService#run
        """
        self.rounds += 1
        self.runtime.trace_event(self.get_service_name(), "doRebalance", round=self.rounds)
        self.mq_client_factory.do_rebalance()
        return self.rounds

"""RebalanceService: every 20 s, or at once when woken (consumer start, NOTIFY_CONSUMER_IDS_CHANGED)."""

from __future__ import annotations

import pytest

from mqlab.client.impl.consumer import rebalance_service
from mqlab.client.impl.consumer.rebalance_service import RebalanceService
from tests.client.consumer.push_support import sim_runtime


class Factory:
    def __init__(self, runtime):
        self.runtime = runtime
        self.rounds: list[int] = []

    def do_rebalance(self):
        self.rounds.append(self.runtime.now_ms())


@pytest.mark.spec("REB-1")
def test_rounds_every_20_s_and_at_once_when_woken():
    assert rebalance_service.WAIT_INTERVAL == 20_000  # rocketmq.client.rebalance.waitInterval
    world, runtime = sim_runtime()
    factory = Factory(runtime)
    service = RebalanceService(factory)
    service.start()
    world.run_for(19_999)
    assert factory.rounds == []
    world.run_for(1)
    assert factory.rounds == [world.start_ms + 20_000]
    world.run_for(5000)
    service.wakeup()
    world.run_for(0)
    assert factory.rounds == [world.start_ms + 20_000, world.start_ms + 25_000]
    world.run_for(20_000)
    assert factory.rounds[-1] == world.start_ms + 45_000
    assert service.run_once() == 4
    service.shutdown()  # ends the wait: 4.9.3's loop rebalances once more before it sees it is stopped (AUDIT-12)
    world.run_for(60_000)
    assert len(factory.rounds) == 5

"""PullMessageService: a FIFO of PullRequests served one at a time, delayed puts on a timer."""

from __future__ import annotations

import pytest

from mqlab.client.impl.consumer.pull_message_service import PullMessageService
from mqlab.client.impl.consumer.pull_request import PullRequest
from tests.client.consumer.push_support import queue, sim_runtime


class Consumer:
    def __init__(self, runtime):
        self.runtime = runtime
        self.seen: list[tuple[int, int]] = []

    def pull_message(self, pull_request):
        self.seen.append((self.runtime.now_ms(), pull_request.message_queue.queue_id))


class Factory:
    def __init__(self, runtime):
        self.runtime = runtime
        self.consumers = {"CG": Consumer(runtime)}

    def select_consumer(self, group):
        return self.consumers.get(group)


def make():
    world, runtime = sim_runtime()
    factory = Factory(runtime)
    service = PullMessageService(factory)
    service.start()
    return world, service, factory.consumers["CG"]


def request(queue_id, group="CG"):
    from mqlab.client.impl.consumer.process_queue import ProcessQueue

    return PullRequest(group, queue(queue_id), ProcessQueue(lambda: 0), 0)


@pytest.mark.spec("PUSH-19")
def test_requests_are_served_in_arrival_order_at_once():
    world, service, consumer = make()
    for queue_id in (2, 0, 1):
        service.execute_pull_request_immediately(request(queue_id))
    world.run_for(10)
    assert consumer.seen == [(world.start_ms, 2), (world.start_ms, 0), (world.start_ms, 1)]
    assert len(service.pull_request_queue) == 0


@pytest.mark.spec("PUSH-19")
def test_a_later_request_waits_its_delay_and_a_stopped_service_drops_it():
    world, service, consumer = make()
    service.execute_pull_request_later(request(3), 50)
    world.run_for(49)
    assert consumer.seen == []
    world.run_for(1)
    assert consumer.seen == [(world.start_ms + 50, 3)]
    service.execute_pull_request_later(request(1), 1000)
    service.shutdown()
    service.execute_pull_request_later(request(2), 10)
    world.run_for(2000)
    assert consumer.seen == [(world.start_ms + 50, 3)]


@pytest.mark.spec("PUSH-19")
def test_execute_task_later_and_an_unknown_group():
    world, service, consumer = make()
    ran = []
    service.execute_task_later(lambda: ran.append(world.now_ms()), 10_000)
    service.execute_pull_request_immediately(request(0, group="GONE"))
    world.run_for(10_000)
    assert ran == [world.start_ms + 10_000]
    assert consumer.seen == []
    assert [e.fields["group"] for e in world.trace.events("PullMessageService", event="noConsumer")] == ["GONE"]
    assert service.get_service_name() == "PullMessageService"

"""Rebalance among real (simulated) consumers: split, a newcomer announced by the broker, a leaver."""

from __future__ import annotations

import pytest

from tests.client.consumer.push_support import TOPIC, ConsumerCluster, Recorder


@pytest.fixture
def cluster(tmp_path):
    made = ConsumerCluster(tmp_path / "c")
    made.make_topic(TOPIC, 4)
    yield made
    made.close()


def owned(consumer) -> list[int]:
    table = consumer.default_mq_push_consumer_impl.rebalance_impl.process_queue_table
    return sorted(mq.queue_id for mq in table if mq.topic == TOPIC)


def client_id(consumer) -> str:
    return consumer.default_mq_push_consumer_impl.mq_client_factory.client_id


@pytest.mark.spec("REB-2", "REB-3")
def test_consumers_split_the_queues_and_a_newcomer_makes_everyone_rebalance_at_once(cluster):
    listeners = [Recorder(cluster.world.clock.now_ms) for _ in range(3)]
    first = cluster.push_consumer("CG", listeners[0], node="c1")
    second = cluster.push_consumer("CG", listeners[1], node="c2")
    cluster.run_for(3000)
    pair = sorted([first, second], key=client_id)  # AVG gives the first two queues to the smaller id
    assert owned(pair[0]) == [0, 1] and owned(pair[1]) == [2, 3]
    cluster.send(20)
    cluster.run_for(3000)

    joined_at = cluster.now()
    third = cluster.push_consumer("CG", listeners[2], node="c3")
    cluster.run_for(2000)  # far less than the 20 s rebalance period
    notified = [e for e in cluster.world.trace.events("ClientRemotingProcessor", event="notifyConsumerIdsChanged")
                if e.time_ms >= joined_at]  # fmt: skip
    assert {e.node for e in notified} >= {"c1", "c2"}
    everyone = [first, second, third]
    assignment = {q: [client_id(c) for c in everyone if q in owned(c)] for q in range(4)}
    assert all(len(owners) == 1 for owners in assignment.values()), assignment
    by_id = sorted(everyone, key=client_id)
    assert [owned(c) for c in by_id] == [[0, 1], [2], [3]]  # AVG, 4 queues over 3 sorted ids

    cluster.send(20, start=20)
    cluster.run_for(5000)
    bodies = {body for listener in listeners for body in listener.bodies}
    assert bodies == {str(i).encode() for i in range(40)}  # nothing lost across the rebalance


@pytest.mark.spec("REB-3", "REB-4")
def test_when_a_consumer_leaves_the_others_take_its_queues_from_its_committed_offset(cluster):
    listeners = [Recorder(cluster.world.clock.now_ms) for _ in range(2)]
    first = cluster.push_consumer("CG", listeners[0], node="c1")
    second = cluster.push_consumer("CG", listeners[1], node="c2")
    cluster.run_for(3000)
    cluster.send(16)
    cluster.run_for(3000)
    leaver, stayer = sorted([first, second], key=client_id)
    leaver.shutdown()
    cluster.run_for(2000)
    assert owned(stayer) == [0, 1, 2, 3]
    cluster.send(8, start=16)
    cluster.run_for(3000)
    bodies = [body for listener in listeners for body in listener.bodies]
    assert sorted(set(bodies), key=int) == [str(i).encode() for i in range(24)]
    assert len(bodies) == 24  # the leaver's offsets were persisted at shutdown: no message twice

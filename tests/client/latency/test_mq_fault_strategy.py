"""MQFaultStrategy: the latency → isolation table, and queue choice with fault avoidance off and on."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.client.latency.mq_fault_strategy import MQFaultStrategy
from mqlab.common.message.message_queue import MessageQueue
from tests.client.client_fakes import FakeClock, StartAt, publish_info

BROKERS = ["broker-a", "broker-b", "broker-c"]


def strategy(clock=None, *, enabled=True, rng=None):
    fault = MQFaultStrategy(clock or FakeClock(), rng or random.Random(11))
    fault.send_latency_fault_enable = enabled
    return fault


@pytest.mark.spec("CLI-4")
def test_defaults_are_4_9_3s():
    fault = MQFaultStrategy(FakeClock(), random.Random(0))
    assert fault.send_latency_fault_enable is False, "MQFaultStrategy.sendLatencyFaultEnable"
    assert fault.latency_max == [50, 100, 550, 1000, 2000, 3000, 15000], "MQFaultStrategy.latencyMax"
    assert fault.not_available_duration == [0, 0, 30000, 60000, 120000, 180000, 600000], (
        "MQFaultStrategy.notAvailableDuration"
    )


@pytest.mark.spec("CLI-4")
@pytest.mark.parametrize(
    ("latency", "duration"),
    [
        (0, 0),
        (49, 0),
        (50, 0),
        (549, 0),
        (550, 30000),
        (999, 30000),
        (1000, 60000),
        (2000, 120000),
        (3000, 180000),
        (14999, 180000),
        (15000, 600000),
        (30000, 600000),
    ],
)
def test_compute_not_available_duration(latency, duration):
    assert strategy().compute_not_available_duration(latency) == duration


@pytest.mark.spec("CLI-4")
def test_update_fault_item_isolates_only_when_enabled():
    clock = FakeClock()
    off = strategy(clock, enabled=False)
    off.update_fault_item("broker-a", 5000, True)
    assert off.latency_fault_tolerance.fault_item_table == {}

    on = strategy(clock)
    on.update_fault_item("broker-a", 120, False)  # below 550 ms: recorded, not isolated
    on.update_fault_item("broker-b", 800, True)  # an exception: 30,000 ms of latency → 600,000 ms
    table = on.latency_fault_tolerance.fault_item_table
    assert (table["broker-a"].current_latency, table["broker-a"].start_timestamp) == (120, clock.now)
    assert (table["broker-b"].current_latency, table["broker-b"].start_timestamp) == (800, clock.now + 600_000)
    clock.advance(599_999)
    assert not on.latency_fault_tolerance.is_available("broker-b")
    clock.advance(1)
    assert on.latency_fault_tolerance.is_available("broker-b")


@pytest.mark.spec("CLI-5")
def test_disabled_is_topic_publish_info_with_the_last_broker():
    info = publish_info({"broker-a": 2, "broker-b": 2}, start=10)
    twin = publish_info({"broker-a": 2, "broker-b": 2}, start=10)
    fault = strategy(enabled=False)
    for last in [None, "broker-a", "broker-b", "broker-b"]:
        assert fault.select_one_message_queue(info, last) == twin.select_one_message_queue(last)


@pytest.mark.spec("CLI-5")
def test_enabled_skips_isolated_brokers_and_ignores_the_last_broker():
    clock = FakeClock()
    fault = strategy(clock)
    info = publish_info({"broker-a": 2, "broker-b": 2}, start=0)  # counter 1 → position 1 (broker-a, 1)
    fault.update_fault_item("broker-a", 0, True)
    assert fault.select_one_message_queue(info, "broker-b") == MessageQueue("TopicTest", "broker-b", 0)
    clock.advance(600_000)
    # broker-a is back; next counter value 2 → position 2, then 3 → broker-b again, "last" notwithstanding.
    assert fault.select_one_message_queue(info, "broker-b").broker_name == "broker-b"


@pytest.mark.spec("CLI-6")
def test_all_isolated_rewrites_a_queue_onto_the_least_bad_broker():
    clock = FakeClock()
    fault = strategy(clock, rng=StartAt(0))
    info = publish_info({"broker-a": 2, "broker-b": 4}, start=0)
    fault.update_fault_item("broker-a", 2500, False)  # 120 s
    fault.update_fault_item("broker-b", 600, False)  # 30 s, lower latency: the least bad
    # Counter 1 scans all six positions (all isolated); counter 2 takes position 2 = (broker-b, 0); counter 3 gives
    # queue id 3 % 4 = 3. Java changes that queue object in place, so the list now names (broker-b, 3) twice.
    mq = fault.select_one_message_queue(info, None)
    assert mq == MessageQueue("TopicTest", "broker-b", 3)
    assert info.message_queue_list[2] is mq
    assert [q.queue_id for q in info.message_queue_list] == [0, 1, 3, 1, 2, 3]


@pytest.mark.spec("CLI-6")
def test_least_bad_broker_without_write_queues_is_dropped_and_round_robin_decides():
    fault = strategy()
    info = publish_info({"broker-a": 2}, start=0)
    fault.latency_fault_tolerance.update_fault_item("broker-a", 5000, 600_000)
    fault.latency_fault_tolerance.update_fault_item("broker-gone", 0, 600_000)  # lower latency: picked first
    assert fault.select_one_message_queue(info, None) == MessageQueue("TopicTest", "broker-a", 0)
    assert set(fault.latency_fault_tolerance.fault_item_table) == {"broker-a"}
    assert info.message_queue_list == [MessageQueue("TopicTest", "broker-a", q) for q in range(2)]


@pytest.mark.spec("CLI-6")
def test_no_route_data_falls_back_to_round_robin():
    fault = strategy()
    info = publish_info({"broker-a": 2}, start=0)
    info.topic_route_data = None
    fault.update_fault_item("broker-a", 0, True)
    assert fault.select_one_message_queue(info, None) in info.message_queue_list


# One step of a producer's life: time passes, a send is recorded, or a queue is chosen.
steps = st.one_of(
    st.tuples(st.just("advance"), st.integers(0, 700_000)),
    st.tuples(st.just("record"), st.sampled_from(BROKERS), st.integers(0, 20_000), st.booleans()),
    st.tuples(st.just("select"), st.sampled_from([None, *BROKERS])),
)


@pytest.mark.spec("CLI-5", "CLI-6")
@given(
    layout=st.dictionaries(st.sampled_from(BROKERS), st.integers(1, 4), min_size=1),
    start=st.integers(0, 2**31 - 10_000),
    seed=st.integers(0, 1000),
    script=st.lists(steps, max_size=40),
)
def test_never_picks_an_isolated_broker_while_another_is_available(layout, start, seed, script):
    clock = FakeClock()
    fault = strategy(clock, rng=StartAt(start, seed))
    info = publish_info(layout, start=start)
    tolerance = fault.latency_fault_tolerance
    for step in script:
        if step[0] == "advance":
            clock.advance(step[1])
        elif step[0] == "record":
            fault.update_fault_item(step[1], step[2], step[3])
        else:
            listed = {mq.broker_name for mq in info.message_queue_list}
            available = {b for b in listed if tolerance.is_available(b)}
            mq = fault.select_one_message_queue(info, step[1])
            assert mq in info.message_queue_list
            if available:
                assert mq.broker_name in available

"""LatencyFaultToleranceImpl (4.9.3's LatencyFaultToleranceImplTest on an injected clock, plus pickOneAtLeast)."""

import random

import pytest

from mqlab.client.latency.fault_item import FaultItem
from mqlab.client.latency.latency_fault_tolerance_impl import LatencyFaultToleranceImpl
from tests.client.client_fakes import FakeClock, StartAt

BROKER, ANOTHER = "BrokerA", "BrokerB"

pytestmark = pytest.mark.spec("CLI-7")


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def tolerance(clock):
    return LatencyFaultToleranceImpl(clock, random.Random(5))


def test_update_fault_item(tolerance):
    tolerance.update_fault_item(BROKER, 3000, 3000)
    assert not tolerance.is_available(BROKER)
    assert tolerance.is_available(ANOTHER)


def test_is_available_once_the_window_is_over(tolerance, clock):
    tolerance.update_fault_item(BROKER, 3000, 50)
    assert not tolerance.is_available(BROKER)
    clock.advance(49)
    assert not tolerance.is_available(BROKER)
    clock.advance(1)  # now == start: available
    assert tolerance.is_available(BROKER)


def test_remove(tolerance):
    tolerance.update_fault_item(BROKER, 3000, 3000)
    tolerance.remove(BROKER)
    assert tolerance.is_available(BROKER)
    tolerance.remove(None)
    tolerance.remove("never-seen")


def test_update_overwrites_latency_and_start(tolerance, clock):
    tolerance.update_fault_item(BROKER, 3000, 600_000)
    tolerance.update_fault_item(BROKER, 10, 0)
    item = tolerance.fault_item_table[BROKER]
    assert (item.current_latency, item.start_timestamp) == (10, clock.now)
    assert tolerance.is_available(BROKER)


def test_pick_one_at_least(tolerance):
    assert tolerance.pick_one_at_least() is None
    tolerance.update_fault_item(BROKER, 1000, 3000)
    assert tolerance.pick_one_at_least() == BROKER
    tolerance.update_fault_item(ANOTHER, 1001, 3000)
    assert tolerance.pick_one_at_least() == BROKER  # half = 1: always the better of the two


def test_pick_one_at_least_rotates_over_the_better_half(clock):
    tolerance = LatencyFaultToleranceImpl(clock, StartAt(0))  # which_item_worst: 1, 2, 3, ...
    tolerance.update_fault_item("slow", 5000, 600_000)
    tolerance.update_fault_item("fast", 100, 600_000)
    tolerance.update_fault_item("back", 9000, 0)  # available again: sorts first despite its latency
    tolerance.update_fault_item("medium", 2000, 600_000)
    # Sorted: back (available), fast (100), medium (2000), slow (5000); half = 2 → index counter % 2.
    assert [tolerance.pick_one_at_least() for _ in range(4)] == ["fast", "back", "fast", "back"]


def test_equal_items_are_ordered_by_start_time(clock):
    tolerance = LatencyFaultToleranceImpl(clock, StartAt(1))  # counter 2, 4, ... → index 0 of the better half
    tolerance.update_fault_item("later", 100, 2000)
    tolerance.update_fault_item("sooner", 100, 1000)
    tolerance.update_fault_item("x", 200, 1000)
    tolerance.update_fault_item("y", 300, 1000)
    assert tolerance.pick_one_at_least() == "sooner"


def test_fault_item_sort_key_and_str():
    item = FaultItem("b")
    item.current_latency, item.start_timestamp = 7, 100
    assert item.is_available(100) and not item.is_available(99)
    assert item.sort_key(99) == (True, 7, 100)
    assert str(item) == "FaultItem{name='b', currentLatency=7, startTimestamp=100}"

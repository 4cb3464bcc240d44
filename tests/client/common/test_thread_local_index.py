"""ThreadLocalIndex (4.9.3's ThreadLocalIndexTest plus the start, the wrap and the per-thread counters)."""

import random
import threading

import pytest

from mqlab.client.common.thread_local_index import ThreadLocalIndex, java_int_rem, queue_position
from mqlab.common.jdk.string_hash import to_int32
from tests.client.client_fakes import StartAt

INT_MAX = 2**31 - 1
INT_MIN = -(2**31)

pytestmark = pytest.mark.spec("CLI-1")


def test_increment_and_get_counts_up_by_one():
    index = ThreadLocalIndex(random.Random(1))
    first = index.increment_and_get()
    assert index.increment_and_get() == first + 1


def test_first_value_is_not_negative():
    assert ThreadLocalIndex(random.Random(2)).increment_and_get() >= 0


def test_start_is_abs_of_one_32_bit_draw_plus_one():
    expected = abs(to_int32(random.Random(7).getrandbits(32))) + 1
    assert ThreadLocalIndex(random.Random(7)).increment_and_get() == expected


def test_a_negative_draw_starts_at_its_absolute_value():
    assert ThreadLocalIndex(StartAt(-5)).increment_and_get() == 6


def test_same_seed_same_sequence():
    a, b = ThreadLocalIndex(random.Random(42)), ThreadLocalIndex(random.Random(42))
    assert [a.increment_and_get() for _ in range(5)] == [b.increment_and_get() for _ in range(5)]


def test_counter_wraps_like_a_java_int():
    index = ThreadLocalIndex(StartAt(INT_MAX))
    # MAX + 1 wraps to MIN, whose Math.abs is still MIN; then MIN + 1 → MAX, MAX - 1.
    assert [index.increment_and_get() for _ in range(3)] == [INT_MIN, INT_MAX, INT_MAX - 1]


def test_each_thread_has_its_own_counter():
    index = ThreadLocalIndex(StartAt(100))
    assert [index.increment_and_get() for _ in range(3)] == [101, 102, 103]
    seen = []
    thread = threading.Thread(target=lambda: seen.append(index.increment_and_get()))
    thread.start()
    thread.join()
    assert seen == [101]
    assert index.increment_and_get() == 104


def test_str_is_javas():
    index = ThreadLocalIndex(StartAt(9))
    assert str(index) == "ThreadLocalIndex{threadLocalIndex=null}"
    index.increment_and_get()
    assert str(index) == "ThreadLocalIndex{threadLocalIndex=10}"


@pytest.mark.parametrize(("a", "b", "expected"), [(7, 3, 1), (-7, 3, -1), (7, -3, 1), (-7, -3, -1), (INT_MIN, 10, -8)])
def test_java_int_rem_takes_the_dividends_sign(a, b, expected):
    assert java_int_rem(a, b) == expected


@pytest.mark.parametrize(("index", "size", "expected"), [(0, 4, 0), (5, 4, 1), (INT_MAX, 4, 3), (INT_MIN, 3, 0)])
def test_queue_position_guards_the_negative_abs(index, size, expected):
    assert queue_position(index, size) == expected

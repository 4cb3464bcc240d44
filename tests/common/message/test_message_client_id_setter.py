"""UNIQ_KEY: MessageClientIDSetter under a virtual clock and the simulated runtime."""

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.common.message.message import Message
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.message_errors import BadMessageIdError
from mqlab.runtime import SimulatedWorld
from mqlab.runtime.clock import VirtualClock
from tests.strategies import java_ints, uniq_id_ips

EXAMPLE = "C0A8016430396D06D69C000F42400001"
APRIL_1 = int(datetime(2022, 4, 1, tzinfo=UTC).timestamp() * 1000)
MAY_1 = int(datetime(2022, 5, 1, tzinfo=UTC).timestamp() * 1000)
JUNE_1 = int(datetime(2022, 6, 1, tzinfo=UTC).timestamp() * 1000)
IP = bytes([192, 168, 1, 100])


def setter_at(millis: int, *, ip: bytes = IP, pid: int = 12345, loader: int = 0x6D06D69C, tz=UTC):
    clock = VirtualClock(millis)
    return MessageClientIDSetter(ip, pid, loader, clock.now_ms, tz), clock


class SteppedClock:
    """A clock a test can set anywhere, backwards included (a VirtualClock never goes back)."""

    def __init__(self, now: int):
        self.now = now

    def now_ms(self) -> int:
        return self.now


@pytest.mark.spec("ID-5")
def test_the_example_is_made_from_its_parts():
    setter, _ = setter_at(APRIL_1 + 1_000_000)
    assert setter.create_uniq_id() == "C0A8016430396D06D69C000F42400000"
    assert setter.create_uniq_id() == EXAMPLE


@pytest.mark.spec("ID-5", "ID-6")
def test_the_example_read_field_by_field():
    assert MessageClientIDSetter.get_ip_from_id(EXAMPLE) == IP
    assert MessageClientIDSetter.get_ip_str_from_id(EXAMPLE) == "192.168.1.100"
    assert MessageClientIDSetter.get_pid_from_id(EXAMPLE) == 12345
    assert MessageClientIDSetter.get_class_loader_hash_from_id(EXAMPLE) == 0x6D06D69C
    assert MessageClientIDSetter.get_time_offset_from_id(EXAMPLE) == 1_000_000
    assert MessageClientIDSetter.get_counter_from_id(EXAMPLE) == 1


@pytest.mark.spec("ID-5")
def test_pid_and_loader_hash_are_written_as_java_short_and_int():
    setter, _ = setter_at(APRIL_1, pid=70000, loader=-1879310426)
    uniq = setter.create_uniq_id()
    assert uniq[8:12] == f"{70000 & 0xFFFF:04X}"
    assert uniq[12:20] == "8FFBFFA6"
    assert MessageClientIDSetter.get_class_loader_hash_from_id(uniq) == -1879310426


@pytest.mark.spec("ID-5", "ID-6")
def test_ipv6_ids_have_56_characters():
    ip = bytes.fromhex("FE800000000000000000000000000001")
    setter, _ = setter_at(APRIL_1 + 1_000_000, ip=ip)
    setter.create_uniq_id()
    uniq = setter.create_uniq_id()
    assert uniq == "FE80000000000000000000000000000130396D06D69C000F42400001"
    assert MessageClientIDSetter.get_ip_from_id(uniq) == ip
    # 4.9.3 prints this (UtilAll#ipToIPv6Str writes two hex digits per byte).
    assert MessageClientIDSetter.get_ip_str_from_id(uniq) == "fe80:0000:0000:0000:0000:0000:0000:0001"
    assert MessageClientIDSetter.get_pid_from_id(uniq) == 12345
    assert MessageClientIDSetter.get_counter_from_id(uniq) == 1


@pytest.mark.spec("ID-6")
def test_pid_is_read_unsigned():
    assert MessageClientIDSetter.get_pid_from_id("C0A80164FFFF6D06D69C000F42400001") == 65535


@pytest.mark.spec("ID-5", "ID-6")
@given(uniq_id_ips, st.integers(0, 2**32), java_ints, st.integers(0, 29 * 24 * 3600 * 1000))
def test_ids_round_trip_through_the_readers(ip, pid, loader, offset):
    setter, _ = setter_at(APRIL_1 + offset, ip=ip, pid=pid, loader=loader)
    uniq = setter.create_uniq_id()
    assert len(uniq) == (56 if len(ip) == 16 else 32)
    assert MessageClientIDSetter.get_ip_from_id(uniq) == ip
    assert MessageClientIDSetter.get_pid_from_id(uniq) == pid & 0xFFFF
    assert MessageClientIDSetter.get_class_loader_hash_from_id(uniq) == loader
    assert MessageClientIDSetter.get_time_offset_from_id(uniq) == offset
    assert MessageClientIDSetter.get_counter_from_id(uniq) == 0


@pytest.mark.spec("ID-6")
@pytest.mark.parametrize("bad", ["", "C0A80164", "Z" * 32, EXAMPLE + "00"])
def test_bad_uniq_keys_are_named(bad):
    with pytest.raises(BadMessageIdError):
        MessageClientIDSetter.get_pid_from_id(bad)


# -- the simulated runtime -----------------------------------------------------------------------------------------
def producer(seed: int = 7):
    world = SimulatedWorld(seed=seed)
    return world, world.runtime("producer", ip="192.168.1.100", pid=12345)


@pytest.mark.spec("ID-7")
def test_ids_are_deterministic_under_the_simulated_runtime():
    runs = []
    for _ in range(2):
        world, runtime = producer()
        setter = MessageClientIDSetter.for_runtime(runtime)
        ids = [setter.create_uniq_id()]
        world.run_for(1500)
        ids.append(setter.create_uniq_id())
        runs.append(ids)
    assert runs[0] == runs[1]
    # 2022-04-15 05:20:00 UTC is 1,228,800,000 ms (0x493E0000) into April; the loader hash comes from the seed.
    assert runs[0] == ["C0A8016430398FFBFFA6493E00000000", "C0A8016430398FFBFFA6493E05DC0001"]


@pytest.mark.spec("ID-7")
def test_one_setter_per_node_and_consecutive_counters():
    world, runtime = producer()
    setter = MessageClientIDSetter.for_runtime(runtime)
    assert MessageClientIDSetter.for_runtime(runtime) is setter
    counters = [MessageClientIDSetter.get_counter_from_id(setter.create_uniq_id()) for _ in range(5)]
    assert counters == [0, 1, 2, 3, 4]
    other = MessageClientIDSetter.for_runtime(world.runtime("other-producer", ip="192.168.1.101", pid=1))
    assert other is not setter
    assert MessageClientIDSetter.get_counter_from_id(other.create_uniq_id()) == 0


@pytest.mark.spec("ID-7")
def test_the_seed_changes_the_loader_hash_only():
    _, runtime = producer(seed=8)
    uniq = MessageClientIDSetter.for_runtime(runtime).create_uniq_id()
    assert uniq[:12] == "C0A801643039"
    assert uniq[20:] == "493E00000000"
    assert uniq[12:20] != "8FFBFFA6"


@pytest.mark.spec("ID-8")
def test_counter_wraps_after_65535():
    setter, _ = setter_at(APRIL_1)
    ids = [setter.create_uniq_id() for _ in range(65537)]
    assert ids[65535].endswith("FFFF")
    assert ids[65536].endswith("0000")
    assert ids[65536] == ids[0]  # same clock, same counter bits: the id repeats


@pytest.mark.spec("ID-9")
def test_month_rollover_with_a_virtual_clock():
    setter, clock = setter_at(MAY_1 - 1)
    assert MessageClientIDSetter.get_time_offset_from_id(setter.create_uniq_id()) == MAY_1 - 1 - APRIL_1
    assert (setter.start_time, setter.next_start_time) == (APRIL_1, MAY_1)
    clock.advance_to(MAY_1)
    assert MessageClientIDSetter.get_time_offset_from_id(setter.create_uniq_id()) == 0
    assert (setter.start_time, setter.next_start_time) == (MAY_1, JUNE_1)
    clock.advance_to(MAY_1 + 1234)
    assert MessageClientIDSetter.get_time_offset_from_id(setter.create_uniq_id()) == 1234


@pytest.mark.spec("ID-9")
def test_month_rollover_in_the_simulated_world():
    world, runtime = producer()
    setter = MessageClientIDSetter.for_runtime(runtime)
    setter.create_uniq_id()
    world.run_for(MAY_1 + 42 - world.now_ms())
    uniq = setter.create_uniq_id()
    assert MessageClientIDSetter.get_time_offset_from_id(uniq) == 42
    assert MessageClientIDSetter.get_counter_from_id(uniq) == 1  # the counter does not restart


@pytest.mark.spec("ID-9")
def test_the_month_starts_in_the_runtime_time_zone():
    shanghai = timezone(timedelta(hours=8))
    may_1_shanghai = MAY_1 - 8 * 3600 * 1000  # 2022-04-30 16:00 UTC
    setter, clock = setter_at(may_1_shanghai - 10, tz=shanghai)
    assert setter.next_start_time == may_1_shanghai
    clock.advance_to(may_1_shanghai + 10)
    assert MessageClientIDSetter.get_time_offset_from_id(setter.create_uniq_id()) == 10


@pytest.mark.spec("ID-10")
@pytest.mark.parametrize(
    ("step_back", "written"),
    [(100, "00000000"), (999_999, "00000000"), (1_000_000, "FFF0BDC0"), (5_000_000, "FFB3B4C0")],
)
def test_small_negative_offsets_are_clamped_to_zero(step_back, written):
    clock = SteppedClock(MAY_1)
    setter = MessageClientIDSetter(IP, 12345, 0x6D06D69C, clock.now_ms, UTC)
    assert setter.start_time == MAY_1
    clock.now = MAY_1 - step_back  # an NTP step back across the month start
    assert setter.create_uniq_id()[20:28] == written  # a negative Java int, two's complement


@pytest.mark.spec("ID-11")
def test_late_month_offsets_overflow_the_int_but_read_back_unsigned():
    late = APRIL_1 + 2**31 + 5  # 24 days 20:31:23.653 into April
    setter, _ = setter_at(late)
    uniq = setter.create_uniq_id()
    assert uniq[20:28] == "80000005"  # (int) diff is negative in Java
    assert MessageClientIDSetter.get_time_offset_from_id(uniq) == 2**31 + 5
    assert MessageClientIDSetter.get_nearly_time_from_id(uniq, late + 1000, UTC) == late


@pytest.mark.spec("ID-12")
def test_nearly_time_of_the_example():
    now = 1_650_000_000_000  # 2022-04-15 05:20 UTC
    assert MessageClientIDSetter.get_nearly_time_from_id(EXAMPLE, now, UTC) == APRIL_1 + 1_000_000
    early = APRIL_1 + 600_000  # ten minutes into April: the offset must belong to March
    march_1 = int(datetime(2022, 3, 1, tzinfo=UTC).timestamp() * 1000)
    assert MessageClientIDSetter.get_nearly_time_from_id(EXAMPLE, early, UTC) == march_1 + 1_000_000


@pytest.mark.spec("ID-12")
def test_nearly_time_reads_the_offset_unsigned():
    uniq = "C0A8016430396D06D69CFFFFFFFF0001"
    now = 1_650_000_000_000
    march_1 = int(datetime(2022, 3, 1, tzinfo=UTC).timestamp() * 1000)
    assert MessageClientIDSetter.get_nearly_time_from_id(uniq, now, UTC) == march_1 + 0xFFFFFFFF


@pytest.mark.spec("ID-12")
@given(st.integers(0, 28 * 24 * 3600 * 1000), st.integers(1, 24 * 3600 * 1000))
def test_nearly_time_recovers_when_an_id_was_made(offset, later):
    made = APRIL_1 + offset
    setter, _ = setter_at(made)
    uniq = setter.create_uniq_id()
    assert MessageClientIDSetter.get_nearly_time_from_id(uniq, made + later, UTC) == made
    # Asked at the very millisecond it was made, Java's ">=" already picks the previous month.
    assert MessageClientIDSetter.get_nearly_time_from_id(uniq, made, UTC) != made


@pytest.mark.spec("ID-13")
def test_set_uniq_id_only_when_absent():
    _, runtime = producer()
    setter = MessageClientIDSetter.for_runtime(runtime)
    msg = Message("TopicTest", "TagA", "OrderID188", b"Hello world")
    assert MessageClientIDSetter.get_uniq_id(msg) is None
    setter.set_uniq_id(msg)
    first = MessageClientIDSetter.get_uniq_id(msg)
    setter.set_uniq_id(msg)  # a retried send
    assert MessageClientIDSetter.get_uniq_id(msg) == first == "C0A8016430398FFBFFA6493E00000000"
    assert MessageClientIDSetter.get_counter_from_id(setter.create_uniq_id()) == 1


def test_ip_must_have_4_or_16_bytes():
    with pytest.raises(ValueError, match="4 or 16"):
        MessageClientIDSetter(b"\x01\x02", 1, 1, lambda: 0, UTC)

"""MappedFileQueue expiry: by time (CommitLog) and by offset (ConsumeQueue), after 4.9.3's MappedFileQueueTest."""

from __future__ import annotations

import struct
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlab.runtime import SimulatedWorld
from mqlab.store.mapped_file_queue import DELETE_FILES_BATCH_MAX, MappedFileQueue

UNIT_SIZE = 20
HOUR_MS = 3_600_000


@pytest.fixture
def queues(tmp_path, rt):
    made = []

    def factory(name="q", size=1024, runtime=rt):
        mfq = MappedFileQueue(tmp_path / name, size, runtime=runtime)
        made.append(mfq)
        return mfq

    yield factory
    for mfq in made:
        mfq.shutdown()


def make_segments(mfq: MappedFileQueue, count: int) -> None:
    """``count`` full segments of zeros, as the Java tests build them."""
    for i in range(count):
        mapped_file = mfq.try_create_mapped_file(i * mfq.mapped_file_size)
        assert mapped_file is not None
        mapped_file.wrote_position = mfq.mapped_file_size


def age(mfq: MappedFileQueue, now_ms: int, ages_ms: list[int]) -> None:
    """Set each segment's last-modified time ``ages_ms[i]`` before ``now_ms`` (Java's ``File#setLastModified``)."""
    for mapped_file, age_ms in zip(mfq.mapped_files, ages_ms, strict=True):
        mapped_file.last_modified_ms = now_ms - age_ms


def names(mfq: MappedFileQueue) -> list[int]:
    return [m.file_from_offset // mfq.mapped_file_size for m in mfq.mapped_files]


def make_consume_queue_segments(mfq: MappedFileQueue, last_unit_offsets: list[int]) -> None:
    """Full ConsumeQueue-like segments whose last unit points at ``last_unit_offsets[i]``."""
    units = mfq.mapped_file_size // UNIT_SIZE
    for i, last in enumerate(last_unit_offsets):
        mapped_file = mfq.try_create_mapped_file(i * mfq.mapped_file_size)
        assert mapped_file is not None
        for u in range(units):
            offset = last - (units - 1 - u)
            assert mapped_file.append_message_bytes(struct.pack(">qiq", offset, 100, 0))


# --- by time: RocketMQ's own cases -------------------------------------------------------------------------------


@pytest.mark.spec("CLEAN-4")
def test_the_scan_stops_at_the_first_young_file_so_45_of_50_remain(queues, rt):
    # 4.9.3 MappedFileQueueTest#testDeleteExpiredFileByTime: 100 x 512 bytes in 1 KiB files = 50 files; files 0-4
    # and 21-49 are aged twice the expiry, 5-20 are fresh. Only 0-4 go: deletion never skips over a young file.
    mfq = queues("f", 1024)
    for _ in range(100):
        mapped_file = mfq.get_last_mapped_file(0, need_create=True)
        assert mapped_file.append_message_bytes(bytes(512))
    assert len(mfq.mapped_files) == 50
    expired = 100 * 1000
    now = rt.now_ms()
    for i, mapped_file in enumerate(mfq.mapped_files):
        if i < 5 or i > 20:
            mapped_file.last_modified_ms = now - expired * 2
    assert mfq.delete_expired_file_by_time(expired, 0, 0, False) == 5
    assert len(mfq.mapped_files) == 45
    assert names(mfq)[0] == 5


@pytest.mark.spec("CLEAN-4")
def test_the_last_file_is_never_deleted_even_when_old_or_cleaning_at_once(queues, rt):
    mfq = queues()
    make_segments(mfq, 1)
    age(mfq, rt.now_ms(), [100 * HOUR_MS])
    assert mfq.delete_expired_file_by_time(HOUR_MS, 0, 0, False) == 0
    assert mfq.delete_expired_file_by_time(HOUR_MS, 0, 0, True) == 0
    assert names(mfq) == [0]
    assert mfq.mapped_files[0].file.exists()


@pytest.mark.spec("CLEAN-4")
def test_at_most_ten_files_go_per_call(queues, rt):
    mfq = queues()
    make_segments(mfq, 16)
    age(mfq, rt.now_ms(), [100 * HOUR_MS] * 16)
    assert DELETE_FILES_BATCH_MAX == 10
    assert mfq.delete_expired_file_by_time(HOUR_MS, 0, 0, False) == 10
    assert names(mfq) == list(range(10, 16))
    assert mfq.delete_expired_file_by_time(HOUR_MS, 0, 0, False) == 5
    assert names(mfq) == [15]


@pytest.mark.spec("CLEAN-4")
def test_deleted_files_leave_the_disk_and_the_min_offset_moves_to_the_next_file(queues, rt):
    mfq = queues()
    make_segments(mfq, 4)
    paths = [m.file for m in mfq.mapped_files]
    age(mfq, rt.now_ms(), [100 * HOUR_MS, 100 * HOUR_MS, 0, 0])
    assert mfq.get_min_offset() == 0
    assert mfq.delete_expired_file_by_time(72 * HOUR_MS, 0, 0, False) == 2
    assert [p.exists() for p in paths] == [False, False, True, True]
    assert mfq.get_min_offset() == 2 * 1024
    assert all(m.available for m in mfq.mapped_files)  # the survivors stay readable


@pytest.mark.spec("CLEAN-3", "CLEAN-4")
def test_a_file_is_expired_exactly_when_now_reaches_last_write_plus_the_reserved_time(queues, rt):
    mfq = queues()
    make_segments(mfq, 3)
    expired = 72 * HOUR_MS
    age(mfq, rt.now_ms(), [expired, expired - 1, expired])
    assert mfq.delete_expired_file_by_time(expired, 0, 0, False) == 1
    assert names(mfq) == [1, 2]


@pytest.mark.spec("CLEAN-3")
def test_appending_refreshes_a_files_age(queues, rt, world):
    mfq = queues()
    make_segments(mfq, 2)
    world.run_for(HOUR_MS)  # one hour of virtual time
    first = mfq.mapped_files[0]
    assert rt.now_ms() - first.get_last_modified_timestamp() == HOUR_MS
    first.wrote_position = 0
    first.append_message_bytes(b"x" * 20)
    assert first.get_last_modified_timestamp() == rt.now_ms()
    assert mfq.delete_expired_file_by_time(HOUR_MS, 0, 0, False) == 0


@pytest.mark.spec("CLEAN-4")
def test_a_held_file_is_not_deleted_and_stops_the_scan(queues, rt):
    mfq = queues()
    make_segments(mfq, 4)
    age(mfq, rt.now_ms(), [100 * HOUR_MS] * 4)
    first = mfq.mapped_files[0]
    assert first.hold()  # a reader is still using it
    assert mfq.delete_expired_file_by_time(HOUR_MS, 0, 120_000, True) == 0
    assert names(mfq) == [0, 1, 2, 3]
    assert not first.available and first.file.exists()  # marked for destruction, waiting for its reader
    first.release()
    assert mfq.delete_expired_file_by_time(HOUR_MS, 0, 120_000, True) == 3
    assert names(mfq) == [3]
    assert not first.file.exists()


@pytest.mark.spec("CLEAN-4")
def test_the_pause_between_deletions_comes_from_the_runtime_and_skips_the_last_candidate(queues, rt, world):
    mfq = queues()
    make_segments(mfq, 4)  # three candidates
    age(mfq, rt.now_ms(), [100 * HOUR_MS] * 4)
    before = world.now_ms()
    assert mfq.delete_expired_file_by_time(HOUR_MS, 100, 0, False) == 3
    assert world.now_ms() - before == 200  # after the first and second, not after the third (last candidate)


@pytest.mark.spec("CLEAN-4")
def test_no_files_no_deletion(queues):
    mfq = queues()
    assert mfq.delete_expired_file_by_time(0, 0, 0, True) == 0
    assert mfq.delete_expired_file_by_offset(10**9, UNIT_SIZE) == 0
    assert mfq.retry_delete_first_file(0) is False
    assert mfq.get_mapped_file_by_time(0) is None


def test_get_mapped_file_by_time_finds_the_first_file_written_at_or_after_a_time(queues, rt):
    mfq = queues()
    make_segments(mfq, 3)
    now = rt.now_ms()
    age(mfq, now, [3000, 2000, 1000])
    assert mfq.get_mapped_file_by_time(now - 2500) is mfq.mapped_files[1]
    assert mfq.get_mapped_file_by_time(now - 2000) is mfq.mapped_files[1]
    assert mfq.get_mapped_file_by_time(now - 5000) is mfq.mapped_files[0]
    assert mfq.get_mapped_file_by_time(now + 1) is mfq.mapped_files[2]  # none that late: the last one


# --- hanging files ------------------------------------------------------------------------------------------------


@pytest.mark.spec("CLEAN-9")
def test_retry_delete_first_file_forces_a_hanging_file_after_the_forced_interval(queues, rt, world):
    mfq = queues()
    make_segments(mfq, 3)
    age(mfq, rt.now_ms(), [100 * HOUR_MS] * 3)
    first = mfq.mapped_files[0]
    assert first.hold()  # a reader that never lets go
    assert mfq.delete_expired_file_by_time(HOUR_MS, 0, 120_000, False) == 0
    assert mfq.retry_delete_first_file(120_000) is False  # not yet: 120 s since the first attempt
    world.run_for(119_999)
    assert mfq.retry_delete_first_file(120_000) is False
    world.run_for(1)
    assert mfq.retry_delete_first_file(120_000) is True
    assert names(mfq) == [1, 2] and not first.file.exists()


@pytest.mark.spec("CLEAN-9")
def test_retry_delete_first_file_leaves_an_available_first_file_alone(queues, rt):
    mfq = queues()
    make_segments(mfq, 2)
    assert mfq.retry_delete_first_file(0) is False
    assert names(mfq) == [0, 1]


# --- by offset: RocketMQ's own case -------------------------------------------------------------------------------


@pytest.mark.spec("CLEAN-11")
def test_delete_by_offset_waits_for_a_held_first_file_then_deletes_every_file_but_the_last(queues):
    # 4.9.3 MappedFileQueueTest#testDeleteExpiredFileByOffset: 2048 units in 5120-byte files (256 units each), unit i
    # points at offset i; min offset 20480 is beyond all of them, so all files but the last may go.
    mfq = queues("e", 5120)
    for i in range(2048):
        mapped_file = mfq.get_last_mapped_file(0, need_create=True)
        assert mapped_file.append_message_bytes(struct.pack(">q", i) + b"0" * 12)
    assert len(mfq.mapped_files) == 8
    first = mfq.get_first_mapped_file()
    assert first.hold()
    assert mfq.delete_expired_file_by_offset(20480, UNIT_SIZE) == 0
    first.release()
    # The held file was left unavailable ("hanged"); the next call deletes it anyway, then the others.
    assert mfq.delete_expired_file_by_offset(20480, UNIT_SIZE) == 7
    assert mfq.get_first_mapped_file().file_from_offset == 7 * 5120


@pytest.mark.spec("CLEAN-11")
def test_delete_by_offset_keeps_a_file_whose_last_unit_reaches_the_min_offset(queues):
    mfq = queues("cq", 100)  # 5 units per file
    make_consume_queue_segments(mfq, [1000, 2000, 3000, 4000])
    assert mfq.delete_expired_file_by_offset(2000, UNIT_SIZE) == 1  # 1000 < 2000 goes; 2000 is not below
    assert names(mfq) == [1, 2, 3]
    assert mfq.delete_expired_file_by_offset(10**6, UNIT_SIZE) == 2  # never the last file
    assert names(mfq) == [3]


# --- property tests against a model of the rules ---------------------------------------------------------------


def model_by_time(ages: list[int], expired: int, clean_immediately: bool, held: set[int]) -> int:
    """How many leading files the rules of deleteExpiredFileByTime remove (ages in ms before now)."""
    deleted = 0
    for i in range(len(ages) - 1):
        if not (ages[i] >= expired or clean_immediately):
            break
        if i in held:
            break
        deleted += 1
        if deleted >= DELETE_FILES_BATCH_MAX:
            break
    return deleted


@pytest.mark.spec("CLEAN-4")
@settings(max_examples=60, deadline=None)
@given(
    ages=st.lists(st.integers(0, 200 * HOUR_MS), min_size=0, max_size=24),
    expired_hours=st.integers(0, 150),
    clean_immediately=st.booleans(),
    held=st.sets(st.integers(0, 23), max_size=3),
)
def test_delete_by_time_matches_the_model(ages, expired_hours, clean_immediately, held):
    world = SimulatedWorld(seed=1)
    rt = world.runtime("broker-a")
    with tempfile.TemporaryDirectory() as tmp:
        mfq = MappedFileQueue(Path(tmp) / "commitlog", 256, runtime=rt)
        make_segments(mfq, len(ages))
        age(mfq, rt.now_ms(), ages)
        held_files = [mfq.mapped_files[i] for i in sorted(held) if i < len(ages)]
        for mapped_file in held_files:
            assert mapped_file.hold()
        before = list(mfq.mapped_files)
        expected = model_by_time(ages, expired_hours * HOUR_MS, clean_immediately, held)
        deleted = mfq.delete_expired_file_by_time(expired_hours * HOUR_MS, 0, 120_000, clean_immediately)
        assert deleted == expected
        assert mfq.mapped_files == before[expected:]
        assert all(not m.file.exists() for m in before[:expected])
        assert all(m.file.exists() for m in before[expected:])
        if len(before) > 0:
            assert mfq.mapped_files[-1] is before[-1]  # the last file always survives
        for mapped_file in held_files:
            mapped_file.release()
        mfq.shutdown()


def model_by_offset(last_units: list[int], min_offset: int, held: set[int]) -> int:
    deleted = 0
    for i in range(len(last_units) - 1):
        if last_units[i] < min_offset and i not in held:
            deleted += 1
        else:
            break
    return deleted


@pytest.mark.spec("CLEAN-11")
@settings(max_examples=60, deadline=None)
@given(
    steps=st.lists(st.integers(1, 5000), min_size=0, max_size=20),
    min_offset=st.integers(0, 60_000),
    held=st.sets(st.integers(0, 19), max_size=2),
)
def test_delete_by_offset_matches_the_model(steps, min_offset, held):
    last_units = [sum(steps[: i + 1]) + 10 for i in range(len(steps))]  # increasing, as a ConsumeQueue's are
    world = SimulatedWorld(seed=1)
    rt = world.runtime("broker-a")
    with tempfile.TemporaryDirectory() as tmp:
        mfq = MappedFileQueue(Path(tmp) / "cq", 100, runtime=rt)
        make_consume_queue_segments(mfq, last_units)
        held_files = [mfq.mapped_files[i] for i in sorted(held) if i < len(last_units)]
        for mapped_file in held_files:
            assert mapped_file.hold()
        before = list(mfq.mapped_files)
        expected = model_by_offset(last_units, min_offset, held)
        assert mfq.delete_expired_file_by_offset(min_offset, UNIT_SIZE) == expected
        assert mfq.mapped_files == before[expected:]
        for mapped_file in held_files:
            mapped_file.release()
        mfq.shutdown()

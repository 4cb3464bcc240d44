"""CleanCommitLogService: the time, space and manual triggers, forced cleaning, the disk-full switch, hanging files."""

from __future__ import annotations

import tempfile
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlab.common.util_all import get_disk_partition_space_used_percent
from mqlab.runtime import SimulatedWorld
from mqlab.runtime.disk import DiskSpace
from mqlab.store import clean_commit_log_service as cclm
from mqlab.store.clean_commit_log_service import CleanCommitLogPass, CleanCommitLogService
from mqlab.store.config import store_path_config_helper as paths
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.mapped_file_queue import DELETE_FILES_BATCH_MAX, MappedFileQueue
from mqlab.store.put_message_status import PutMessageStatus
from mqlab.store.running_flags import DISK_FULL_BIT, RunningFlags
from tests.store.clean.conftest import CQ_UNITS_PER_FILE, HOUR_MS, bodies, expire, put_many
from tests.store.helpers import TOPIC, body_of, inner


def ms(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp() * 1000)


def commit_log_files(store) -> int:
    return len(store.commit_log.mapped_file_queue.mapped_files)


def cq_files(store, queue_id: int = 0) -> int:
    return len(store.find_consume_queue(TOPIC, queue_id).mapped_file_queue.mapped_files)


# --- parity with 4.9.3 --------------------------------------------------------------------------------------------


@pytest.mark.spec("CLEAN-13")
def test_constants_and_defaults_are_rocketmqs():
    assert cclm.MAX_MANUAL_DELETE_FILE_TIMES == 20  # CleanCommitLogService.MAX_MANUAL_DELETE_FILE_TIMES
    assert cclm.DISK_SPACE_WARNING_LEVEL_RATIO == 0.90  # -Drocketmq.broker.diskSpaceWarningLevelRatio
    assert cclm.DISK_SPACE_CLEAN_FORCIBLY_RATIO == 0.85  # -Drocketmq.broker.diskSpaceCleanForciblyRatio
    assert DELETE_FILES_BATCH_MAX == 10  # MappedFileQueue.DELETE_FILES_BATCH_MAX
    config = MessageStoreConfig()
    assert config.delete_when == "04"  # MessageStoreConfig.deleteWhen
    assert config.file_reserved_time == 72  # fileReservedTime (hours)
    assert config.disk_max_used_space_ratio == 75  # diskMaxUsedSpaceRatio (percent)
    assert config.clean_resource_interval == 10_000  # cleanResourceInterval
    assert config.delete_commit_log_files_interval == 100  # deleteCommitLogFilesInterval
    assert config.delete_consume_queue_files_interval == 100  # deleteConsumeQueueFilesInterval
    assert config.destroy_maped_file_interval_forcibly == 120_000  # destroyMapedFileIntervalForcibly
    assert config.redelete_hanged_file_interval == 120_000  # redeleteHangedFileInterval
    assert config.clean_file_forcibly_enable is True  # cleanFileForciblyEnable


@pytest.mark.spec("CLEAN-13")
def test_the_ratios_are_constructor_arguments_with_javas_defaults(one_per_file):
    service = one_per_file().clean_commit_log_service
    assert service.disk_space_warning_level_ratio == 0.90
    assert service.disk_space_clean_forcibly_ratio == 0.85
    assert service.manual_delete_file_several_times == 0


@pytest.mark.spec("CLEAN-5")
@pytest.mark.parametrize(("configured", "used"), [(1, 10), (10, 10), (75, 75), (95, 95), (99, 95)])
def test_disk_max_used_space_ratio_is_clamped_to_10_95(configured, used):
    assert MessageStoreConfig(disk_max_used_space_ratio=configured).get_disk_max_used_space_ratio() == used


# --- the time trigger ---------------------------------------------------------------------------------------------


@pytest.mark.spec("CLEAN-2")
@pytest.mark.parametrize(
    ("utc", "expected"),
    [
        ("2022-04-15T05:20:00+00:00", False),  # 13:20 in Shanghai
        ("2022-04-15T19:59:59.999+00:00", False),  # 03:59:59.999
        ("2022-04-15T20:00:00+00:00", True),  # 04:00
        ("2022-04-15T20:59:59.999+00:00", True),  # 04:59:59.999: the whole hour
        ("2022-04-15T21:00:00+00:00", False),  # 05:00
    ],
)
def test_delete_when_is_an_hour_of_the_runtimes_time_zone(make_store, utc, expected):
    world = SimulatedWorld(seed=7, start_ms=ms(utc), tz=ZoneInfo("Asia/Shanghai"))
    store = make_store(runtime=world.runtime("broker-a"))
    assert store.clean_commit_log_service.is_time_to_delete() is expected


@pytest.mark.spec("CLEAN-2")
def test_delete_when_may_list_several_hours(make_store, world):
    # The world starts at 05:20 UTC.
    assert make_store(delete_when="04;05").clean_commit_log_service.is_time_to_delete()


@pytest.mark.spec("CLEAN-2", "CLEAN-3")
def test_in_the_delete_hour_only_expired_segments_go(one_per_file):
    store = one_per_file(delete_when="05")  # the simulated world starts at 05:20 UTC
    put_many(store, 6)
    mfq = store.commit_log.mapped_file_queue
    expire(mfq, 2, 72 * HOUR_MS)  # exactly 72 h old: expired
    mfq.mapped_files[2].last_modified_ms = store.now() - 71 * HOUR_MS  # 71 h: kept, and it stops the scan
    mfq.mapped_files[3].last_modified_ms = store.now() - 100 * HOUR_MS  # behind a young one: kept too
    result = store.clean_commit_log_service.run()
    assert result == CleanCommitLogPass(time_up=True, deleted=2)
    assert commit_log_files(store) == 4


@pytest.mark.spec("CLEAN-2")
def test_outside_the_delete_hour_nothing_goes(one_per_file):
    store = one_per_file()  # deleteWhen "04"; the world is at 05:20
    put_many(store, 6)
    expire(store.commit_log.mapped_file_queue, 5, 100 * HOUR_MS)
    result = store.clean_commit_log_service.run()
    assert result == CleanCommitLogPass() and not result.triggered
    assert commit_log_files(store) == 6


# --- 4.9.3 DefaultMessageStoreCleanFilesTest, one message per segment ---------------------------------------------


def run_passes_and_check(store, passes: int, expected_deleted: list[int]) -> None:
    total = commit_log_files(store)
    cq_total = cq_files(store)
    for deleted in expected_deleted[:passes]:
        store.clean_files_periodically()
        assert commit_log_files(store) == total - deleted
        assert cq_files(store) == cq_total - deleted // CQ_UNITS_PER_FILE


@pytest.mark.spec("CLEAN-2", "CLEAN-4", "CLEAN-11")
def test_time_up_deletes_the_15_expired_segments_in_two_passes(one_per_file):
    store = one_per_file(delete_when="05", file_reserved_time=1)
    put_many(store, 55)
    assert commit_log_files(store) == 55 and cq_files(store) == 8
    expire(store.commit_log.mapped_file_queue, 15, 2 * HOUR_MS)
    run_passes_and_check(store, 2, [10, 15])
    store.clean_files_periodically()
    assert commit_log_files(store) == 40  # the rest is young


@pytest.mark.spec("CLEAN-5", "CLEAN-11")
def test_a_disk_above_the_max_used_ratio_deletes_the_expired_segments(one_per_file, world):
    store = one_per_file(file_reserved_time=1)
    put_many(store, 55)
    expire(store.commit_log.mapped_file_queue, 15, 2 * HOUR_MS)
    world.disk.fill_to_ratio(store.config.store_path_commit_log, 0.80)
    service = store.clean_commit_log_service
    assert service.is_space_to_delete() and not service.clean_immediately
    run_passes_and_check(store, 2, [10, 15])
    result, _ = store.clean_files_periodically()
    assert result.space_to_delete and not result.clean_at_once and result.deleted == 0


@pytest.mark.spec("CLEAN-6", "CLEAN-11")
def test_a_disk_above_85_percent_deletes_segments_whatever_their_age(one_per_file, world):
    store = one_per_file()
    put_many(store, 55)  # all of them brand new
    world.disk.fill_to_ratio(store.config.store_path_commit_log, 0.86)
    run_passes_and_check(store, 5, [10, 20, 30, 40, 50])
    result, _ = store.clean_files_periodically()
    assert result.clean_at_once and result.deleted == 4
    assert commit_log_files(store) == 1  # never the last segment
    assert store.running_flags.is_writeable()  # 86 % is not "full"


@pytest.mark.spec("CLEAN-6")
def test_forced_cleaning_can_be_switched_off(one_per_file, world):
    store = one_per_file(clean_file_forcibly_enable=False)
    put_many(store, 12)
    world.disk.fill_to_ratio(store.config.store_path_commit_log, 0.86)
    result, _ = store.clean_files_periodically()
    assert result.space_to_delete and not result.clean_at_once and result.deleted == 0


@pytest.mark.spec("CLEAN-8", "CLEAN-11")
def test_a_manual_request_deletes_expired_segments_for_20_passes(one_per_file):
    store = one_per_file(file_reserved_time=1)
    store.execute_delete_files_manually()
    put_many(store, 55)
    expire(store.commit_log.mapped_file_queue, 15, 2 * HOUR_MS)
    run_passes_and_check(store, 2, [10, 15])
    assert store.clean_commit_log_service.manual_delete_file_several_times == 18
    for _ in range(18):
        result, _ = store.clean_files_periodically()
        assert result.manual and result.deleted == 0  # young segments stay, even when asked
    result, _ = store.clean_files_periodically()
    assert not result.triggered


# --- the disk-full switch -----------------------------------------------------------------------------------------


@pytest.mark.spec("CLEAN-7")
def test_above_90_percent_puts_are_refused_nothing_stored_is_lost_and_puts_resume_below(make_store, rt, world):
    store = make_store()
    for i in range(30):
        assert store.put_message(inner(rt, i)).is_ok()
    world.run_for(10)
    max_phy = store.get_max_phy_offset()
    commit_log_dir = store.config.store_path_commit_log
    world.disk.fill_to_ratio(commit_log_dir, 0.91)
    assert store.clean_commit_log_service.is_space_full() is True
    assert not store.running_flags.is_writeable()
    for i in range(30, 35):
        assert store.put_message(inner(rt, i)).put_message_status is PutMessageStatus.SERVICE_NOT_AVAILABLE
    assert store.get_max_phy_offset() == max_phy
    assert bodies(store, 0, 0) == [body_of(i) for i in range(30)]  # reads go on
    world.disk.fill_to_ratio(commit_log_dir, 0.90)  # "above" is strict: 0.90 itself is OK
    assert store.clean_commit_log_service.is_space_full() is False
    assert store.running_flags.is_writeable()
    result = store.put_message(inner(rt, 99))
    assert result.is_ok() and result.append_message_result.logics_offset == 30
    world.run_for(10)
    assert bodies(store, 0, 0) == [body_of(i) for i in range(30)] + [body_of(99)]


@pytest.mark.spec("CLEAN-7")
def test_a_message_stored_just_before_the_disk_filled_is_still_dispatched(make_store, rt, world):
    store = make_store(flush_disk_type=FlushDiskType.ASYNC_FLUSH)
    assert store.put_message(inner(rt, 0)).is_ok()  # an ASYNC_FLUSH put returns before reput has seen it
    assert store.get_max_offset_in_queue(TOPIC, 0) == 0
    world.disk.fill_to_ratio(store.config.store_path_commit_log, 0.95)
    store.clean_commit_log_service.is_space_full()
    world.run_for(10)
    assert not store.running_flags.is_writeable()
    assert bodies(store, 0, 0) == [body_of(0)]  # the ConsumeQueue unit was still written


@pytest.mark.spec("CLEAN-7")
def test_a_clean_pass_also_marks_the_disk_full_and_ok(one_per_file, world):
    store = one_per_file()
    put_many(store, 3)
    world.disk.fill_to_ratio(store.config.store_path_commit_log, 0.95)
    result, _ = store.clean_files_periodically()
    assert result.clean_at_once and not store.running_flags.is_writeable()
    world.disk.fill_to_ratio(store.config.store_path_commit_log, 0.20)
    store.clean_files_periodically()
    assert store.running_flags.is_writeable()


@pytest.mark.spec("CLEAN-7")
def test_a_shutdown_while_the_disk_is_full_keeps_the_abort_file(make_store, world, store_root):
    store = make_store()
    world.disk.fill_to_ratio(store.config.store_path_commit_log, 0.95)
    store.clean_commit_log_service.is_space_full()
    store.shutdown()
    assert paths.get_abort_file(store_root).exists()  # the next start recovers abnormally


@pytest.mark.spec("CLEAN-5")
def test_a_missing_directory_measures_minus_one_which_triggers_space_cleaning(one_per_file, world):
    store = one_per_file()
    service = store.clean_commit_log_service
    assert service.disk_used_ratio(Path(store.config.store_path_root_dir) / "nowhere") == -1.0
    service.config.store_path_commit_log = str(Path(store.config.store_path_root_dir) / "nowhere")
    assert service.is_space_to_delete() is True
    assert store.running_flags.is_writeable()  # -1 is below every level: the disk is marked OK


@pytest.mark.spec("CLEAN-10")
def test_the_ratio_counts_blocks_reserved_for_root_as_used(one_per_file, world, monkeypatch):
    # 4.9.3 UtilAll#getDiskPartitionSpaceUsedPercent: used = total - free; ratio = ceil(100*used/(used+usable))/100.
    # 4.9.1 computed used/total, which here would say 0.50.
    store = one_per_file()

    class ReservedDisk:
        def space(self, path):
            return DiskSpace(total=1000, free=500, usable=450)  # 50 blocks only root may use

    monkeypatch.setattr(store.runtime, "disk", ReservedDisk())
    assert store.clean_commit_log_service.calc_store_path_physic_ratio() == 0.53  # 500/950 = 0.5263 → 0.53
    assert get_disk_partition_space_used_percent(1000, 500, 450) == 0.53
    assert get_disk_partition_space_used_percent(100, 10, 10) == 0.90  # exact values are not rounded up


# --- hanging segments ---------------------------------------------------------------------------------------------


# These two tests shorten the 120 s intervals to 20 s so that they finish before the store's own clean task first
# runs (60 s after start) and interferes.


@pytest.mark.spec("CLEAN-9")
def test_a_held_segment_hangs_until_the_redelete_forces_it(one_per_file, world):
    store = one_per_file(
        delete_when="05",
        file_reserved_time=1,
        redelete_hanged_file_interval=20_000,
        destroy_maped_file_interval_forcibly=20_000,
    )
    put_many(store, 5)
    mfq = store.commit_log.mapped_file_queue
    expire(mfq, 3, 2 * HOUR_MS)
    first = mfq.mapped_files[0]
    assert first.hold()  # a reader that never lets go
    service = store.clean_commit_log_service
    result = service.run()
    assert result.deleted == 0 and result.redeleted is False  # the first run also tried the redelete: too early
    assert commit_log_files(store) == 5 and not first.available
    assert store.commit_log.get_min_offset() == mfq.mapped_files[1].file_from_offset  # readers skip it already
    store.config.delete_when = "04"  # from now on no trigger fires: only the redelete acts
    world.run_for(20_000)
    assert service.run() == CleanCommitLogPass()  # 20 s is not "more than" the redelete interval
    world.run_for(1)
    assert service.run() == CleanCommitLogPass(redeleted=True)  # forced: 20 s since the first attempt
    assert not first.file.exists() and commit_log_files(store) == 4


@pytest.mark.spec("CLEAN-9")
def test_the_redelete_runs_only_when_more_than_its_interval_passed(one_per_file, world):
    store = one_per_file(redelete_hanged_file_interval=20_000)
    service = store.clean_commit_log_service
    put_many(store, 3)
    service.run()
    last = service.last_redelete_timestamp
    assert last == store.now()
    world.run_for(20_000)
    service.run()
    assert service.last_redelete_timestamp == last
    world.run_for(1)
    service.run()
    assert service.last_redelete_timestamp == last + 20_001
    assert commit_log_files(store) == 3


# --- the schedule -------------------------------------------------------------------------------------------------


@pytest.mark.spec("CLEAN-1", "CLEAN-7")
def test_the_disk_check_runs_1_s_after_start_then_every_10_s(make_store, world):
    store = make_store()
    started = world.now_ms()
    world.disk.fill_to_ratio(store.config.store_path_commit_log, 0.91)
    world.run_for(999)
    assert store.running_flags.is_writeable()
    world.run_for(1)
    assert not store.running_flags.is_writeable()
    world.disk.fill_to_ratio(store.config.store_path_commit_log, 0.10)
    world.run_for(started + 10_999 - world.now_ms())
    assert not store.running_flags.is_writeable()
    world.run_for(1)
    assert store.running_flags.is_writeable()


@pytest.mark.spec("CLEAN-1")
def test_the_clean_task_runs_60_s_after_start_then_every_clean_resource_interval(one_per_file, world):
    store = one_per_file(delete_when="05", clean_resource_interval=20_000, delete_commit_log_files_interval=0)
    started = world.now_ms()
    put_many(store, 14)
    expire(store.commit_log.mapped_file_queue, 14, 100 * HOUR_MS)
    world.run_for(started + 59_999 - world.now_ms())
    assert commit_log_files(store) == 14
    world.run_for(1)
    assert commit_log_files(store) == 4  # ten per pass
    world.run_for(started + 79_999 - world.now_ms())  # (the pass's pauses moved the clock on)
    assert commit_log_files(store) == 4
    world.run_for(1)
    assert commit_log_files(store) == 1
    assert [e.fields["deleted"] for e in world.trace.events("CleanCommitLogService", event="deleteExpiredFiles")][
        :2
    ] == [10, 3]
    assert cq_files(store) == 1  # of two 7-unit files the first went; the second is the last and stays


@pytest.mark.spec("CLEAN-1")
def test_shutdown_cancels_both_timers(make_store, world):
    store = make_store()
    store.shutdown()
    world.disk.fill_to_ratio(store.config.store_path_commit_log, 0.95)
    world.run_for(120_000)
    assert world.trace.events("CleanCommitLogService") == []
    assert store.running_flags.flag_bits & DISK_FULL_BIT == 0


@pytest.mark.spec("CLEAN-1")
def test_a_failing_pass_is_traced_and_the_task_keeps_running(one_per_file, world, monkeypatch):
    store = one_per_file()
    calls = []

    def boom():
        calls.append(world.now_ms())
        raise OSError("disk went away")

    monkeypatch.setattr(store.clean_commit_log_service, "is_time_to_delete", boom)
    world.run_for(80_000)
    assert len(calls) == 3  # at 60 s, 70 s and 80 s
    assert [e.fields["error"] for e in world.trace.events("CleanCommitLogService", event="exception")] == [
        "OSError('disk went away')"
    ] * 3


# --- property test: the triggers against a model -----------------------------------------------------------------


class PercentDisk:
    """Reports ``physic`` percent used for the CommitLog directory and ``logics`` percent for anything else."""

    def __init__(self, commit_log_dir: Path, physic: int, logics: int):
        self.commit_log_dir, self.physic, self.logics = commit_log_dir, physic, logics

    def space(self, path):
        used = self.physic if Path(path) == self.commit_log_dir else self.logics
        return DiskSpace(total=100, free=100 - used, usable=100 - used)


def model_space(physic: float, logics: float, max_ratio: float, full_before: bool) -> tuple[bool, bool, bool]:
    """(space_to_delete, clean_immediately, disk_full) by the rules of isSpaceToDelete."""
    clean, full = False, full_before
    for used in (physic, logics):
        if used > 0.90:
            full, clean = True, True
        elif used > 0.85:
            clean = True
        else:
            full = False
        if used < 0 or used > max_ratio:
            return True, clean, full
    return False, clean, full


@pytest.mark.spec("CLEAN-3", "CLEAN-4", "CLEAN-5", "CLEAN-6", "CLEAN-7")
@settings(max_examples=60, deadline=None)
@given(
    physic=st.integers(0, 100),
    logics=st.integers(0, 100),
    configured_ratio=st.integers(0, 100),
    hour=st.integers(0, 23),
    forcibly=st.booleans(),
    full_before=st.booleans(),
    ages_hours=st.lists(st.integers(0, 150), max_size=14),
)
def test_one_pass_matches_the_model(physic, logics, configured_ratio, hour, forcibly, full_before, ages_hours):
    start = ms(f"2022-04-15T{hour:02d}:30:00+00:00")
    world = SimulatedWorld(seed=3, start_ms=start)
    rt = world.runtime("broker-a")
    with tempfile.TemporaryDirectory() as tmp:
        config = MessageStoreConfig.under(
            tmp,
            disk_max_used_space_ratio=configured_ratio,
            clean_file_forcibly_enable=forcibly,
            delete_commit_log_files_interval=0,
        )
        commit_log_dir = Path(config.store_path_commit_log)
        commit_log_dir.mkdir(parents=True)
        paths.get_store_path_consume_queue(tmp).mkdir()
        rt.disk = PercentDisk(commit_log_dir, physic, logics)
        mfq = MappedFileQueue(commit_log_dir, 128, runtime=rt)
        for i, hours in enumerate(ages_hours):
            mfq.try_create_mapped_file(i * 128).last_modified_ms = start - hours * HOUR_MS
        flags = RunningFlags()
        if full_before:
            flags.get_and_make_disk_full()
        service = CleanCommitLogService(config, rt, SimpleNamespace(mapped_file_queue=mfq), flags)

        result = service.delete_expired_files()

        max_ratio = min(max(configured_ratio, 10), 95) / 100
        space, clean, full = model_space(physic / 100, logics / 100, max_ratio, full_before)
        time_up = hour == 4
        at_once = forcibly and clean
        expected = 0
        if time_up or space:
            for hours in ages_hours[:-1]:
                if not (hours >= 72 or at_once) or expected == DELETE_FILES_BATCH_MAX:
                    break
                expected += 1
        assert result == CleanCommitLogPass(time_up, space, False, at_once if (time_up or space) else False, expected)
        assert bool(flags.flag_bits & DISK_FULL_BIT) is full
        assert len(mfq.mapped_files) == len(ages_hours) - expected
        mfq.shutdown()


def test_the_pass_summary_says_whether_a_trigger_fired():
    assert not CleanCommitLogPass().triggered
    assert CleanCommitLogPass(time_up=True).triggered
    assert CleanCommitLogPass(space_to_delete=True).triggered
    assert CleanCommitLogPass(manual=True).triggered

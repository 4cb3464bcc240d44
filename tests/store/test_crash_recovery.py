"""Crashes and damaged files: what recovery keeps, what it cuts, and what it reports (after 4.9.3's
DefaultMessageStoreTest#testRecover, plus mqlab's own handling of short segments, lost checkpoints and damaged
ConsumeQueues)."""

import os
import shutil
import struct

import pytest

from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.crash import simulate_crash
from mqlab.store.put_message_status import PutMessageStatus
from mqlab.store.store_errors import StoreLoadError
from tests.store.helpers import (
    CL_SIZE,
    TOPIC,
    assert_consistent,
    inner,
    keys_of,
    read_queue,
    scan_segment,
    segment_files,
)


def put_all(store, rt, count, start=0, **fields):
    results = []
    for i in range(start, start + count):
        result = store.put_message(inner(rt, i, **fields))
        assert result.put_message_status is PutMessageStatus.PUT_OK, result
        results.append(result.append_message_result)
    store.runtime.scheduler.sleep(5)
    return results


def keys(start, stop):
    return [f"k{i}" for i in range(start, stop)]


def flip_byte(path, position):
    data = bytearray(path.read_bytes())
    data[position] ^= 0xFF
    path.write_bytes(data)


def segment_of(store_root, offset, size=CL_SIZE):
    return store_root / "commitlog" / f"{offset - offset % size:020d}"


# -- crashes -------------------------------------------------------------------------------------------------------
@pytest.mark.spec("REC-8", "REC-9", "REC-5")
def test_acknowledged_sync_flush_messages_survive_a_crash(make_store, rt, store_root):
    store = make_store()
    put_all(store, rt, 40, body=b"s" * 60)
    report = simulate_crash(store)
    assert report.commit_log_bytes_lost == 0  # every acknowledged record was flushed before its put returned
    assert (store_root / "abort").exists()
    again = make_store()
    assert again.recovery_report.lines()[:2] == [
        "previous shutdown NOT clean (abort file present)",
        f"abnormal recovery: CommitLog ends at offset {again.get_max_phy_offset()}",
    ]
    assert keys_of(read_queue(again)) == keys(0, 40)
    assert_consistent(again)
    assert again.put_message(inner(rt, 40)).append_message_result.logics_offset == 40


@pytest.mark.spec("REC-8")
def test_an_async_crash_loses_what_was_not_flushed_and_offsets_continue_after_the_survivors(make_store, rt, world):
    store = make_store(flush_disk_type=FlushDiskType.ASYNC_FLUSH)
    put_all(store, rt, 10)
    world.run_for(11_000)  # a thorough flush round has run
    put_all(store, rt, 10, start=10)
    report = simulate_crash(store)
    assert report.commit_log_bytes_lost > 0
    again = make_store(flush_disk_type=FlushDiskType.ASYNC_FLUSH)
    assert keys_of(read_queue(again)) == keys(0, 10)
    assert again.put_message(inner(rt, 99)).append_message_result.logics_offset == 10
    assert_consistent(again)


@pytest.mark.spec("REC-8", "REC-18")
def test_a_torn_last_record_is_cut_and_everything_before_it_kept(make_store, rt):
    store = make_store()
    results = put_all(store, rt, 30, queue_id=0)
    report = simulate_crash(store, tear_last_record=True)
    assert report.torn_record_offset == results[-1].wrote_offset
    again = make_store()
    assert again.get_max_phy_offset() == results[-1].wrote_offset
    assert keys_of(read_queue(again)) == keys(0, 29)
    assert any(line.startswith("scan stopped: ") for line in again.recovery_report.lines())
    assert_consistent(again)


@pytest.mark.spec("REC-8", "REC-5")
def test_a_crash_leaves_the_checkpoint_as_last_flushed(make_store, rt, world, store_root):
    # Regression: closing the files used to flush the in-memory checkpoint, so abnormal recovery started after
    # ConsumeQueue units that were never flushed, and queue offsets came out shifted.
    store = make_store()
    world.run_for(2000)  # the first (thorough) ConsumeQueue flush has run and written the checkpoint
    on_disk = (store_root / "checkpoint").read_bytes()[:24]
    put_all(store, rt, 25)  # ConsumeQueue file 1 (units 20..24) stays unflushed
    world.run_for(10_000)
    put_all(store, rt, 25, start=25)
    assert store.store_checkpoint.logics_msg_timestamp > struct.unpack_from(">q", on_disk, 8)[0]
    assert simulate_crash(store).consume_queue_bytes_lost > 0
    assert (store_root / "checkpoint").read_bytes()[:24] == on_disk
    again = make_store()
    assert keys_of(read_queue(again)) == keys(0, 50)
    assert_consistent(again)


@pytest.mark.spec("REC-1", "REC-8")
def test_a_crashed_store_releases_its_lock(make_store, rt):
    store = make_store()
    put_all(store, rt, 3)
    simulate_crash(store)
    make_store()


@pytest.mark.spec("REC-9")
def test_crash_after_crash_after_crash(make_store, rt):
    expected = []
    for round_ in range(4):
        store = make_store()
        put_all(store, rt, 9, start=9 * round_, body=b"r" * (30 + round_ * 40))
        expected += keys(9 * round_, 9 * round_ + 9)
        simulate_crash(store, tear_last_record=round_ == 3)
    again = make_store()
    assert keys_of(read_queue(again)) == expected[:-1]
    assert_consistent(again)


# -- 4.9.3 DefaultMessageStoreTest#testRecover ---------------------------------------------------------------------
def damage_topic_length(path, position):
    """Zero 16 bytes from the record's topic length on (4.9.3 DefaultMessageStoreTest#damageCommitlog)."""
    data = bytearray(path.read_bytes())
    body_len = struct.unpack_from(">i", data, position + 84)[0]
    start = position + 84 + 4 + body_len
    data[start : start + 16] = bytes(16)
    path.write_bytes(data)


@pytest.mark.store_left_damaged
@pytest.mark.spec("REC-4", "REC-5")
@pytest.mark.parametrize("abort", [False, True])
def test_a_damaged_last_message_is_cut_on_normal_and_abnormal_restart(make_store, rt, store_root, abort):
    store = make_store(mapped_file_size_commit_log=64 * 1024)
    put_all(store, rt, 100)
    second_last_phy = store.get_max_phy_offset()
    second_last_cq = store.get_max_offset_in_queue(TOPIC, 0)
    put_all(store, rt, 1, start=100)
    store.shutdown()
    damage_topic_length(segment_of(store_root, second_last_phy, 64 * 1024), second_last_phy % (64 * 1024))
    if abort:
        (store_root / "abort").touch()
    again = make_store(mapped_file_size_commit_log=64 * 1024)
    assert again.get_max_phy_offset() == second_last_phy
    assert again.get_max_offset_in_queue(TOPIC, 0) == second_last_cq
    assert again.recovery_report.commit_log.mode == ("abnormal" if abort else "normal")
    assert again.put_message(inner(rt, 101)).append_message_result.logics_offset == 100


# -- damaged files -------------------------------------------------------------------------------------------------
@pytest.fixture
def shut_down_with_files(make_store, rt, store_root):
    """A clean shutdown after 80 messages over two queues (several segments); returns the put results."""
    store = make_store()
    results = put_all(store, rt, 80, queue_id=0)
    store.shutdown()
    assert len(segment_files(store_root / "commitlog")) >= 4
    return results


def survivors(results, cut_offset):
    return [r for r in results if r.wrote_offset + r.wrote_bytes <= cut_offset]


@pytest.mark.store_left_damaged
@pytest.mark.spec("REC-10", "REC-15")
@pytest.mark.parametrize("abort", [False, True])
def test_a_flipped_body_byte_stops_recovery_at_that_record(make_store, rt, store_root, shut_down_with_files, abort):
    results = shut_down_with_files
    victim = results[-15]  # inside the last three segments, where normal recovery looks
    flip_byte(segment_of(store_root, victim.wrote_offset), victim.wrote_offset % CL_SIZE + 90)
    if abort:
        (store_root / "abort").touch()
    again = make_store()
    lines = again.recovery_report.lines()
    assert again.get_max_phy_offset() == victim.wrote_offset
    assert f"scan stopped: body CRC mismatch in the record at {victim.wrote_offset}" in lines
    dropped = [line for line in lines if line.startswith("dropped ")]
    assert dropped and dropped[0].endswith(f"after offset {victim.wrote_offset}")
    kept = survivors(results, victim.wrote_offset)
    assert keys_of(read_queue(again)) == keys(0, len(kept))
    assert again.put_message(inner(rt, 500)).append_message_result.logics_offset == len(kept)
    assert_consistent(again)


@pytest.mark.store_left_damaged
@pytest.mark.spec("REC-11")
def test_a_corrupted_length_field_stops_recovery_at_that_record(make_store, rt, store_root, shut_down_with_files):
    results = shut_down_with_files
    victim = results[-10]
    path = segment_of(store_root, victim.wrote_offset)
    data = bytearray(path.read_bytes())
    struct.pack_into(">i", data, victim.wrote_offset % CL_SIZE, victim.wrote_bytes + 1000)
    path.write_bytes(data)
    again = make_store()
    assert again.get_max_phy_offset() == victim.wrote_offset
    assert any("TOTALSIZE" in line for line in again.recovery_report.lines())
    assert keys_of(read_queue(again)) == keys(0, len(survivors(results, victim.wrote_offset)))
    assert_consistent(again)


@pytest.mark.store_left_damaged
@pytest.mark.spec("REC-10")
def test_segments_after_the_damage_are_deleted_and_reported(make_store, rt, store_root, shut_down_with_files):
    results = shut_down_with_files
    files = segment_files(store_root / "commitlog")
    victim = next(r for r in results if r.wrote_offset >= int(files[-2].name))  # first record of the second-last
    flip_byte(segment_of(store_root, victim.wrote_offset), victim.wrote_offset % CL_SIZE + 90)
    again = make_store()
    assert f"deleted segment {files[-1].name} (it lay past the last good record)" in again.recovery_report.lines()
    assert not files[-1].exists()
    assert again.get_max_phy_offset() == victim.wrote_offset == int(files[-2].name)


@pytest.mark.store_left_damaged
@pytest.mark.spec("STORE-7")
def test_bodycrc_does_not_cover_the_properties(make_store, rt, store_root):
    # Zeroed properties keep every length intact, so recovery keeps the record: only the body has a checksum.
    store = make_store()
    results = put_all(store, rt, 3)
    victim = results[1]
    before = dict(store.look_message_by_offset(victim.wrote_offset).properties)
    store.shutdown()
    path = segment_of(store_root, victim.wrote_offset)
    data = bytearray(path.read_bytes())
    end = victim.wrote_offset + victim.wrote_bytes
    data[end - 10 : end] = bytes(10)
    path.write_bytes(data)
    again = make_store()
    assert again.get_max_phy_offset() == results[-1].wrote_offset + results[-1].wrote_bytes
    assert dict(again.look_message_by_offset(victim.wrote_offset).properties) != before


@pytest.mark.spec("REC-13")
@pytest.mark.parametrize("abort", [False, True])
def test_a_missing_checkpoint_is_recreated_and_reported(make_store, rt, store_root, abort):
    store = make_store()
    put_all(store, rt, 60)
    store.shutdown()
    (store_root / "checkpoint").unlink()
    if abort:
        (store_root / "abort").touch()
    again = make_store()
    assert any(line.startswith("checkpoint file missing") for line in again.recovery_report.lines())
    assert keys_of(read_queue(again)) == keys(0, 60)
    assert_consistent(again)
    if abort:
        assert rt.trace.events("CommitLog", event="recoverAbnormallyFrom")[-1].fields["file"] == "0" * 20


@pytest.mark.spec("REC-14", "REC-15")
def test_a_wrong_sized_consume_queue_file_is_quarantined_and_rebuilt(make_store, rt, store_root):
    store = make_store()
    put_all(store, rt, 30, queue_id=0)
    put_all(store, rt, 30, start=30, queue_id=1)
    store.shutdown()
    damaged = store_root / "consumequeue" / TOPIC / "0" / "00000000000000000400"
    os.truncate(damaged, 390)
    again = make_store()
    assert "moved damaged ConsumeQueue TopicTest/0 to quarantine; rebuilt from the CommitLog" in (
        again.recovery_report.lines()
    )
    quarantined = store_root / "quarantine" / "consumequeue" / TOPIC / "0"
    assert sorted(p.name for p in quarantined.iterdir()) == ["00000000000000000000", "00000000000000000400"]
    assert (quarantined / "00000000000000000400").stat().st_size == 390
    assert keys_of(read_queue(again, 0)) == keys(0, 30)
    assert keys_of(read_queue(again, 1)) == keys(30, 60)
    assert again.put_message(inner(rt, 60)).append_message_result.logics_offset == 30
    assert_consistent(again)


@pytest.mark.spec("REC-14")
def test_a_stray_file_in_a_consume_queue_directory_quarantines_that_queue(make_store, rt, store_root):
    store = make_store()
    put_all(store, rt, 5)
    store.shutdown()
    (store_root / "consumequeue" / TOPIC / "0" / "notes.txt").write_text("hello")
    again = make_store()
    assert again.recovery_report.quarantined_queues == [f"{TOPIC}/0"]
    assert keys_of(read_queue(again)) == keys(0, 5)


@pytest.mark.store_left_damaged
@pytest.mark.spec("REC-17")
def test_a_stray_file_in_the_commit_log_directory_is_a_named_load_error(make_store, rt, store_root):
    store = make_store()
    put_all(store, rt, 5)
    store.shutdown()
    (store_root / "commitlog" / "README").write_text("not a segment")
    with pytest.raises(StoreLoadError, match="README is not a segment"):
        make_store()


@pytest.mark.spec("REC-17")
def test_a_segment_longer_than_configured_is_a_named_load_error(make_store, rt, store_root):
    store = make_store()
    put_all(store, rt, 5)
    store.shutdown()
    path = segment_files(store_root / "commitlog")[0]
    with path.open("ab") as f:
        f.write(b"\0" * 100)
    message = rf"{path.name} is {CL_SIZE + 100} bytes but mappedFileSizeCommitLog is {CL_SIZE}"
    with pytest.raises(StoreLoadError, match=message):
        make_store()


@pytest.mark.store_left_damaged
@pytest.mark.spec("REC-4")
def test_consume_queues_pointing_past_a_lost_segment_are_truncated(make_store, rt, store_root):
    store = make_store()
    results = put_all(store, rt, 60)
    store.shutdown()
    files = segment_files(store_root / "commitlog")
    files[-1].unlink()
    # Recovery stops on the blank record that ends the segment before: the CommitLog now ends there (as in Java).
    end = int(files[-2].name) + scan_segment(files[-2]).blank_at
    again = make_store()
    assert again.get_max_phy_offset() == end
    assert keys_of(read_queue(again)) == keys(0, len(survivors(results, end)))
    assert_consistent(again)


@pytest.mark.store_left_damaged
@pytest.mark.spec("REC-16")
def test_without_commit_log_files_the_consume_queues_are_destroyed(make_store, rt, store_root):
    store = make_store()
    put_all(store, rt, 30)
    store.shutdown()
    shutil.rmtree(store_root / "commitlog")
    again = make_store()
    assert again.recovery_report.commit_log.mode == "empty"
    assert again.get_max_offset_in_queue(TOPIC, 0) == 0
    assert again.put_message(inner(rt, 0)).append_message_result.logics_offset == 0


@pytest.mark.spec("REC-15")
def test_garbage_after_the_last_record_is_dropped_and_counted(make_store, rt, store_root):
    store = make_store()
    results = put_all(store, rt, 5)
    store.shutdown()
    path = segment_files(store_root / "commitlog")[-1]
    data = bytearray(path.read_bytes())
    end = results[-1].wrote_offset + results[-1].wrote_bytes
    data[end : end + 37] = b"\x7f" * 37
    path.write_bytes(data)
    again = make_store()
    lines = again.recovery_report.lines()
    assert f"dropped 37 bytes after offset {end}" in lines
    assert again.get_max_phy_offset() == end
    assert again.put_message(inner(rt, 5)).append_message_result.wrote_offset == end


DAMAGES = {
    "flip a body byte": lambda data, pos: data.__setitem__(pos + 95, data[pos + 95] ^ 0x55),
    "zero a record": lambda data, pos: data.__setitem__(slice(pos, pos + 60), bytes(60)),
    "huge total size": lambda data, pos: struct.pack_into(">i", data, pos, 2**31 - 1),
    "negative total size": lambda data, pos: struct.pack_into(">i", data, pos, -5),
    "bad magic": lambda data, pos: struct.pack_into(">i", data, pos + 4, 0x0BADF00D),
    "negative body length": lambda data, pos: struct.pack_into(">i", data, pos + 84, -1),
    "topic length 255": lambda data, pos: data.__setitem__(pos + 88 + struct.unpack_from(">i", data, pos + 84)[0], 255),
    "fake blank record": lambda data, pos: struct.pack_into(">ii", data, pos, 8, -875286124),
}


@pytest.mark.store_left_damaged
@pytest.mark.spec("REC-10", "REC-11")
@pytest.mark.parametrize("damage", sorted(DAMAGES))
@pytest.mark.parametrize("abort", [False, True])
def test_any_damage_keeps_every_record_before_it_and_never_raises(make_store, rt, store_root, damage, abort):
    store = make_store()
    results = put_all(store, rt, 40)
    store.shutdown()
    victim = results[30]
    path = segment_of(store_root, victim.wrote_offset)
    data = bytearray(path.read_bytes())
    DAMAGES[damage](data, victim.wrote_offset % CL_SIZE)
    path.write_bytes(data)
    if abort:
        (store_root / "abort").touch()
    again = make_store()
    assert again.get_max_phy_offset() == victim.wrote_offset
    assert keys_of(read_queue(again)) == keys(0, 30)
    assert_consistent(again)
    assert again.put_message(inner(rt, 40)).append_message_result.logics_offset == 30


# -- regressions found by the stateful test ------------------------------------------------------------------------
@pytest.mark.spec("REC-19", "REC-9")
def test_a_burst_that_fills_several_consume_queue_files_survives_a_crash(make_store, rt, world):
    # 100 messages (five ConsumeQueue files) before any ConsumeQueue flush: recovery scans from the third-last file,
    # so the first two come back as zeros; re-dispatch must fill those holes instead of trusting them.
    store = make_store()
    world.run_for(1500)
    put_all(store, rt, 100, body=b"b")
    assert simulate_crash(store).consume_queue_bytes_lost == 100 * 20
    again = make_store()
    assert keys_of(read_queue(again)) == keys(0, 100)
    assert_consistent(again)
    assert rt.trace.events("ConsumeQueue", event="repairUnit")


@pytest.mark.store_left_damaged
@pytest.mark.spec("REC-20")
def test_records_cut_by_recovery_do_not_come_back_when_new_data_lines_up(make_store, rt, store_root):
    # A record dropped for a bad CRC, then a new record of the same size written in its place: without erasing
    # what recovery cut, the next recovery would read the old records behind it back as valid ones.
    store = make_store()
    results = put_all(store, rt, 6, body=b"same size body")
    store.shutdown()
    victim = results[2]
    flip_byte(segment_of(store_root, victim.wrote_offset), victim.wrote_offset % CL_SIZE + 90)
    store = make_store()
    assert store.get_max_phy_offset() == victim.wrote_offset
    replacement = put_all(store, rt, 1, start=2, body=b"same size body")[0]
    assert (replacement.wrote_offset, replacement.wrote_bytes) == (victim.wrote_offset, victim.wrote_bytes)
    store.shutdown()
    again = make_store()
    assert again.get_max_phy_offset() == victim.wrote_offset + victim.wrote_bytes
    assert keys_of(read_queue(again)) == keys(0, 3)
    assert_consistent(again)


@pytest.mark.spec("REC-20")
def test_units_cut_by_recovery_do_not_come_back_at_the_next_restart(make_store, rt):
    store = make_store()
    put_all(store, rt, 2, body=b"")  # two units in TopicTest-0
    store.shutdown()
    store = make_store()
    simulate_crash(store, tear_last_record=True)  # the second record is torn: its unit is cut
    store = make_store()
    put_all(store, rt, 1, start=9, queue_id=1, body=b"\x00" * 11)  # a record of another queue takes its place
    store.shutdown()
    again = make_store()
    assert keys_of(read_queue(again, 0)) == ["k0"]
    assert keys_of(read_queue(again, 1)) == ["k9"]
    assert_consistent(again)


@pytest.mark.spec("REC-20")
def test_a_consume_queue_whose_only_unit_was_lost_gets_no_zero_unit(make_store, rt, world):
    store = make_store(flush_disk_type=FlushDiskType.ASYNC_FLUSH)
    put_all(store, rt, 1, queue_id=1, body=b"kept")
    store.shutdown()
    store = make_store(flush_disk_type=FlushDiskType.ASYNC_FLUSH)
    put_all(store, rt, 1, start=1, body=b"")
    world.run_for(600)  # the CommitLog is flushed (first, thorough round); the ConsumeQueue unit is not
    put_all(store, rt, 1, start=2, wait=False)
    simulate_crash(store)  # k2 is lost, k1 survives and is dispatched again, its unit unflushed again
    store = make_store(flush_disk_type=FlushDiskType.ASYNC_FLUSH)
    simulate_crash(store, tear_last_record=True)  # k1 is torn: the queue's only file holds no unit at all now
    again = make_store(flush_disk_type=FlushDiskType.ASYNC_FLUSH)
    assert keys_of(read_queue(again, 1)) == ["k0"]
    assert keys_of(read_queue(again, 0)) == []
    assert again.get_max_offset_in_queue(TOPIC, 0) == 0
    assert_consistent(again)

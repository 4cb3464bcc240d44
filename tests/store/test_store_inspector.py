"""The store inspector: read-only views that notebooks print, checked against what the store itself says."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from mqlab.common.jdk.string_hash import java_string_hash
from mqlab.store import store_inspector as si
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.consume_queue import CQ_STORE_UNIT_SIZE
from mqlab.store.crash import simulate_crash
from tests.store.helpers import TOPIC, inner

# Tiny IndexFiles (40 + 64*4 + 256*20 bytes) so no test maps the 420 MB default.
SMALL_INDEX = {"max_hash_slot_num": 64, "max_index_num": 256}
# inner(rt, i, keys=f"key-{i:03d}", body=BODY) makes records of exactly this size with the helpers' hosts.
BODY = b"Hello world"


@pytest.fixture
def store(make_store):
    return make_store(**SMALL_INDEX)


def put(store, rt, i, **kwargs):
    result = store.put_message(inner(rt, i, keys=f"key-{i:03d}", body=BODY, **kwargs))
    assert result.is_ok()
    return result.append_message_result


def fill_first_segment(store, rt) -> int:
    """Put until a second segment exists; return how many messages that took."""
    count = 0
    while len(store.commit_log.mapped_file_queue.mapped_files) < 2:
        put(store, rt, count)
        count += 1
    return count


# -- times --------------------------------------------------------------------------------------------------------
def test_format_time_shows_the_offset_from_the_origin_with_its_sign():
    assert si.format_time(1_000_063, 1_000_000) == "1000063 (+63 ms)"
    assert si.format_time(999_000, 1_000_000) == "999000 (-1000 ms)"
    assert si.format_time(1_000_063) == "1000063"
    assert si.format_time(0, 1_000_000) == "0"


# -- segments -----------------------------------------------------------------------------------------------------
def test_segments_report_each_file_and_its_positions(store, rt):
    first = put(store, rt, 0)
    put(store, rt, 1)
    (row,) = si.segments(store.commit_log.mapped_file_queue)
    assert row.name == "00000000000000000000"
    assert (row.file_from_offset, row.file_size) == (0, 4096)
    assert row.wrote == 2 * first.wrote_bytes
    assert row.flushed == row.wrote  # SYNC_FLUSH: the put returned after the flush
    assert not row.full


def test_format_segments_lists_twenty_digit_names_and_the_queue_positions(store, rt):
    fill_first_segment(store, rt)
    text = si.format_segments(store.commit_log.mapped_file_queue)
    lines = text.splitlines()
    assert lines[0].split() == ["segment", "file", "from", "wrote", "flushed", "full"]
    assert lines[1].split()[0] == "00000000000000000000" and lines[1].split()[-1] == "yes"
    assert lines[2].split()[:2] == ["00000000000000004096", "4096"]
    mfq = store.commit_log.mapped_file_queue
    assert lines[-1] == f"flushedWhere={mfq.flushed_where}  maxOffset={mfq.get_max_offset()}"
    assert "committed" in si.format_segments(mfq, committed=True).splitlines()[0]


def test_store_files_are_relative_to_the_root_and_sorted(store, rt, store_root):
    put(store, rt, 0)
    files = dict(si.store_files(store_root))
    assert files["commitlog/00000000000000000000"] == 4096
    assert files["checkpoint"] == 4096
    assert "abort" in files
    assert list(files) == sorted(files)
    text = si.format_store_files(store_root)
    assert str(store_root) not in text
    assert re.search(r"^commitlog/00000000000000000000 +4096 bytes$", text, re.MULTILINE)


# -- CommitLog records --------------------------------------------------------------------------------------------
def test_records_of_a_full_segment_end_with_the_blank_record(store, rt):
    count = fill_first_segment(store, rt)
    first, _second = store.commit_log.mapped_file_queue.mapped_files
    rows = si.segment_records(first)
    messages = [r for r in rows if r.kind == "message"]
    assert len(messages) == count - 1  # the last put went to the second segment
    assert [r.queue_offset for r in messages] == list(range(count - 1))
    assert [r.keys for r in messages[:2]] == ["key-000", "key-001"]
    assert all(r.topic == TOPIC and r.tags == "TagA" for r in messages)
    blank = rows[-1]
    assert blank.kind == "blank"
    assert blank.offset == messages[-1].offset + messages[-1].size
    assert blank.size == 4096 - blank.offset  # TOTALSIZE of the blank record: the bytes left in the file


def test_records_stop_at_bytes_never_written(store, rt):
    put(store, rt, 0)
    mapped_file = store.commit_log.mapped_file_queue.mapped_files[0]
    whole_file = si.records(mapped_file.slice_byte_buffer(), 0)  # past the wrote position: zeros
    assert [r.kind for r in whole_file] == ["message"]


@pytest.mark.store_left_damaged
def test_records_report_a_torn_record_as_unreadable(make_store, rt, store_root):
    store = make_store(flush_disk_type=FlushDiskType.SYNC_FLUSH, **SMALL_INDEX)
    for i in range(3):
        put(store, rt, i)
    report = simulate_crash(store, tear_last_record=True)
    rows = si.file_records(store_root / "commitlog" / "00000000000000000000")
    assert [r.kind for r in rows] == ["message", "message", "unreadable"]
    assert rows[-1].offset == report.torn_record_offset
    assert "TOTALSIZE" in rows[-1].problem
    assert "segment 00000000000000000000" in rows[-1].problem


def test_file_records_match_the_live_view(store, rt, store_root):
    for i in range(3):
        put(store, rt, i)
    live = si.segment_records(store.commit_log.mapped_file_queue.mapped_files[0])
    assert si.file_records(store_root / "commitlog" / "00000000000000000000") == live


def test_format_records_elides_the_middle(store, rt, world):
    fill_first_segment(store, rt)
    rows = si.segment_records(store.commit_log.mapped_file_queue.mapped_files[0])
    text = si.format_records(rows, origin_ms=world.start_ms, head=2, tail=1)
    lines = text.splitlines()
    assert len(lines) == 1 + 2 + 1 + 1
    assert lines[3].split()[:2] == ["...", f"({len(rows) - 3}"]
    assert "blank" in lines[-1] and "0xCBD43194" in lines[-1]
    assert "(+0 ms)" in lines[1]


def test_hex_dump_groups_four_bytes_and_numbers_lines_from_start():
    data = bytes(range(20))
    assert si.hex_dump(data, 100, width=16).splitlines() == [
        "   100  00010203 04050607 08090A0B 0C0D0E0F",
        "   116  10111213",
    ]


def test_changed_fields_are_the_offsets_do_append_patches(store, rt):
    put(store, rt, 0)
    msg = inner(rt, 1, keys="key-001", body=BODY)
    appended = store.put_message(msg).append_message_result
    before_lock = store.commit_log.encoder.encode(msg)  # what MessageExtEncoder produced before the lock
    data = store.commit_log.get_message(appended.wrote_offset, appended.wrote_bytes).data
    lines = si.changed_fields(before_lock, data)
    assert [line.split()[0] for line in lines] == ["QUEUEOFFSET", "PHYSICALOFFSET"]
    assert lines[1].endswith(f"-> {appended.wrote_offset:016X}")


# -- ConsumeQueue units ---------------------------------------------------------------------------------------------
def test_consume_queue_units_are_the_dispatched_records(make_store, rt, store_root):
    store = make_store(flush_disk_type=FlushDiskType.ASYNC_FLUSH, **SMALL_INDEX)
    results = [put(store, rt, i, tags=tags) for i, tags in enumerate(["TagA", "TagB", "Aa"])]
    assert store.reput_message_service.run_once() == 3
    rows = si.consume_queue_units(store.find_consume_queue(TOPIC, 0))
    assert [r.queue_offset for r in rows] == [0, 1, 2]
    assert [(r.commit_log_offset, r.size) for r in rows] == [(a.wrote_offset, a.wrote_bytes) for a in results]
    assert [r.tags_code for r in rows] == [java_string_hash(t) for t in ["TagA", "TagB", "Aa"]]
    assert [r.position for r in rows] == [0, 20, 40]
    assert rows[0].raw == struct.pack(">qiq", 0, results[0].wrote_bytes, java_string_hash("TagA"))
    on_disk = si.file_units(store_root / "consumequeue" / TOPIC / "0" / "00000000000000000000")
    assert on_disk == rows


def test_units_of_a_second_file_continue_the_queue_offsets(store, rt):
    for i in range(21):  # 20 units fill a 400-byte ConsumeQueue file
        put(store, rt, i)
    store.reput_message_service.run_once()
    rows = si.consume_queue_units(store.find_consume_queue(TOPIC, 0))
    assert rows[-1].queue_offset == 20
    assert (rows[-1].file_name, rows[-1].position) == ("00000000000000000400", 0)
    text = si.format_units(rows, head=0, tail=1)
    assert text.splitlines()[1].split()[:2] == ["...", "(20"]
    unit = rows[-1].raw.hex().upper()
    assert text.splitlines()[-1].endswith(f"{unit[:16]} {unit[16:24]} {unit[24:]}")
    assert len(rows[-1].raw) == CQ_STORE_UNIT_SIZE


# -- checkpoint -----------------------------------------------------------------------------------------------------
def test_checkpoint_views_use_the_store_rule(make_store, rt, store_root):
    store = make_store(flush_disk_type=FlushDiskType.ASYNC_FLUSH, **SMALL_INDEX)
    put(store, rt, 0)
    store.reput_message_service.run_once()
    live = si.checkpoint_in_memory(store.store_checkpoint)
    assert live.logics_msg_timestamp == store.store_checkpoint.logics_msg_timestamp > 0
    assert live.get_min_timestamp() == store.store_checkpoint.get_min_timestamp()
    assert si.read_checkpoint_file(store_root / "checkpoint") == si.CheckpointView(0, 0, 0)  # not flushed yet
    store.store_checkpoint.flush()
    assert si.read_checkpoint_file(store_root / "checkpoint") == live


def test_format_checkpoint_names_the_java_fields():
    view = si.CheckpointView(1_000_048_000, 1_000_050_000, 0)
    lines = si.format_checkpoint(view, origin_ms=1_000_000_000).splitlines()
    assert [line.split()[0] for line in lines] == [
        "physicMsgTimestamp",
        "logicsMsgTimestamp",
        "indexMsgTimestamp",
        "getMinTimestamp()",
    ]
    assert lines[0].endswith("(+48000 ms)")
    assert lines[3].endswith("1000045000 (+45000 ms)")  # min(physic, logics) - 3 s


# -- abnormal recovery's starting segment ------------------------------------------------------------------------------
def test_recovery_candidates_pick_the_newest_segment_stored_before_the_min_timestamp(store, rt, world, store_root):
    fill_first_segment(store, rt)
    world.run_for(5000)
    while len(store.commit_log.mapped_file_queue.mapped_files) < 3:
        put(store, rt, 99)
    segments = store.commit_log.mapped_file_queue.mapped_files
    firsts = [si.segment_records(m)[0].store_timestamp for m in segments]
    candidates = si.recovery_candidates(store_root / "commitlog", firsts[1])
    assert [c.name for c in candidates] == [m.file.name for m in reversed(segments)]
    assert [c.qualifies for c in candidates] == [False, True, True]
    assert [c.first_store_timestamp for c in candidates] == list(reversed(firsts))
    text = si.format_recovery_candidates(candidates, origin_ms=world.start_ms)
    marked = [line for line in text.splitlines() if "<- recovery starts here" in line]
    assert len(marked) == 1 and marked[0].startswith("00000000000000004096")


def test_recovery_candidates_start_from_the_first_file_when_none_qualifies(tmp_path: Path):
    directory = tmp_path / "commitlog"
    directory.mkdir()
    (directory / "00000000000000000000").write_bytes(bytes(64))
    candidates = si.recovery_candidates(directory, 10**12)
    assert candidates == [si.RecoveryCandidate("00000000000000000000", "nothing", 0, False)]
    assert "<- recovery starts here" in si.format_recovery_candidates(candidates)

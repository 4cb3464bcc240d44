"""IndexService: which keys are built, rolling to new files, names, queries across files, loading and deletion."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.common.util_all import time_millis_to_human_string
from mqlab.runtime import SimulatedWorld
from mqlab.store.commit_log_dispatcher_build_index import CommitLogDispatcherBuildIndex
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.index.index_file import index_key_hash
from mqlab.store.index.index_service import IndexService
from mqlab.store.running_flags import RunningFlags
from tests.store.index.index_helpers import T0, TOPIC, chain_hits, make_service, request


def entry_keys(service: IndexService) -> list[tuple[int, int]]:
    """(keyHash, phyOffset) of every entry, file by file, in write order."""
    out = []
    for index_file in service.index_file_list:
        for n in range(1, index_file.index_header.index_count):
            entry = index_file.read_entry(n)
            out.append((entry.key_hash, entry.phy_offset))
    return out


# -- which keys -------------------------------------------------------------------------------------------------------
@pytest.mark.spec("IDX-6")
def test_uniq_key_first_then_each_non_empty_key(make_index_service):
    service = make_index_service(hash_slot_num=16, index_num=20)
    service.build_index(request(100, keys="a  b c", uniq_key="C0A8"))
    assert entry_keys(service) == [(index_key_hash(f"{TOPIC}#{k}"), 100) for k in ("C0A8", "a", "b", "c")]
    service.build_index(request(200))  # neither keys nor UNIQ_KEY: nothing
    service.build_index(request(300, keys=""))
    assert len(entry_keys(service)) == 4


@pytest.mark.spec("IDX-6")
@pytest.mark.parametrize(
    ("sys_flag", "indexed"),
    [
        (0, True),
        (int(MessageSysFlag.TRANSACTION_PREPARED_TYPE), True),
        (int(MessageSysFlag.TRANSACTION_COMMIT_TYPE), True),
        (int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE), False),
    ],
)
def test_rolled_back_transaction_messages_are_not_indexed(make_index_service, sys_flag, indexed):
    service = make_index_service()
    service.build_index(request(100, keys="a", sys_flag=sys_flag))
    assert len(entry_keys(service)) == (1 if indexed else 0)


@pytest.mark.spec("IDX-6")
def test_records_below_the_last_files_end_offset_are_skipped(make_index_service):
    service = make_index_service(hash_slot_num=16, index_num=20)
    service.build_index(request(500, keys="a"))
    service.build_index(request(400, keys="b"))  # below endPhyOffset 500: already indexed
    service.build_index(request(500, keys="a"))  # equal: indexed again (the check is "<")
    assert [offset for _, offset in entry_keys(service)] == [500, 500]


@pytest.mark.spec("IDX-6")
@pytest.mark.parametrize("enabled", [True, False])
def test_the_dispatcher_builds_only_when_message_index_is_enabled(make_index_service, enabled):
    service = make_index_service()
    config = MessageStoreConfig(message_index_enable=enabled)
    CommitLogDispatcherBuildIndex(config, lambda: service).dispatch(request(100, keys="a"))
    assert len(entry_keys(service)) == (1 if enabled else 0)


keys_strategy = st.lists(st.sampled_from(["a", "b", "Aa", "BB", "OrderID001", "x y"]), max_size=3).map(" ".join)
messages_strategy = st.lists(
    st.tuples(st.sampled_from(["TopicA", "TopicB"]), keys_strategy, st.booleans(), st.integers(0, 3000)),
    min_size=1,
    max_size=25,
)


@pytest.mark.spec("IDX-6", "IDX-7")
@settings(max_examples=40, deadline=None)
@given(messages_strategy)
def test_every_topic_key_of_every_message_is_reachable_by_its_slot_chain(messages):
    world = SimulatedWorld(seed=3)
    runtime = world.runtime("broker-a")
    with tempfile.TemporaryDirectory() as directory, contextlib.ExitStack() as stack:
        config = MessageStoreConfig.under(directory, max_hash_slot_num=3, max_index_num=5, max_msgs_num_batch=1000)
        service, checkpoint = make_service(config, runtime)
        stack.callback(checkpoint.shutdown)
        stack.callback(service.shutdown)
        expected: list[tuple[str, int]] = []
        offset, now = 0, T0
        for topic, keys, has_uniq, step in messages:
            now += step
            uniq = f"UNIQ{offset}" if has_uniq else None
            service.build_index(request(offset, now, keys=keys, uniq_key=uniq, topic=topic))
            expected += [(f"{topic}#{k}", offset) for k in ([uniq] if uniq else []) + keys.split(" ") if k]
            offset += 100
        world.run_for(0)  # the background flushes of full files
        for full_key, phy_offset in expected:
            hits = [e for f in service.index_file_list for e in chain_hits(f, full_key) if e.phy_offset == phy_offset]
            assert hits, f"{full_key}@{phy_offset} not reachable"
            topic, key = full_key.split("#", 1)
            assert phy_offset in service.query_offset(topic, key, 1000, 0, 2**62).phy_offsets
        assert all(f.is_write_full() for f in service.index_file_list[:-1])  # a new file only when one is full


# -- rolling ----------------------------------------------------------------------------------------------------------
@pytest.mark.spec("IDX-7")
def test_a_full_file_rolls_into_one_that_continues_it_and_is_flushed_in_the_background(make_index_service, world, rt):
    service = make_index_service(hash_slot_num=4, index_num=4)  # 3 entries per file
    service.build_index(request(100, T0, keys="a b"))
    world.run_for(1000)
    service.build_index(request(200, T0 + 1000, keys="c d"))  # "d" does not fit: it opens the second file
    first, second = service.index_file_list
    assert first.is_write_full() and not second.is_write_full()
    assert chain_hits(first, f"{TOPIC}#c")[0].phy_offset == 200
    assert chain_hits(second, f"{TOPIC}#d")[0].phy_offset == 200
    assert second.index_header.begin_phy_offset == 200 and second.index_header.begin_timestamp == T0 + 1000
    assert service.store_checkpoint.index_msg_timestamp == 0
    world.run_for(0)  # the flush task runs at the current time
    assert service.store_checkpoint.index_msg_timestamp == first.end_timestamp == T0 + 1000
    assert rt.trace.dump("IndexService").count("createIndexFile") == 2


@pytest.mark.spec("IDX-7")
def test_a_file_that_cannot_be_created_is_retried_three_times_then_marks_the_store(make_index_service, rt, tmp_path):
    service = make_index_service()
    Path(service.store_path).parent.mkdir(parents=True, exist_ok=True)
    Path(service.store_path).write_text("not a directory")
    before = rt.now_ms()
    service.build_index(request(100, keys="a"))
    assert rt.now_ms() - before == 3000
    assert not service.running_flags.is_writeable()
    assert rt.trace.dump("IndexService").count("createRetry") == 3


# -- names ----------------------------------------------------------------------------------------------------------
@pytest.mark.spec("IDX-8")
def test_files_are_named_after_the_runtime_clock_in_its_time_zone(tmp_path):
    world = SimulatedWorld(seed=1, tz=ZoneInfo("Asia/Shanghai"))
    runtime = world.runtime("broker-a")
    config = MessageStoreConfig.under(tmp_path, max_hash_slot_num=4, max_index_num=2)  # 1 entry per file
    service, checkpoint = make_service(config, runtime)
    try:
        service.build_index(request(100, keys="a"))
        world.run_for(61_000)
        service.build_index(request(200, keys="b c"))
        names = [f.name for f in service.index_file_list]
        assert names[0] == time_millis_to_human_string(world.start_ms, world.tz) == "20220415132000000"
        # Two files made in the same virtual millisecond: the second takes the next one.
        assert names[1:] == ["20220415132101000", "20220415132101001"]
    finally:
        service.shutdown()
        checkpoint.shutdown()


# -- queries --------------------------------------------------------------------------------------------------------
@pytest.fixture
def three_files(make_index_service):
    """Key "k" at offsets 0..8 (one a second), 3 entries per file: files span 0-2 s, 3-5 s, 6-8 s."""
    service = make_index_service(hash_slot_num=4, index_num=4, max_msgs_num_batch=64)
    for n in range(9):
        service.build_index(request(n * 100, T0 + n * 1000, keys="k"))
    assert len(service.index_file_list) == 3
    return service


@pytest.mark.spec("IDX-10")
def test_query_visits_files_newest_first_and_reports_the_newest_files_end(three_files):
    result = three_files.query_offset(TOPIC, "k", 100, 0, 2**62)
    assert result.phy_offsets == [800, 700, 600, 500, 400, 300, 200, 100, 0]
    assert (result.index_last_update_timestamp, result.index_last_update_phyoffset) == (T0 + 8000, 800)


@pytest.mark.spec("IDX-10")
def test_query_caps_max_num_at_max_msgs_num_batch(make_index_service):
    service = make_index_service(hash_slot_num=4, index_num=40, max_msgs_num_batch=3)
    for n in range(9):
        service.build_index(request(n * 100, T0, keys="k"))
    assert service.query_offset(TOPIC, "k", 32, 0, 2**62).phy_offsets == [800, 700, 600]
    assert service.query_offset(TOPIC, "k", 2, 0, 2**62).phy_offsets == [800, 700]


@pytest.mark.spec("IDX-10")
def test_query_skips_files_outside_the_window_and_stops_after_one_that_begins_before_it(three_files, monkeypatch):
    assert three_files.query_offset(TOPIC, "k", 100, T0 + 3000, T0 + 5000).phy_offsets == [500, 400, 300]
    # 300 is the first entry of a rolled file: its diff was taken against the inherited begin (2 s), then the
    # begin moved to its own store time (3 s), so it reads back as 4 s and falls into this window (IDX-5).
    assert three_files.query_offset(TOPIC, "k", 100, T0 + 4000, T0 + 7000).phy_offsets == [700, 600, 500, 400, 300]
    searched = []
    for index_file in three_files.index_file_list:
        original = index_file.select_phy_offset

        def spy(*args, _f=index_file, _original=original):
            searched.append(_f.name)
            return _original(*args)

        monkeypatch.setattr(index_file, "select_phy_offset", spy)
    three_files.query_offset(TOPIC, "k", 100, T0 + 1000, T0 + 1500)
    names = [f.name for f in three_files.index_file_list]
    assert searched == [names[0]]  # the two newer files do not overlap the window
    searched.clear()
    three_files.query_offset(TOPIC, "k", 100, T0 + 4000, T0 + 4500)
    assert searched == [names[1]]  # it begins before the window: the oldest file is not visited


# -- loading --------------------------------------------------------------------------------------------------------
@pytest.mark.spec("IDX-12")
def test_load_keeps_every_file_after_a_clean_exit_and_drops_newer_ones_after_a_crash(tmp_path, world, rt):
    config = MessageStoreConfig.under(tmp_path / "store", max_hash_slot_num=4, max_index_num=3)  # 2 per file
    service, checkpoint = make_service(config, rt, RunningFlags())
    for n in range(5):
        service.build_index(request(n * 100, T0 + n * 1000, keys="k"))
        world.run_for(1000)
    names = [f.name for f in service.index_file_list]
    assert len(names) == 3 and checkpoint.index_msg_timestamp == T0 + 3000  # end of the second (full) file
    service.shutdown()
    (Path(service.store_path) / "notes.txt").write_text("not an index file")

    clean = IndexService(config, rt, checkpoint)
    assert clean.load(True)
    assert [f.name for f in clean.index_file_list] == names
    assert clean.query_offset(TOPIC, "k", 10, 0, 2**62).phy_offsets == [400, 300, 200, 100, 0]
    clean.shutdown()

    crashed = IndexService(config, rt, checkpoint)
    assert crashed.load(False)
    assert [f.name for f in crashed.index_file_list] == names[:2]
    assert sorted(p.name for p in Path(service.store_path).iterdir()) == [*names[:2], "notes.txt"]
    assert "destroyAfterCrash" in rt.trace.dump("IndexService")
    crashed.shutdown()
    checkpoint.shutdown()


# -- deletion -------------------------------------------------------------------------------------------------------
@pytest.mark.spec("IDX-14")
def test_delete_expired_file_removes_leading_files_below_the_offset_but_never_the_last(three_files):
    # End offsets of the three files: 200, 500, 800.
    names = [f.name for f in three_files.index_file_list]
    three_files.delete_expired_file(200)  # the first file's end is not below 200
    assert [f.name for f in three_files.index_file_list] == names
    three_files.delete_expired_file(201)
    assert [f.name for f in three_files.index_file_list] == names[1:]
    three_files.delete_expired_file(10_000)  # everything is below, but the last file stays
    assert [f.name for f in three_files.index_file_list] == names[2:]
    assert sorted(p.name for p in Path(three_files.store_path).iterdir()) == names[2:]
    three_files.delete_expired_file(10_000)
    assert [f.name for f in three_files.index_file_list] == names[2:]


@pytest.mark.spec("IDX-14")
def test_destroy_deletes_every_file(three_files):
    three_files.destroy()
    assert three_files.index_file_list == []
    assert list(Path(three_files.store_path).iterdir()) == []

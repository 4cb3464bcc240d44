"""ReputMessageService: reads the CommitLog behind the writers and builds the ConsumeQueues (doReput), and the
start-up catch-up of DefaultMessageStore#start."""

import shutil
import struct

import pytest

from mqlab.common.broker_config import BrokerConfig
from mqlab.common.message import message_record_layout as layout
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.put_message_status import PutMessageStatus
from tests.store.helpers import CL_SIZE, TOPIC, inner, keys_of, read_queue, small_config


@pytest.fixture
def paused(make_store):
    """A started store whose reput service is stopped, so tests call ``run_once`` themselves."""
    store = make_store()
    store.reput_message_service.shutdown()
    return store


def put_all(store, rt, count, start=0, **fields):
    results = []
    for i in range(start, start + count):
        result = store.put_message(inner(rt, i, **fields))
        assert result.put_message_status is PutMessageStatus.PUT_OK
        results.append(result.append_message_result)
    return results


@pytest.mark.spec("CQ-3", "CQ-7")
def test_run_once_dispatches_every_new_record_and_jumps_over_blank_records(paused, rt):
    store = paused
    put_all(store, rt, 60)
    assert store.get_max_offset_in_queue(TOPIC, 0) == 0  # in the CommitLog, invisible to consumers
    service = store.reput_message_service
    assert service.behind() == store.get_max_phy_offset() > 2 * CL_SIZE
    assert service.run_once() == 60
    assert service.reput_from_offset == store.get_max_phy_offset()
    assert service.behind() == 0
    assert service.run_once() == 0
    assert keys_of(read_queue(store)) == [f"k{i}" for i in range(60)]


@pytest.mark.store_left_damaged
@pytest.mark.spec("CQ-7")
def test_a_record_whose_fields_disagree_with_its_size_is_skipped(paused, rt):
    store = paused
    first, second = put_all(store, rt, 2)
    buf = store.commit_log.mapped_file_queue.mapped_files[0].mapped_byte_buffer
    end = first.wrote_offset + first.wrote_bytes
    raw, _ = layout.decode(bytes(buf[first.wrote_offset : end]), 0)
    props_len_at = end - len(raw.properties) - 2  # PROPLEN: the short just before the properties
    struct.pack_into(">h", buf, props_len_at, len(raw.properties) - 3)  # the fields now end 3 bytes early
    assert store.reput_message_service.run_once() == 1
    assert rt.trace.events("ReputMessageService", event="skipBadRecord")[0].fields["size"] == first.wrote_bytes
    assert store.reput_message_service.reput_from_offset == second.wrote_offset + second.wrote_bytes
    # Only the second message got a unit. Its queue offset is 1 in a queue with no file yet, so fillPreBlank put a
    # blank unit before it, exactly as 4.9.3 would: the queue now starts at 1.
    assert (store.get_min_offset_in_queue(TOPIC, 0), store.get_max_offset_in_queue(TOPIC, 0)) == (1, 2)
    assert keys_of(read_queue(store, start=1)) == ["k1"]


@pytest.mark.store_left_damaged
@pytest.mark.spec("CQ-7")
def test_a_master_skips_the_rest_of_the_window_after_an_unreadable_record(paused, rt):
    store = paused
    results = put_all(store, rt, 5)
    buf = store.commit_log.mapped_file_queue.mapped_files[0].mapped_byte_buffer
    struct.pack_into(">i", buf, results[2].wrote_offset + 4, 0x12345678)  # bad magic code
    assert store.reput_message_service.run_once() == 2
    assert store.reput_message_service.reput_from_offset == store.get_max_phy_offset()
    assert rt.trace.events("ReputMessageService", event="skipUnreadable")


@pytest.mark.store_left_damaged
@pytest.mark.spec("CQ-7")
def test_a_slave_stops_at_an_unreadable_record(make_store, rt):
    store = make_store(broker_role=BrokerRole.SLAVE)
    store.reput_message_service.shutdown()
    results = [store.commit_log.async_put_message(inner(rt, i)).result(1000) for i in range(4)]
    buf = store.commit_log.mapped_file_queue.mapped_files[0].mapped_byte_buffer
    bad = results[2].append_message_result.wrote_offset
    struct.pack_into(">i", buf, bad + 4, 0x12345678)
    assert store.reput_message_service.run_once() == 2
    assert store.reput_message_service.reput_from_offset == bad
    assert store.reput_message_service.run_once() == 0  # and stays there


@pytest.mark.spec("CQ-7")
def test_with_duplication_enabled_reput_does_not_start_a_window_at_or_past_the_confirm_offset(paused, rt):
    store = paused
    results = put_all(store, rt, 5)
    store.config.duplication_enable = True
    store.commit_log.confirm_offset = 0
    assert store.reput_message_service.run_once() == 0
    store.commit_log.confirm_offset = results[3].wrote_offset
    assert store.reput_message_service.run_once() == 5  # the check is per read window, as in Java


class Listener:
    def __init__(self):
        self.calls = []

    def arriving(self, topic, queue_id, logic_offset, tags_code, msg_store_time, filter_bit_map, properties):
        self.calls.append((topic, queue_id, logic_offset, tags_code, msg_store_time, properties["KEYS"]))


def listening_store(root, rt, **fields):
    listener = Listener()
    store = DefaultMessageStore(
        small_config(root, **fields), rt, broker_config=BrokerConfig(), message_arriving_listener=listener
    )
    store.load()
    store.start()
    return store, listener


@pytest.mark.spec("CQ-7")
def test_the_arriving_listener_hears_of_each_dispatched_message(store_root, rt, world):
    store, listener = listening_store(store_root, rt)
    try:
        results = put_all(store, rt, 3, queue_id=1)
        world.run_for(5)
        assert listener.calls == [
            (TOPIC, 1, i + 1, 2598919, results[i].store_timestamp, f"k{i}") for i in range(3)
        ]  # the queue's new max offset, the TagA code, the store time
    finally:
        store.shutdown()


@pytest.mark.spec("CQ-7")
def test_without_long_polling_the_listener_is_not_told(store_root, rt, world):
    listener = Listener()
    config = BrokerConfig()
    config.long_polling_enable = False
    store = DefaultMessageStore(small_config(store_root), rt, broker_config=config, message_arriving_listener=listener)
    store.load()
    store.start()
    try:
        put_all(store, rt, 2)
        world.run_for(5)
        assert listener.calls == []
        assert store.get_max_offset_in_queue(TOPIC, 0) == 2
    finally:
        store.shutdown()


@pytest.mark.spec("CQ-8")
def test_start_resumes_from_the_furthest_record_any_consume_queue_points_at(make_store, rt):
    store = make_store()
    put_all(store, rt, 10)
    end = store.get_max_phy_offset()
    store.shutdown()
    again = make_store()
    assert again.reput_message_service.reput_from_offset == end
    assert not rt.trace.events("ReputMessageService", event="doReput")[1:]  # nothing to dispatch a second time


@pytest.mark.spec("CQ-8")
def test_start_rebuilds_deleted_consume_queues_before_it_returns(make_store, rt, store_root):
    store = make_store()
    put_all(store, rt, 30)
    put_all(store, rt, 7, start=30, queue_id=3)
    store.shutdown()
    shutil.rmtree(store_root / "consumequeue")
    again = make_store()
    assert again.dispatch_behind_bytes() == 0
    assert keys_of(read_queue(again)) == [f"k{i}" for i in range(30)]
    assert keys_of(read_queue(again, 3)) == [f"k{i}" for i in range(30, 37)]
    assert again.put_message(inner(rt, 99)).append_message_result.logics_offset == 30


def count_reads(monkeypatch, store):
    """Record the size of every window reput reads."""
    sizes = []
    get_data = store.commit_log.get_data

    def recording(*args, **kwargs):
        result = get_data(*args, **kwargs)
        if result is not None:
            sizes.append(len(result.data))
        return result

    monkeypatch.setattr(store.commit_log, "get_data", recording)
    return sizes


@pytest.mark.spec("CQ-13")
@pytest.mark.parametrize("chunk", [333, 700, 4096])
def test_capped_windows_dispatch_the_same_records_as_one_window(paused, rt, monkeypatch, chunk):
    store = paused
    put_all(store, rt, 60)  # over several segments, with blank records
    service = store.reput_message_service
    service.read_chunk = chunk  # below the floor the constructor keeps, to cut records at window ends
    sizes = count_reads(monkeypatch, store)
    assert service.run_once() == 60
    assert max(sizes) <= chunk and len(sizes) >= store.get_max_phy_offset() // chunk
    assert service.reput_from_offset == store.get_max_phy_offset()
    assert keys_of(read_queue(store)) == [f"k{i}" for i in range(60)]
    assert not rt.trace.events("ReputMessageService", event="skipUnreadable")


@pytest.mark.spec("CQ-13")
def test_the_window_holds_at_least_one_whole_record(make_store):
    store = make_store()
    assert store.reput_message_service.read_chunk == max(16 << 20, store.config.max_message_size + 8)


@pytest.mark.store_left_damaged
@pytest.mark.spec("CQ-7", "CQ-13")
@pytest.mark.parametrize("corrupt", ["magic", "total"])
def test_a_master_skips_to_the_segments_readable_end_from_a_capped_window(paused, rt, corrupt):
    store = paused
    results = put_all(store, rt, 5)
    buf = store.commit_log.mapped_file_queue.mapped_files[0].mapped_byte_buffer
    if corrupt == "magic":
        struct.pack_into(">i", buf, results[2].wrote_offset + 4, 0x12345678)
    else:  # a TOTALSIZE longer than any window: garbage, not a record cut by the window's end
        struct.pack_into(">i", buf, results[2].wrote_offset, 0x7FFFFFF0)
    service = store.reput_message_service
    service.read_chunk = results[1].wrote_bytes + 10  # windows of about one record
    assert service.run_once() == 2
    assert service.reput_from_offset == store.get_max_phy_offset()
    assert rt.trace.events("ReputMessageService", event="skipUnreadable")

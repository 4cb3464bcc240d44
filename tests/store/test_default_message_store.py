"""DefaultMessageStore: get_message (every status and its nextBeginOffset, batch limits, tag filter), lookups by
offset and time, batch puts, the lock and abort files, and restarts (after 4.9.3's DefaultMessageStoreTest and
BatchPutMessageTest)."""

import struct

import pytest

from mqlab.common.message.message import Message
from mqlab.common.message.message_decoder import create_message_id, decodes
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.get_message_status import GetMessageStatus as S
from mqlab.store.message_ext_encoder import MessageSizeExceededError
from mqlab.store.message_filter import TagsMessageFilter
from mqlab.store.put_message_status import PutMessageStatus
from mqlab.store.store_errors import StoreLockedError
from tests.store.helpers import (
    CL_SIZE,
    STORE_HOST,
    TOPIC,
    batch,
    inner,
    keys_of,
    read_queue,
    small_config,
)


def put_all(store, rt, count, start=0, **fields):
    results = []
    for i in range(start, start + count):
        result = store.put_message(inner(rt, i, **fields))
        assert result.put_message_status is PutMessageStatus.PUT_OK, result
        results.append(result.append_message_result)
    store.runtime.scheduler.sleep(5)  # let reput dispatch
    return results


def get(store, offset, max_nums=32, message_filter=None, queue_id=0):
    return store.get_message("group", TOPIC, queue_id, offset, max_nums, message_filter)


# -- the status table ------------------------------------------------------------------------------------------------
@pytest.mark.spec("GET-1")
@pytest.mark.parametrize("offset", [0, 5])
def test_an_empty_queue_has_no_message(make_store, offset):
    result = get(make_store(), offset)
    assert (result.status, result.next_begin_offset) == (S.NO_MESSAGE_IN_QUEUE, 0)
    assert (result.min_offset, result.max_offset, result.message_count) == (0, 0, 0)


@pytest.mark.spec("GET-1", "GET-9", "CQ-6")
def test_an_unknown_queue_reads_as_an_empty_one_not_as_a_missing_logic_queue(make_store, rt):
    store = make_store()
    put_all(store, rt, 3)
    assert get(store, 0, queue_id=7).status is S.NO_MESSAGE_IN_QUEUE  # NO_MATCHED_LOGIC_QUEUE never happens


@pytest.mark.spec("GET-3")
def test_the_offset_one_past_the_end_overflows_by_one(make_store, rt):
    store = make_store()
    put_all(store, rt, 10)
    result = get(store, 10)
    assert (result.status, result.next_begin_offset, result.max_offset) == (S.OFFSET_OVERFLOW_ONE, 10, 10)


@pytest.mark.spec("GET-4")
def test_an_offset_far_past_the_end_restarts_at_0_when_the_queue_starts_at_0(make_store, rt):
    store = make_store()
    put_all(store, rt, 10)
    result = get(store, 15)
    assert (result.status, result.next_begin_offset) == (S.OFFSET_OVERFLOW_BADLY, 0)


@pytest.fixture
def cleaned(make_store, rt):
    """30 small messages on queue 0, then the first CommitLog segment deleted (as the cleaning service would)."""
    store = make_store()
    results = put_all(store, rt, 30, body=b"x" * 10)
    assert sum(r.wrote_offset < CL_SIZE for r in results) > 20  # ConsumeQueue file 0 points only into segment 0
    mfq = store.commit_log.mapped_file_queue
    first = mfq.mapped_files[0]
    assert first.destroy(0)
    mfq.delete_expired_file([first])
    return store, results


@pytest.mark.spec("GET-8")
def test_units_pointing_into_a_deleted_segment_read_as_message_was_removing(cleaned):
    store, _ = cleaned
    assert store.get_min_phy_offset() == CL_SIZE
    result = get(store, 0)
    assert (result.status, result.next_begin_offset, result.message_count) == (S.MESSAGE_WAS_REMOVING, 20, 0)


@pytest.mark.spec("GET-2", "GET-4", "CQ-12")
def test_below_the_corrected_min_offset_the_offset_is_too_small(cleaned):
    store, results = cleaned
    queue = store.find_consume_queue(TOPIC, 0)
    # What CleanConsumeQueueService does next: drop ConsumeQueue files that point only below the CommitLog's min
    # offset, then move the min offset to the first unit that still points into it.
    first = queue.mapped_file_queue.mapped_files[0]
    first.destroy(0)
    queue.mapped_file_queue.delete_expired_file([first])
    queue.correct_min_offset(store.get_min_phy_offset())
    first_kept = next(i for i, r in enumerate(results) if r.wrote_offset >= CL_SIZE)
    result = get(store, 0)
    assert (result.status, result.next_begin_offset) == (S.OFFSET_TOO_SMALL, first_kept)
    assert result.min_offset == first_kept
    result = get(store, 50)
    assert (result.status, result.next_begin_offset) == (S.OFFSET_OVERFLOW_BADLY, 30)  # min > 0: go to max
    result = get(store, first_kept)
    assert result.status is S.FOUND
    assert keys_of(decodes(result.message_bytes()))[0] == f"k{first_kept}"


@pytest.mark.spec("GET-5")
def test_an_offset_whose_consume_queue_file_is_gone_is_found_null(make_store, rt):
    store = make_store()
    put_all(store, rt, 30)
    queue = store.find_consume_queue(TOPIC, 0)
    first = queue.mapped_file_queue.mapped_files[0]
    first.destroy(0)
    queue.mapped_file_queue.delete_expired_file([first])
    result = get(store, 3)
    assert (result.status, result.next_begin_offset) == (S.OFFSET_FOUND_NULL, 20)  # the next ConsumeQueue file


@pytest.mark.spec("GET-6", "GET-13")
def test_found_returns_the_stored_records_and_the_offset_after_the_units_scanned(make_store, rt):
    store = make_store()
    results = put_all(store, rt, 30)
    result = get(store, 5, max_nums=4)
    assert (result.status, result.next_begin_offset, result.message_count) == (S.FOUND, 9, 4)
    assert result.message_queue_offset == [5, 6, 7, 8]
    assert result.buffer_total_size == sum(r.wrote_bytes for r in results[5:9])
    messages = decodes(result.message_bytes(), strict=True)
    assert keys_of(messages) == ["k5", "k6", "k7", "k8"]
    assert [m.commit_log_offset for m in messages] == [r.wrote_offset for r in results[5:9]]


@pytest.mark.spec("GET-6", "GET-10")
def test_one_get_reads_no_further_than_the_end_of_its_consume_queue_file(make_store, rt):
    store = make_store()
    put_all(store, rt, 30)
    result = get(store, 15, max_nums=32)
    assert (result.status, result.message_count, result.next_begin_offset) == (S.FOUND, 5, 20)


@pytest.mark.spec("GET-7", "GET-12")
def test_when_no_unit_matches_the_filter_nothing_matched_and_the_scan_moves_on(make_store, rt):
    store = make_store()
    put_all(store, rt, 12)
    result = get(store, 2, message_filter=TagsMessageFilter("TagZ"))
    assert (result.status, result.next_begin_offset, result.message_count) == (S.NO_MATCHED_MESSAGE, 12, 0)


# -- batch limits ----------------------------------------------------------------------------------------------------
@pytest.mark.spec("GET-11")
def test_the_number_of_messages_is_bounded_by_max_msg_nums(make_store, rt):
    # 4.9.3 DefaultMessageStoreTest#testPullSize
    store = make_store(mapped_file_size_commit_log=64 * 1024, mapped_file_size_consume_queue=20 * 100)
    put_all(store, rt, 32)
    for wanted in (32, 20, 10):
        result = get(store, 0, max_nums=wanted)
        assert result.message_count == wanted
        assert result.next_begin_offset == wanted


@pytest.mark.spec("GET-11")
def test_in_memory_messages_are_bounded_by_32_per_get(make_store, rt):
    store = make_store(mapped_file_size_commit_log=64 * 1024, mapped_file_size_consume_queue=20 * 100)
    put_all(store, rt, 40)
    result = get(store, 0, max_nums=64)
    assert (result.message_count, result.next_begin_offset) == (32, 32)
    assert not result.suggest_pulling_from_slave


@pytest.mark.spec("GET-11")
def test_in_memory_messages_are_bounded_by_256_kib_per_get(make_store, rt):
    store = make_store(mapped_file_size_commit_log=1024 * 1024, mapped_file_size_consume_queue=20 * 100)
    results = put_all(store, rt, 30, body=b"m" * 10_240)
    size = results[0].wrote_bytes
    fitting = 262_144 // size  # the next one would take the total past maxTransferBytesOnMessageInMemory
    result = get(store, 0, max_nums=64)
    assert result.message_count == fitting == 25
    assert result.buffer_total_size == sum(r.wrote_bytes for r in results[:25]) <= 262_144
    assert result.buffer_total_size + results[25].wrote_bytes > 262_144


@pytest.mark.spec("GET-11", "GET-17")
def test_messages_far_behind_the_head_count_as_on_disk_with_smaller_limits(make_store, rt):
    rt.total_physical_memory = 10_000  # 40 % of it = 4000 bytes of "page cache"
    store = make_store(mapped_file_size_commit_log=1024 * 1024, mapped_file_size_consume_queue=20 * 100)
    put_all(store, rt, 40)
    result = get(store, 0, max_nums=64)
    assert (result.message_count, result.next_begin_offset) == (8, 8)  # maxTransferCountOnMessageInDisk
    assert result.suggest_pulling_from_slave
    assert store.check_in_disk_by_consume_offset(TOPIC, 0, 0)
    assert not store.check_in_disk_by_consume_offset(TOPIC, 0, 39)
    big = put_all(store, rt, 12, start=40, body=b"d" * 9000)
    result = get(store, 40, max_nums=64)
    assert result.message_count == 65_536 // big[0].wrote_bytes == 7  # maxTransferBytesOnMessageInDisk


@pytest.mark.spec("GET-11")
def test_the_first_message_is_always_taken_whatever_its_size(make_store, rt):
    store = make_store(mapped_file_size_commit_log=1024 * 1024, mapped_file_size_consume_queue=20 * 100)
    put_all(store, rt, 2, body=b"h" * 300_000)
    result = get(store, 0)
    assert result.message_count == 1


# -- tag filter ------------------------------------------------------------------------------------------------------
@pytest.mark.spec("GET-12")
def test_the_tag_filter_keeps_subscribed_tags_and_counts_every_unit_scanned(make_store, rt):
    store = make_store()
    for i, tags in enumerate(["TagA", "TagB", "TagC", None, "TagA", "TagB"]):
        put_all(store, rt, 1, start=i, tags=tags)
    result = get(store, 0, message_filter=TagsMessageFilter("TagA || TagB"))
    assert keys_of(decodes(result.message_bytes())) == ["k0", "k1", "k4", "k5"]
    assert result.message_queue_offset == [0, 1, 4, 5]
    assert result.next_begin_offset == 6
    everything = get(store, 0, message_filter=TagsMessageFilter("*"))
    assert everything.message_count == 6


@pytest.mark.spec("GET-12")
def test_tags_with_the_same_hash_both_pass_the_broker_and_the_client_drops_the_wrong_one(make_store, rt):
    store = make_store()
    assert "Aa".__hash__ is not None
    for i, tags in enumerate(["Aa", "BB", "Cc"]):
        put_all(store, rt, 1, start=i, tags=tags)
    subscription = TagsMessageFilter("Aa")
    result = get(store, 0, message_filter=subscription)
    on_the_wire = decodes(result.message_bytes())
    assert [m.get_tags() for m in on_the_wire] == ["Aa", "BB"]  # "Aa".hashCode() == "BB".hashCode() == 2112
    kept_by_client = [m for m in on_the_wire if m.get_tags() in subscription.tags_set]  # PullAPIWrapper's re-check
    assert [m.get_tags() for m in kept_by_client] == ["Aa"]


@pytest.mark.spec("GET-12")
def test_the_filter_matches_on_the_low_32_bits_and_a_missing_code_always_matches():
    subscription = TagsMessageFilter("polygenelubricants")  # hashCode() == Integer.MIN_VALUE
    assert subscription.is_matched_by_consume_queue(-(2**31))
    assert subscription.is_matched_by_consume_queue(2**31)  # same low 32 bits
    assert subscription.is_matched_by_consume_queue(None)
    assert not subscription.is_matched_by_consume_queue(0)
    assert subscription.is_matched_by_commit_log(b"any record", None)
    assert TagsMessageFilter("").sub_all and TagsMessageFilter("*").sub_all


# -- who may read --------------------------------------------------------------------------------------------------
@pytest.mark.spec("GET-15")
def test_a_shut_down_or_unreadable_store_answers_nothing(make_store, rt):
    store = make_store()
    put_all(store, rt, 2)
    store.running_flags.make_readable(False)
    assert get(store, 0) is None
    store.running_flags.make_readable(True)
    assert get(store, 0).status is S.FOUND
    store.shutdown()
    assert get(store, 0) is None


@pytest.mark.spec("GET-14")
def test_a_slave_keeps_the_requested_offset_unless_offset_check_in_slave(make_store, rt, store_root):
    store = make_store()
    put_all(store, rt, 10)
    store.shutdown()
    slave = make_store(broker_role=BrokerRole.SLAVE)
    result = get(slave, 25)
    assert (result.status, result.next_begin_offset) == (S.OFFSET_OVERFLOW_BADLY, 25)
    slave.config.offset_check_in_slave = True
    assert get(slave, 25).next_begin_offset == 0


# -- lookups ---------------------------------------------------------------------------------------------------------
@pytest.mark.spec("GET-16")
def test_look_message_by_offset_first_last_and_out_of_bound(make_store, rt):
    # 4.9.3 DefaultMessageStoreTest#testLookMessageByOffset_OffsetIsFirst / _OffsetIsLast / _OffsetIsOutOfBound
    store = make_store()
    results = put_all(store, rt, 10)
    first, last = results[0], results[-1]
    assert store.look_message_by_offset(first.wrote_offset).get_keys() == "k0"
    assert store.look_message_by_offset(first.wrote_offset, first.wrote_bytes).get_keys() == "k0"
    assert store.look_message_by_offset(last.wrote_offset, last.wrote_bytes).get_keys() == "k9"
    assert store.look_message_by_offset(last.wrote_offset + last.wrote_bytes) is None
    raw = store.select_one_message_by_offset(last.wrote_offset)
    assert raw.size == last.wrote_bytes


@pytest.mark.spec("GET-16")
def test_earliest_message_time_and_commit_log_offset_of_a_queue_offset(make_store, rt, world):
    store = make_store()
    assert store.get_earliest_message_time() == -1
    world.run_for(100)
    put_all(store, rt, 1, queue_id=1)
    world.run_for(100)
    results = put_all(store, rt, 3)
    assert store.get_earliest_message_time() == world.start_ms + 100
    assert store.get_earliest_message_time(TOPIC, 0) == results[0].store_timestamp
    assert store.get_earliest_message_time(TOPIC, 5) == -1
    assert store.get_commit_log_offset_in_queue(TOPIC, 0, 2) == results[2].wrote_offset
    assert store.get_commit_log_offset_in_queue(TOPIC, 0, 3) == 0


# -- batches -----------------------------------------------------------------------------------------------------
@pytest.mark.spec("STORE-10")
def test_a_batch_is_stored_as_consecutive_records_with_consecutive_queue_offsets(make_store, rt):
    # 4.9.3 BatchPutMessageTest#testPutMessages
    store = make_store(mapped_file_size_commit_log=8 * 1024, mapped_file_size_consume_queue=4 * 1024)
    put_all(store, rt, 3)  # the queue already holds 0..2
    messages = [Message(TOPIC, "TAG1", f"key{i}", f"body{i}".encode()) for i in range(10)]
    result = store.put_messages(batch(rt, messages, batch_properties={"extraKey": "extraValue"}))
    assert result.put_message_status is PutMessageStatus.PUT_OK
    append = result.append_message_result
    assert (append.logics_offset, append.msg_num) == (3, 10)
    ids = append.msg_id.split(",")
    offset = append.wrote_offset
    for i, msg_id in enumerate(ids):
        stored = store.look_message_by_offset(offset)
        assert msg_id == create_message_id(STORE_HOST, offset)
        assert (stored.queue_offset, stored.get_keys(), stored.body) == (3 + i, f"key{i}", f"body{i}".encode())
        assert stored.get_property("extraKey") == "extraValue"
        offset += stored.store_size
    assert offset == append.wrote_offset + append.wrote_bytes
    store.runtime.scheduler.sleep(5)
    for i in range(3, 13):
        assert get(store, i, max_nums=1024 * 1024).status is S.FOUND
    assert store.put_message(inner(rt, 99)).append_message_result.logics_offset == 13


@pytest.mark.spec("STORE-10", "STORE-8")
def test_a_batch_that_does_not_fit_moves_whole_to_the_next_segment(make_store, rt):
    store = make_store()
    put_all(store, rt, 15)  # about 2.6 KiB of the first 4 KiB segment
    result = store.put_messages(batch(rt, 10, first=15))
    append = result.append_message_result
    assert result.put_message_status is PutMessageStatus.PUT_OK
    assert append.wrote_offset == CL_SIZE
    assert append.wrote_offset + append.wrote_bytes <= 2 * CL_SIZE
    store.runtime.scheduler.sleep(5)
    assert keys_of(read_queue(store)) == [f"k{i}" for i in range(25)]


@pytest.mark.spec("STORE-10", "STORE-12")
def test_transactional_delayed_or_oversized_batches_are_illegal(make_store, rt):
    store = make_store(max_message_size=2048)
    transactional = batch(rt, 2)
    transactional.sys_flag = 0x4
    delayed = batch(rt, 2, batch_properties={"DELAY": "3"})
    for bad in (transactional, delayed):
        assert store.put_messages(bad).put_message_status is PutMessageStatus.MESSAGE_ILLEGAL
    assert store.get_max_phy_offset() == 0


@pytest.mark.spec("STORE-10", "AUDIT-2")
def test_an_oversized_batch_raises_out_of_the_put_as_java_encoder_throws(make_store, rt):
    store = make_store(max_message_size=2048)
    with pytest.raises(MessageSizeExceededError, match="message size exceeded"):
        store.put_messages(batch(rt, 20))
    assert store.get_max_phy_offset() == 0
    assert store.put_messages(batch(rt, 2)).put_message_status is PutMessageStatus.PUT_OK


# -- lock, abort, restart ----------------------------------------------------------------------------------------
@pytest.mark.spec("REC-1")
def test_a_second_store_on_the_same_directory_is_refused(make_store, rt, store_root):
    make_store()
    second = DefaultMessageStore(small_config(store_root), rt)
    with pytest.raises(StoreLockedError, match="Lock failed,MQ already started"):
        second.load()
    assert (store_root / "lock").read_bytes() == b"lock"


@pytest.mark.spec("REC-1")
def test_the_lock_is_released_by_shutdown(make_store, store_root):
    make_store().shutdown()
    make_store()  # no error


@pytest.mark.spec("REC-2")
def test_the_abort_file_exists_exactly_while_the_store_runs(make_store, store_root):
    store = make_store(start=False)
    assert not (store_root / "abort").exists()
    store.start()
    assert (store_root / "abort").exists()
    store.shutdown()
    assert not (store_root / "abort").exists()


@pytest.mark.spec("REC-2")
def test_an_unwritable_store_keeps_its_abort_file_at_shutdown(make_store, store_root):
    store = make_store()
    store.running_flags.make_logics_queue_error()
    store.shutdown()
    assert (store_root / "abort").exists()
    again = make_store()
    assert not again.recovery_report.last_exit_ok


@pytest.mark.spec("REC-6", "REC-7", "STORE-9")
def test_queue_offsets_continue_after_a_restart(make_store, rt):
    # 4.9.3 DefaultMessageStoreTest#testRecover, step 1 (just reboot)
    store = make_store()
    put_all(store, rt, 25)
    put_all(store, rt, 12, start=25, queue_id=1)
    put_all(store, rt, 3, start=37, topic="Other")
    max_phy = store.get_max_phy_offset()
    before = {q: keys_of(read_queue(store, q)) for q in (0, 1)}
    store.shutdown()
    again = make_store()
    assert again.get_max_phy_offset() == max_phy
    table = again.commit_log.topic_queue_table
    assert {k: table[k] for k in (f"{TOPIC}-0", f"{TOPIC}-1", "Other-0")} == {
        f"{TOPIC}-0": 25,
        f"{TOPIC}-1": 12,
        "Other-0": 3,
    }
    assert {q: keys_of(read_queue(again, q)) for q in (0, 1)} == before
    assert again.put_message(inner(rt, 50, queue_id=1)).append_message_result.logics_offset == 12
    assert again.put_message(inner(rt, 51, topic="Other")).append_message_result.logics_offset == 3


@pytest.mark.spec("REC-7")
def test_many_clean_restarts_in_a_row_lose_nothing(make_store, rt):
    expected = []
    for round_ in range(5):
        store = make_store()
        put_all(store, rt, 7, start=7 * round_)
        expected += [f"k{i}" for i in range(7 * round_, 7 * round_ + 7)]
        assert keys_of(read_queue(store)) == expected
        store.shutdown()
    assert store.recovery_report.lines()[0] == "previous shutdown clean"


def test_get_message_drives_a_full_consumption_across_many_files(make_store, rt):
    store = make_store()
    put_all(store, rt, 200, queue_id=0, body=b"c" * 50)
    messages = read_queue(store, batch_size=7)
    assert [m.queue_offset for m in messages] == list(range(200))
    assert len(store.commit_log.mapped_file_queue.mapped_files) > 5


def test_the_lock_file_and_checkpoint_sit_in_the_root(make_store, store_root):
    make_store()
    assert sorted(p.name for p in store_root.iterdir()) == ["abort", "checkpoint", "commitlog", "consumequeue", "lock"]
    assert struct.calcsize(">qqq") == 24

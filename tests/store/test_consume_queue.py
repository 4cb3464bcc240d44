"""ConsumeQueue: 20-byte units pointing into the CommitLog, their files, fillPreBlank, idempotent re-puts,
recovery and time search (after 4.9.3's ConsumeQueueTest and DefaultMessageStoreTest#testGetOffsetInQueueByTime*)."""

import struct

import pytest

from mqlab.store.consume_queue import BLANK_UNIT, CQ_STORE_UNIT_SIZE, ConsumeQueue
from tests.store.helpers import CQ_SIZE, TOPIC, cq_units, inner, tags_code

INT_MAX = 2**31 - 1


@pytest.fixture
def filled(make_store, rt):
    """50 messages alternating between queues 0 and 1 and between tags TagA, TagB and none."""
    store = make_store()
    results = []
    for i in range(50):
        msg = inner(rt, i, queue_id=i % 2, tags=["TagA", "TagB", None][i % 3])
        results.append((msg, store.put_message(msg).append_message_result))
    store.runtime.scheduler.sleep(5)
    return store, results


@pytest.fixture
def bare_queue(tmp_path, rt):
    queues = []

    def factory(size=CQ_SIZE):
        queue = ConsumeQueue(TOPIC, 0, tmp_path / "consumequeue", size, runtime=rt)
        queues.append(queue)
        return queue

    yield factory
    for queue in queues:
        queue.shutdown()


@pytest.mark.spec("CQ-1")
def test_units_live_in_20_digit_files_under_topic_and_queue_id(filled, store_root):
    store, _ = filled
    directory = store_root / "consumequeue" / TOPIC / "0"
    names = sorted(p.name for p in directory.iterdir())
    assert names == ["00000000000000000000", "00000000000000000400"]
    assert all((directory / n).stat().st_size == CQ_SIZE for n in names)
    assert store.get_max_offset_in_queue(TOPIC, 0) == 25
    assert store.find_consume_queue(TOPIC, 0).mapped_file_queue.get_max_offset() == 25 * CQ_STORE_UNIT_SIZE


@pytest.mark.spec("CQ-1", "CQ-2")
def test_every_unit_points_at_its_record_with_its_size_and_tags_code(filled, store_root):
    store, results = filled
    for queue_id in (0, 1):
        directory = store_root / "consumequeue" / TOPIC / str(queue_id)
        units = [u for path in sorted(directory.iterdir()) for u in cq_units(path)]
        expected = [(m, r) for m, r in results if m.queue_id == queue_id]
        assert len(units) == len(expected) == 25
        for index, ((offset, size, code), (msg, append)) in enumerate(zip(units, expected, strict=True)):
            assert offset == append.wrote_offset
            assert size == append.wrote_bytes
            assert code == tags_code(msg.get_tags())
            stored = store.look_message_by_offset(offset, size)
            assert stored.queue_offset == index
            assert stored.store_size == size


@pytest.mark.spec("CQ-1")
def test_the_unit_is_offset_long_size_int_tags_code_long_big_endian(filled, store_root):
    _, results = filled
    first = (store_root / "consumequeue" / TOPIC / "0" / "00000000000000000000").read_bytes()
    append = results[0][1]
    assert first[:20] == struct.pack(">qiq", append.wrote_offset, append.wrote_bytes, 2598919)  # "TagA"
    assert first[:20].hex().upper().endswith("000000000027A807")


@pytest.mark.spec("CQ-4")
def test_re_putting_a_built_unit_succeeds_without_writing(filled):
    # 4.9.3 ConsumeQueueTest#testPutMessagePositionInfo_buildCQRepeatedly
    store, _ = filled
    queue = store.find_consume_queue(TOPIC, 0)
    data = store.commit_log.get_data(0)
    request = store.commit_log.check_message_and_return_size(data.data, 0, False, False)
    before = queue.mapped_file_queue.get_max_offset()
    assert queue.put_message_position_info(
        request.commit_log_offset, request.msg_size, request.tags_code, request.consume_queue_offset
    )
    assert queue.mapped_file_queue.get_max_offset() == before


@pytest.mark.spec("CQ-4")
def test_a_unit_already_in_the_file_is_not_written_twice_even_when_max_physic_offset_is_behind(bare_queue):
    queue = bare_queue()
    for i in range(3):
        assert queue.put_message_position_info(100 * i, 100, 0, i)
    queue.max_physic_offset = -1  # as if recovery had not seen these units
    assert queue.put_message_position_info(100, 100, 0, 1)
    assert queue.get_max_offset_in_queue() == 3


@pytest.mark.spec("CQ-5")
def test_a_queue_whose_first_unit_is_not_offset_0_is_filled_with_blank_units(bare_queue):
    queue = bare_queue()
    assert queue.put_message_position_info(1000, 100, 7, 25)
    files = queue.mapped_file_queue.mapped_files
    assert [f.file.name for f in files] == ["00000000000000000400"]
    data = files[0].select_mapped_buffer(0).data
    assert [data[i : i + 20] for i in range(0, 100, 20)] == [BLANK_UNIT] * 5
    assert struct.unpack(">qiq", BLANK_UNIT) == (0, INT_MAX, 0)
    assert struct.unpack_from(">qiq", data, 100) == (1000, 100, 7)
    assert (queue.get_min_offset_in_queue(), queue.get_max_offset_in_queue()) == (25, 26)
    assert queue.get_index_buffer(24) is None
    assert struct.unpack_from(">qiq", queue.get_index_buffer(25).data) == (1000, 100, 7)


@pytest.mark.spec("CQ-6")
def test_an_unknown_queue_is_created_empty_on_first_use(make_store):
    store = make_store()
    assert store.get_max_offset_in_queue("Nobody", 3) == 0
    assert store.get_min_offset_in_queue("Nobody", 3) == 0
    assert store.find_consume_queue("Nobody", 3).get_message_total_in_queue() == 0
    assert 3 in store.consume_queue_table["Nobody"]


@pytest.mark.spec("CQ-11")
@pytest.mark.parametrize(("index", "expected"), [(0, 20), (19, 20), (20, 40), (25, 40)])
def test_roll_next_file_is_the_first_offset_of_the_next_file(bare_queue, index, expected):
    assert bare_queue().roll_next_file(index) == expected


@pytest.mark.spec("REC-3")
def test_recover_keeps_units_up_to_the_first_invalid_one(bare_queue, rt):
    queue = bare_queue()
    for i in range(50):  # 3 files: 20 + 20 + 10 units
        queue.put_message_position_info(100 * i, 100, 0, i)
    last = queue.mapped_file_queue.mapped_files[-1]
    struct.pack_into(">qiq", last.mapped_byte_buffer, 5 * 20, 0, 0, 0)  # unit 45 invalid (size 0)
    queue.shutdown()
    again = bare_queue()
    again.load()
    assert again.recover() == 45 * 20
    assert again.get_max_offset_in_queue() == 45
    assert again.max_physic_offset == 100 * 44 + 100


@pytest.mark.spec("REC-3")
def test_recover_looks_only_from_the_third_last_file(bare_queue):
    queue = bare_queue()
    for i in range(100):  # 5 files
        queue.put_message_position_info(100 * i, 100, 0, i)
    first = queue.mapped_file_queue.mapped_files[0]
    struct.pack_into(">qiq", first.mapped_byte_buffer, 0, -1, 0, 0)  # damage before the third-last file
    queue.shutdown()
    again = bare_queue()
    again.load()
    assert again.recover() == 100 * 20
    assert again.get_max_offset_in_queue() == 100


@pytest.mark.spec("REC-4")
def test_truncate_dirty_logic_files_drops_units_at_or_past_the_commit_log_end(bare_queue):
    queue = bare_queue()
    for i in range(50):
        queue.put_message_position_info(100 * i, 100, 0, i)
    queue.truncate_dirty_logic_files(100 * 18)  # units 18.. point at or past the new end
    assert queue.get_max_offset_in_queue() == 18
    assert [f.file.name for f in queue.mapped_file_queue.mapped_files] == ["00000000000000000000"]
    assert queue.max_physic_offset == 1800


def test_get_last_offset_is_the_end_of_the_last_record_pointed_at(bare_queue):
    queue = bare_queue()
    assert queue.get_last_offset() == -1
    for i in range(5):
        queue.put_message_position_info(100 * i, 90, 0, i)
    assert queue.get_last_offset() == 490


@pytest.mark.spec("CQ-12")
def test_correct_min_offset_skips_units_below_the_commit_log_min(bare_queue):
    queue = bare_queue()
    for i in range(10):
        queue.put_message_position_info(100 * i, 100, 0, i)
    queue.correct_min_offset(350)
    assert queue.get_min_offset_in_queue() == 4
    assert queue.get_index_buffer(3) is None


# -- time search -----------------------------------------------------------------------------------------------------
@pytest.fixture
def timed(make_store, rt, world):
    """Messages on queue 0, 10 ms apart: ``timed(10)`` fits one ConsumeQueue file, ``timed(45)`` needs three."""

    def factory(count):
        store = make_store()
        results = []
        for i in range(count):
            results.append(store.put_message(inner(rt, i)).append_message_result)
            world.run_for(10)
        return store, results

    return factory


def unit_at(store, offset):
    return struct.unpack_from(">qi", store.find_consume_queue(TOPIC, 0).get_index_buffer(offset).data)


@pytest.mark.spec("CQ-10")
def test_get_offset_in_queue_by_time_finds_each_message_by_its_store_time(timed):
    # 4.9.3 DefaultMessageStoreTest#testGetOffsetInQueueByTime, over three ConsumeQueue files
    store, results = timed(45)
    for index, append in enumerate(results):
        offset = store.get_offset_in_queue_by_time(TOPIC, 0, append.store_timestamp)
        assert offset == index
        assert unit_at(store, offset) == (append.wrote_offset, append.wrote_bytes)


@pytest.mark.spec("CQ-10")
def test_a_slightly_skewed_time_finds_the_nearest_message(timed):
    # 4.9.3 DefaultMessageStoreTest#testGetOffsetInQueueByTime_TimestampIsSkewing
    store, results = timed(10)
    for index, append in enumerate(results):
        assert store.get_offset_in_queue_by_time(TOPIC, 0, append.store_timestamp + 2) == index
        assert store.get_offset_in_queue_by_time(TOPIC, 0, append.store_timestamp - 2) == index


@pytest.mark.spec("CQ-10")
def test_a_time_between_two_messages_at_equal_distance_takes_the_earlier(timed):
    store, results = timed(10)
    assert store.get_offset_in_queue_by_time(TOPIC, 0, results[3].store_timestamp + 5) == 3


@pytest.mark.spec("CQ-10")
def test_a_time_far_outside_the_queue_finds_its_first_or_last_message(timed):
    # 4.9.3 DefaultMessageStoreTest#testGetOffsetInQueueByTime_TimestampSkewingIsLarge
    store, results = timed(10)
    assert store.get_offset_in_queue_by_time(TOPIC, 0, results[-1].store_timestamp + 20_000) == 9
    assert store.get_offset_in_queue_by_time(TOPIC, 0, results[0].store_timestamp - 20_000) == 0


@pytest.mark.spec("CQ-10")
def test_an_unknown_queue_answers_0_and_no_store_time(timed):
    # 4.9.3 DefaultMessageStoreTest#testGetOffsetInQueueByTime_ConsumeQueueNotFound1/2, _ConsumeQueueOffsetNotExist
    store, results = timed(10)
    assert store.get_offset_in_queue_by_time(TOPIC, 1, results[0].store_timestamp) == 0
    assert store.get_message_store_timestamp(TOPIC, 1, 0) == -1
    assert store.get_message_store_timestamp(TOPIC, 1, -1) == -1


@pytest.mark.spec("GET-16")
def test_get_message_store_timestamp_reads_the_record_each_unit_points_at(timed):
    # 4.9.3 DefaultMessageStoreTest#testGetMessageStoreTimeStamp
    store, results = timed(10)
    for index, append in enumerate(results):
        assert store.get_message_store_timestamp(TOPIC, 0, index) == append.store_timestamp
    assert store.get_message_store_timestamp(TOPIC, 0, 10) == -1


@pytest.mark.spec("CQ-10")
def test_the_search_stays_inside_the_first_file_modified_at_or_after_the_time(timed):
    # Java binary-searches one file only: a time just after the last unit of file 0 was written picks file 1,
    # whose nearest unit is its first (offset 20), even though message 19 is closer in time.
    store, results = timed(45)
    file0 = store.find_consume_queue(TOPIC, 0).mapped_file_queue.mapped_files[0]
    after = file0.get_last_modified_timestamp() + 1
    assert after - results[19].store_timestamp < results[20].store_timestamp - after
    assert store.get_offset_in_queue_by_time(TOPIC, 0, after) == 20
    assert store.get_offset_in_queue_by_time(TOPIC, 0, after - 1) == 19


def test_get_index_buffer_with_max_size_returns_a_prefix_of_the_same_units(bare_queue):
    queue = bare_queue(size=CQ_STORE_UNIT_SIZE * 10)
    for n in range(6):
        assert queue.put_message_position_info(1000 + 100 * n, 100, n, n)
    for start in range(7):
        whole = queue.get_index_buffer(start)
        for max_size in (CQ_STORE_UNIT_SIZE, 3 * CQ_STORE_UNIT_SIZE, 1000):
            capped = queue.get_index_buffer(start, max_size=max_size)
            if whole is None:
                assert capped is None
            else:
                assert capped.start_offset == whole.start_offset
                assert capped.data == whole.data[:max_size]

"""CommitLog: the put path and what it leaves on disk, the put statuses, and the record checker used by reput and
recovery (after 4.9.3's DefaultMessageStoreTest and the field table of CommitLog#calMsgLength)."""

import struct

import pytest

from mqlab.common import util_all
from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message_decoder import create_message_id
from mqlab.store.commit_log import BLANK_MAGIC_CODE
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.put_message_status import PutMessageStatus
from tests.store.helpers import (
    BORN_HOST_V6,
    CL_SIZE,
    STORE_HOST,
    STORE_HOST_V6,
    TOPIC,
    inner,
    read_queue,
    scan_segment,
    segment_files,
    tags_code,
)


def put(store, msg):
    result = store.put_message(msg)
    assert result.put_message_status is PutMessageStatus.PUT_OK, result
    return result


@pytest.fixture
def filled(make_store, rt):
    """60 messages over two queues and three tags, crossing several 4 KiB segments; returns (store, puts)."""
    store = make_store()
    puts = []
    for i in range(60):
        msg = inner(rt, i, queue_id=i % 2, tags=["TagA", "TagB", None][i % 3], body=b"x" * (20 + i))
        puts.append((msg, put(store, msg)))
    return store, puts


# -- what is on disk -----------------------------------------------------------------------------------------------
@pytest.mark.spec("STORE-1", "STORE-7")
def test_every_record_decodes_with_its_crc_and_the_fields_patched_in_the_lock(filled):
    store, puts = filled
    by_offset = {result.append_message_result.wrote_offset: (msg, result) for msg, result in puts}
    seen = 0
    for path in segment_files(store):
        assert len(path.name) == 20 and int(path.name) % CL_SIZE == 0
        start = int(path.name)
        for pos, decoded in scan_segment(path).records:
            msg, result = by_offset[start + pos]
            append = result.append_message_result
            assert decoded.commit_log_offset == start + pos == append.wrote_offset
            assert decoded.queue_offset == append.logics_offset
            assert decoded.store_timestamp == append.store_timestamp
            assert decoded.store_size == append.wrote_bytes
            assert decoded.queue_id == msg.queue_id
            assert decoded.body == msg.body
            assert decoded.body_crc == util_all.crc32(msg.body)
            assert decoded.topic == TOPIC
            assert decoded.born_host == msg.born_host and decoded.store_host == STORE_HOST
            assert decoded.born_timestamp == msg.born_timestamp
            raw, _ = layout.decode(path.read_bytes(), pos)
            assert raw.properties == msg.properties_string.encode()  # HashMap order, WAIT stripped
            assert b"WAIT" not in raw.properties and b"CLUSTER\x01DefaultCluster" in raw.properties
            seen += 1
    assert seen == 60


@pytest.mark.spec("STORE-7")
def test_a_record_is_91_bytes_plus_body_topic_and_properties(make_store, rt):
    store = make_store()
    msg = inner(rt, 0, body=b"Hello RocketMQ")
    result = put(store, msg)
    props = len(msg.properties_string.encode())
    assert result.append_message_result.wrote_bytes == 91 + 14 + len(TOPIC) + props


@pytest.mark.spec("STORE-7")
def test_ipv6_hosts_set_their_sysflag_bits_and_widen_the_record_by_12_bytes_each(make_store, rt):
    store = make_store()
    v4 = inner(rt, 0, body=b"same body")
    v6 = inner(rt, 0, body=b"same body", born_host=BORN_HOST_V6, store_host=STORE_HOST_V6)
    r4, r6 = put(store, v4), put(store, v6)
    assert v6.sys_flag & 0x30 == 0x30
    assert r6.append_message_result.wrote_bytes == r4.append_message_result.wrote_bytes + 24
    decoded = store.look_message_by_offset(r6.append_message_result.wrote_offset)
    assert decoded.born_host == BORN_HOST_V6 and decoded.store_host == STORE_HOST_V6
    assert decoded.store_timestamp == r6.append_message_result.store_timestamp
    assert len(r6.append_message_result.msg_id) == 56


@pytest.mark.spec("STORE-8")
def test_every_full_segment_ends_in_a_blank_record_holding_the_bytes_left(filled):
    store, _ = filled
    files = segment_files(store)
    assert len(files) >= 3
    for path in files[:-1]:
        scan = scan_segment(path)
        data = path.read_bytes()
        assert scan.blank_at is not None, path.name
        assert scan.blank_size == CL_SIZE - scan.blank_at >= 8
        assert struct.unpack_from(">ii", data, scan.blank_at) == (scan.blank_size, BLANK_MAGIC_CODE)
        assert data[scan.blank_at + 8 :] == bytes(CL_SIZE - scan.blank_at - 8)  # only 8 bytes are written
    last = scan_segment(files[-1])
    assert last.blank_at is None
    assert int(files[-1].name) + last.end == store.get_max_phy_offset()


@pytest.mark.spec("STORE-8")
def test_a_message_that_does_not_fit_goes_whole_to_the_next_segment(make_store, rt):
    store = make_store()
    first = put(store, inner(rt, 0, body=b"a" * 3000)).append_message_result
    second = put(store, inner(rt, 1, body=b"b" * 3000)).append_message_result
    assert first.wrote_offset == 0
    assert second.wrote_offset == CL_SIZE
    assert store.look_message_by_offset(CL_SIZE).body == b"b" * 3000
    files = segment_files(store)
    assert scan_segment(files[0]).blank_size == CL_SIZE - first.wrote_bytes
    assert len(store.runtime.trace.events("CommitLog", event="endOfFile")) == 1


@pytest.mark.spec("STORE-9")
def test_queue_offsets_count_per_topic_and_queue(make_store, rt):
    store = make_store()
    offsets = [
        put(store, inner(rt, i, topic=topic, queue_id=q)).append_message_result.logics_offset
        for i, (topic, q) in enumerate([("A", 0), ("A", 0), ("A", 1), ("B", 0), ("A", 0), ("B", 0)])
    ]
    assert offsets == [0, 1, 0, 0, 2, 1]
    table = store.commit_log.topic_queue_table
    assert {key: table[key] for key in ("A-0", "A-1", "B-0")} == {"A-0": 3, "A-1": 1, "B-0": 2}


@pytest.mark.spec("STORE-9")
def test_prepared_and_rollback_messages_get_queue_offset_0_and_do_not_advance_the_queue(make_store, rt):
    store = make_store()
    put(store, inner(rt, 0))
    half = put(store, inner(rt, 1, sys_flag=0x4)).append_message_result
    rollback = put(store, inner(rt, 2, sys_flag=0xC)).append_message_result
    commit = put(store, inner(rt, 3, sys_flag=0x8)).append_message_result
    assert (half.logics_offset, rollback.logics_offset, commit.logics_offset) == (0, 0, 1)
    assert store.look_message_by_offset(half.wrote_offset).queue_offset == 0
    store.runtime.scheduler.sleep(10)
    assert store.get_max_offset_in_queue(TOPIC, 0) == 2  # only the normal and the committed message


@pytest.mark.spec("STORE-11")
def test_the_offset_message_id_is_store_host_plus_physical_offset(make_store, rt):
    store = make_store()
    put(store, inner(rt, 0))
    result = put(store, inner(rt, 1)).append_message_result
    assert result.msg_id == create_message_id(STORE_HOST, result.wrote_offset)
    assert result.msg_id.startswith("C0A8010A00002A9F")
    assert int(result.msg_id[-16:], 16) == result.wrote_offset


@pytest.mark.spec("STORE-7")
def test_the_store_timestamp_is_the_time_the_put_lock_was_taken(make_store, rt, world):
    store = make_store()
    msg = inner(rt, 0)
    world.run_for(250)
    result = put(store, msg).append_message_result
    assert result.store_timestamp == world.start_ms + 250
    assert msg.born_timestamp == world.start_ms  # born earlier, stored later
    assert store.look_message_by_offset(result.wrote_offset).store_timestamp == world.start_ms + 250


# -- put statuses --------------------------------------------------------------------------------------------------
@pytest.mark.spec("STORE-12")
def test_a_record_larger_than_max_message_size_is_illegal_and_nothing_is_written(make_store, rt):
    store = make_store(max_message_size=1024)
    before = store.get_max_phy_offset()
    result = store.put_message(inner(rt, 0, body=b"x" * 1000))
    assert result.put_message_status is PutMessageStatus.MESSAGE_ILLEGAL
    assert not result.is_ok()
    assert store.get_max_phy_offset() == before
    assert put(store, inner(rt, 1, body=b"x" * 100)).append_message_result.logics_offset == 0


@pytest.mark.spec("STORE-12")
def test_a_topic_longer_than_127_characters_is_illegal(make_store, rt):
    store = make_store(mapped_file_size_commit_log=64 * 1024)
    assert store.put_message(inner(rt, 0, topic="T" * 128)).put_message_status is PutMessageStatus.MESSAGE_ILLEGAL
    assert store.put_message(inner(rt, 0, topic="T" * 127)).put_message_status is PutMessageStatus.PUT_OK


@pytest.mark.spec("STORE-12")
def test_properties_over_32767_characters_are_illegal(make_store, rt):
    store = make_store(mapped_file_size_commit_log=128 * 1024)
    msg = inner(rt, 0, properties={"big": "v" * 33_000})
    assert store.put_message(msg).put_message_status is PutMessageStatus.MESSAGE_ILLEGAL


@pytest.mark.spec("STORE-12")
def test_properties_under_32767_characters_but_over_32767_bytes_exceed_the_properties_size(make_store, rt):
    store = make_store(mapped_file_size_commit_log=128 * 1024)
    msg = inner(rt, 0, properties={"big": "\u00e9" * 20_000})  # 20,000 characters, 40,000 UTF-8 bytes
    assert len(msg.properties_string) < 32767 < len(msg.properties_string.encode())
    result = store.put_message(msg)
    assert result.put_message_status is PutMessageStatus.PROPERTIES_SIZE_EXCEEDED
    assert store.get_max_phy_offset() == 0


@pytest.mark.spec("STORE-12")
def test_a_store_not_started_or_shut_down_is_not_available(make_store, rt):
    store = make_store(start=False)
    assert store.put_message(inner(rt, 0)).put_message_status is PutMessageStatus.SERVICE_NOT_AVAILABLE
    store.start()
    put(store, inner(rt, 0))
    store.shutdown()
    result = store.put_message(inner(rt, 1))
    assert result.put_message_status is PutMessageStatus.SERVICE_NOT_AVAILABLE
    assert result.append_message_result is None


@pytest.mark.spec("STORE-12")
def test_a_slave_or_an_unwritable_store_refuses_puts(make_store, rt):
    slave = make_store(broker_role=BrokerRole.SLAVE)
    assert slave.put_message(inner(rt, 0)).put_message_status is PutMessageStatus.SERVICE_NOT_AVAILABLE
    slave.shutdown()
    store = make_store()
    store.running_flags.make_logics_queue_error()
    assert store.put_message(inner(rt, 0)).put_message_status is PutMessageStatus.SERVICE_NOT_AVAILABLE


@pytest.mark.spec("STORE-12")
def test_a_put_lock_held_longer_than_one_second_means_the_page_cache_is_busy(make_store, rt, world):
    store = make_store()
    store.commit_log.begin_time_in_lock = world.now_ms() - 1001
    assert store.put_message(inner(rt, 0)).put_message_status is PutMessageStatus.OS_PAGECACHE_BUSY
    store.commit_log.begin_time_in_lock = world.now_ms() - 1000
    assert store.put_message(inner(rt, 0)).put_message_status is not PutMessageStatus.OS_PAGECACHE_BUSY


@pytest.mark.spec("STORE-12", "STORE-8")
def test_a_record_larger_than_a_whole_segment_is_an_unknown_error_and_the_store_goes_on(make_store, rt):
    store = make_store()
    put(store, inner(rt, 0))
    result = store.put_message(inner(rt, 1, body=b"w" * 5000))  # below maxMessageSize, above the 4 KiB segment
    assert result.put_message_status is PutMessageStatus.UNKNOWN_ERROR
    assert not result.is_ok()
    after = store.put_message(inner(rt, 2))
    assert after.is_ok()  # stored; its flush may need a third segment and time out (STORE-13)
    assert after.append_message_result.wrote_offset == 2 * CL_SIZE  # two segments closed by blank records
    assert after.append_message_result.logics_offset == 1
    store.runtime.scheduler.sleep(5)
    assert [m.get_keys() for m in read_queue(store)] == ["k0", "k2"]


@pytest.mark.spec("STORE-12")
def test_a_segment_that_cannot_be_created_fails_the_put(make_store, rt, monkeypatch):
    store = make_store()
    monkeypatch.setattr(store.commit_log.mapped_file_queue, "try_create_mapped_file", lambda offset: None)
    result = store.put_message(inner(rt, 0))
    assert result.put_message_status is PutMessageStatus.CREATE_MAPEDFILE_FAILED
    assert not result.is_ok()


# -- reading back ----------------------------------------------------------------------------------------------------
def test_get_data_returns_the_readable_rest_of_the_segment(filled):
    store, puts = filled
    commit_log = store.commit_log
    offset = puts[3][1].append_message_result.wrote_offset
    data = commit_log.get_data(offset)
    assert data.start_offset == offset
    assert len(data.data) == commit_log.mapped_file_queue.find_mapped_file_by_offset(offset).wrote_position - offset
    assert commit_log.get_data(store.get_max_phy_offset() + CL_SIZE) is None


def test_roll_next_file_and_pickup_store_timestamp(filled):
    store, puts = filled
    commit_log = store.commit_log
    assert commit_log.roll_next_file(0) == CL_SIZE
    assert commit_log.roll_next_file(CL_SIZE + 1) == 2 * CL_SIZE
    assert commit_log.roll_next_file(CL_SIZE) == 2 * CL_SIZE
    append = puts[10][1].append_message_result
    assert commit_log.pickup_store_timestamp(append.wrote_offset, append.wrote_bytes) == append.store_timestamp
    assert commit_log.pickup_store_timestamp(-10, 138) == -1
    assert commit_log.get_min_offset() == 0


# -- the record checker (reput and recovery) -----------------------------------------------------------------------
@pytest.fixture
def one_segment(filled):
    store, puts = filled
    path = segment_files(store)[0]
    return store.commit_log, bytearray(path.read_bytes()), puts


@pytest.mark.spec("STORE-20")
def test_check_message_returns_the_size_and_what_dispatch_needs(one_segment):
    commit_log, data, puts = one_segment
    _, result = puts[1]
    pos = result.append_message_result.wrote_offset
    request = commit_log.check_message_and_return_size(data, pos, True)
    assert request.success and request.msg_size == result.append_message_result.wrote_bytes
    assert (request.topic, request.queue_id, request.commit_log_offset) == (TOPIC, 1, pos)
    assert request.tags_code == tags_code("TagB")
    assert request.consume_queue_offset == result.append_message_result.logics_offset
    assert request.store_timestamp == result.append_message_result.store_timestamp
    assert request.keys == "k1"
    assert request.uniq_key is None  # the builder's messages carry no UNIQ_KEY
    untagged = commit_log.check_message_and_return_size(data, puts[2][1].append_message_result.wrote_offset, True)
    assert untagged.tags_code == 0


@pytest.mark.spec("STORE-20")
def test_check_message_reads_the_blank_record_as_size_0_success(one_segment):
    commit_log, data, _ = one_segment
    blank_at = scan_segment_bytes_blank(data)
    request = commit_log.check_message_and_return_size(data, blank_at, True)
    assert (request.msg_size, request.success) == (0, True)


def scan_segment_bytes_blank(data: bytearray) -> int:
    pos = 0
    while struct.unpack_from(">i", data, pos + 4)[0] != BLANK_MAGIC_CODE:
        pos += struct.unpack_from(">i", data, pos)[0]
    return pos


@pytest.mark.spec("STORE-20")
def test_check_message_reads_zeros_and_garbage_as_failure(one_segment):
    commit_log = one_segment[0]
    zeros = commit_log.check_message_and_return_size(bytes(64), 0, True)
    assert (zeros.msg_size, zeros.success, zeros.reason) == (-1, False, "")
    garbage = commit_log.check_message_and_return_size(b"\x00\x00\x00\x40" + b"\x12\x34\x56\x78" + bytes(56), 0, True)
    assert (garbage.msg_size, garbage.success) == (-1, False)
    assert "magic 0x12345678" in garbage.reason
    short = commit_log.check_message_and_return_size(bytes(5), 0, True)
    assert (short.msg_size, short.success) == (-1, False)


@pytest.mark.spec("STORE-20")
def test_a_body_crc_mismatch_fails_only_when_crc_is_checked(one_segment):
    commit_log, data, puts = one_segment
    pos = puts[4][1].append_message_result.wrote_offset
    data[pos + 88] ^= 0xFF  # first body byte (IPv4 hosts: the body starts at 88)
    checked = commit_log.check_message_and_return_size(data, pos, True)
    assert (checked.msg_size, checked.success) == (-1, False)
    assert f"body CRC mismatch in the record at {pos}" in checked.reason
    unchecked = commit_log.check_message_and_return_size(data, pos, False)
    assert unchecked.success and unchecked.msg_size == puts[4][1].append_message_result.wrote_bytes


@pytest.mark.spec("STORE-20")
def test_a_total_size_that_disagrees_with_the_fields_fails_with_that_size(one_segment):
    commit_log, data, puts = one_segment
    pos = puts[4][1].append_message_result.wrote_offset
    size = puts[4][1].append_message_result.wrote_bytes
    struct.pack_into(">i", data, pos, size + 7)
    request = commit_log.check_message_and_return_size(data, pos, True)
    assert (request.msg_size, request.success) == (size + 7, False)  # reput skips that many bytes, as Java does
    assert "TOTALSIZE" in request.reason


@pytest.mark.spec("STORE-20")
def test_a_zeroed_topic_length_fails_the_check(one_segment):
    # the damage 4.9.3 DefaultMessageStoreTest#damageCommitlog applies: zero the 16 bytes from the topic length on
    commit_log, data, puts = one_segment
    pos = puts[5][1].append_message_result.wrote_offset
    body_len = struct.unpack_from(">i", data, pos + 84)[0]
    data[pos + 88 + body_len : pos + 88 + body_len + 16] = bytes(16)
    request = commit_log.check_message_and_return_size(data, pos, True)
    assert not request.success

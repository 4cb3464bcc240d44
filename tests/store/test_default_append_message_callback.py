"""DefaultAppendMessageCallback: the 8-byte end-of-file rule and the fields patched in the put lock (after 4.9.3's
AppendCallbackTest)."""

import struct

import pytest

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message import Message
from mqlab.common.message.message_decoder import decodes
from mqlab.common.message.message_record_layout import BLANK_MAGIC_CODE
from mqlab.store.append_message_status import AppendMessageStatus
from mqlab.store.default_append_message_callback import (
    END_FILE_MIN_BLANK_LENGTH,
    DefaultAppendMessageCallback,
    topic_queue_key,
)
from mqlab.store.message_ext_encoder import MessageExtEncoder
from tests.store.helpers import batch, inner

TOPIC = "test-topic"
BORN_V4, STORE_V4 = InetSocketAddress("127.0.0.1", 123), InetSocketAddress("127.0.0.1", 124)
BORN_V6, STORE_V6 = InetSocketAddress("1050:0000:0000:0000:0005:0600:300c:326b", 123), InetSocketAddress("::1", 124)


@pytest.fixture
def table():
    return {}


@pytest.fixture
def callback(table):
    return DefaultAppendMessageCallback(1024, table)


@pytest.fixture
def encoder():
    return MessageExtEncoder(10 * 1024 * 1024)


def ten_message_batch(rt, encoder, *, v6: bool):
    messages = []
    for _ in range(10):
        msg = Message(TOPIC, "abc", None, b"body")
        messages.append(msg)
    result = batch(
        rt,
        messages,
        topic=TOPIC,
        born_host=BORN_V6 if v6 else BORN_V4,
        store_host=STORE_V6 if v6 else STORE_V4,
        batch_properties={},
    )
    if v6:
        result.set_born_host_v6_flag()
        result.set_store_host_address_v6_flag()
    result.store_timestamp = rt.now_ms() + 5
    result.encoded_buff, count = encoder.encode_batch(result)
    assert count == 10
    return messages, result


@pytest.mark.spec("STORE-8", "STORE-10")
@pytest.mark.parametrize("v6", [False, True])
def test_a_batch_that_does_not_fit_writes_only_the_blank_record(rt, callback, encoder, table, v6):
    # 4.9.3 AppendCallbackTest#testAppendMessageBatchEndOfFile / #testAppendIPv6HostMessageBatchEndOfFile
    _, msg = ten_message_batch(rt, encoder, v6=v6)
    buffer = bytearray(10 * 1024)
    result = callback.do_append(0, buffer, 0, 1000, msg)
    assert result.status is AppendMessageStatus.END_OF_FILE
    assert (result.wrote_offset, result.logics_offset, result.wrote_bytes) == (0, 0, 1000)
    assert struct.unpack_from(">ii", buffer, 0) == (1000, BLANK_MAGIC_CODE)
    assert buffer[8:] == bytes(len(buffer) - 8)  # exactly 8 bytes written
    assert len(result.msg_id) > 0
    assert table == {topic_queue_key(TOPIC, 0): 0}  # the queue offset did not move


@pytest.mark.spec("STORE-10")
@pytest.mark.parametrize(("v6", "id_length"), [(False, 32), (True, 56)])
def test_a_batch_that_fits_gets_consecutive_offsets_one_store_time_and_an_id_per_message(
    rt, callback, encoder, table, v6, id_length
):
    # 4.9.3 AppendCallbackTest#testAppendMessageBatchSucc / #testAppendIPv6HostMessageBatchSucc
    messages, msg = ten_message_batch(rt, encoder, v6=v6)
    buffer = bytearray(10 * 1024)
    result = callback.do_append(0, buffer, 0, 10 * 1024, msg)
    assert result.status is AppendMessageStatus.PUT_OK
    assert (result.wrote_offset, result.logics_offset, result.msg_num) == (0, 0, 10)
    ids = result.msg_id.split(",")
    assert len(ids) == 10 and len(set(ids)) == 10
    assert all(len(i) == id_length for i in ids)
    decoded = decodes(bytes(buffer[: result.wrote_bytes]), strict=True)
    assert len(decoded) == 10
    assert sum(m.store_size for m in decoded) == result.wrote_bytes
    for i, (sent, stored) in enumerate(zip(messages, decoded, strict=True)):
        assert stored.topic == TOPIC
        assert stored.body == sent.body
        assert stored.get_tags() == sent.get_tags()
        assert stored.born_host == msg.born_host
        assert stored.born_timestamp == msg.born_timestamp
        assert stored.store_timestamp == msg.store_timestamp
        assert stored.queue_offset == i
    assert [m.commit_log_offset for m in decoded] == [int(i[-16:], 16) for i in ids]
    assert table == {topic_queue_key(TOPIC, 0): 10}


@pytest.mark.spec("STORE-8")
def test_a_record_is_written_only_if_at_least_8_bytes_remain_after_it(rt, callback, encoder):
    msg = inner(rt, 0)
    msg.store_timestamp = rt.now_ms()
    record = encoder.encode(msg)
    size = len(record)
    for max_blank, status in [
        (size + END_FILE_MIN_BLANK_LENGTH, AppendMessageStatus.PUT_OK),
        (size + END_FILE_MIN_BLANK_LENGTH - 1, AppendMessageStatus.END_OF_FILE),
    ]:
        msg.encoded_buff = record
        buffer = bytearray(size + 8)
        result = callback.do_append(4096, buffer, 0, max_blank, msg)
        assert result.status is status
        assert result.wrote_offset == 4096
        assert result.wrote_bytes == (size if status is AppendMessageStatus.PUT_OK else max_blank)


@pytest.mark.spec("STORE-7", "STORE-9")
def test_the_callback_patches_queue_offset_physical_offset_and_store_time(rt, callback, encoder, table):
    buffer = bytearray(4096)
    position = 0
    for i in range(3):
        msg = inner(rt, i)
        msg.store_timestamp = rt.now_ms() + 100 + i
        msg.encoded_buff = encoder.encode(msg)
        result = callback.do_append(8192, buffer, position, 4096 - position, msg)
        stored = decodes(bytes(buffer[position : position + result.wrote_bytes]), strict=True)[0]
        assert stored.queue_offset == i == result.logics_offset
        assert stored.commit_log_offset == 8192 + position == result.wrote_offset
        assert stored.store_timestamp == msg.store_timestamp == result.store_timestamp
        assert msg.encoded_buff is None  # released once copied
        position += result.wrote_bytes
    assert table == {"TopicTest-0": 3}

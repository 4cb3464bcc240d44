"""MessageExtEncoder: records pre-encoded outside the lock, and 4.9.3's batch-property join (after 4.9.3's
BatchPutMessageTest length arithmetic)."""

import struct

import pytest

from mqlab.common import util_all
from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message import Message
from mqlab.common.message.message_decoder import decodes, encode_message, message_properties2string
from mqlab.common.message.message_ext_batch import MessageExtBatch
from mqlab.store.message_ext_encoder import MessageExtEncoder, MessageSizeExceededError
from mqlab.store.put_message_status import PutMessageStatus
from tests.store.helpers import BORN_HOST, STORE_HOST, batch, inner

TOPIC = "batch-write-topic"


def stored_properties(record: bytes) -> bytes:
    raw, _ = layout.decode(record, 0)
    return raw.properties


@pytest.mark.spec("STORE-10")
def test_batch_properties_are_appended_to_each_inner_messages_own_after_a_0x02(rt):
    # 4.9.3 BatchPutMessageTest#testPutMessages: each record's properties are inner + 0x02 + batch properties
    messages = [Message(TOPIC, "TAG1", f"key{i}", f"body{i}".encode()) for i in range(10)]
    msg = batch(rt, messages, topic=TOPIC, batch_properties={"extraKey": "extraValue"})
    data, count = MessageExtEncoder(4 * 1024 * 1024).encode_batch(msg)
    assert count == 10
    batch_props = b"extraKey\x01extraValue"
    pos = 0
    for sent in messages:
        (size,) = struct.unpack_from(">i", data, pos)
        inner_props = message_properties2string(sent.properties).encode()
        assert stored_properties(data[pos : pos + size]) == inner_props + b"\x02" + batch_props
        assert size == layout.cal_msg_length(0, len(sent.body), len(TOPIC), len(inner_props) + len(batch_props) + 1)
        pos += size
    assert pos == len(data)


@pytest.mark.spec("STORE-10")
def test_no_separator_is_added_when_the_inner_message_has_no_properties_or_the_batch_has_none(rt):
    encoder = MessageExtEncoder(4 * 1024 * 1024)
    bare = Message.bare()
    bare.topic, bare.body = TOPIC, b"no props"
    msg = batch(rt, [bare], topic=TOPIC, batch_properties={"CLUSTER": "DefaultCluster"})
    data, _ = encoder.encode_batch(msg)
    assert stored_properties(data) == b"CLUSTER\x01DefaultCluster"
    tagged = Message(TOPIC, "TAG1", None, b"b")
    msg = batch(rt, [tagged], topic=TOPIC, batch_properties={})
    data, _ = encoder.encode_batch(msg)
    assert stored_properties(data) == message_properties2string(tagged.properties).encode()


@pytest.mark.spec("STORE-10")
def test_inner_properties_already_ending_in_0x02_get_no_second_separator(rt):
    # A hand-made batch body whose inner properties end in the separator (a client could send that).
    props = b"TAGS\x01T\x02"
    body = b"b"
    raw = struct.pack(">iiiii", 20 + len(body) + 2 + len(props), 0, 0, 0, len(body)) + body
    raw += struct.pack(">h", len(props)) + props
    msg = MessageExtBatch.bare()
    msg.topic, msg.queue_id, msg.body = TOPIC, 0, raw
    msg.born_host, msg.store_host = BORN_HOST, STORE_HOST
    msg.put_property("CLUSTER", "c")
    data, _ = MessageExtEncoder(1024).encode_batch(msg)
    assert stored_properties(data) == b"TAGS\x01T\x02CLUSTER\x01c"


@pytest.mark.spec("STORE-10")
def test_each_inner_record_carries_its_own_body_crc_and_flag(rt):
    messages = [Message(TOPIC, None, None, f"payload {i}".encode(), flag=i * 7) for i in range(3)]
    data, _ = MessageExtEncoder(1024 * 1024).encode_batch(batch(rt, messages, topic=TOPIC))
    for sent, stored in zip(messages, decodes(data, strict=True), strict=True):
        assert stored.body_crc == util_all.crc32(sent.body)
        assert stored.flag == sent.flag


@pytest.mark.spec("STORE-10")
def test_a_batch_over_max_message_size_is_refused(rt):
    msg = batch(rt, 10, topic=TOPIC)
    single = len(encode_message(Message(TOPIC, "TagA", "k0", b"x"))) + 200
    with pytest.raises(MessageSizeExceededError):
        MessageExtEncoder(single * 3).encode_batch(msg)  # the running total passes the limit
    with pytest.raises(MessageSizeExceededError):
        MessageExtEncoder(50).encode_batch(msg)  # one record alone is too large


@pytest.mark.spec("STORE-12")
def test_single_records_over_the_limits_come_back_as_failed_results(rt):
    encoder = MessageExtEncoder(512)
    assert encoder.encode(inner(rt, 0, body=b"x" * 600)).put_message_status is PutMessageStatus.MESSAGE_ILLEGAL
    msg = inner(rt, 0)
    msg.properties_string = "p\x01" + "\u00e9" * 17_000
    assert encoder.encode(msg).put_message_status is PutMessageStatus.PROPERTIES_SIZE_EXCEEDED


@pytest.mark.spec("STORE-7")
def test_the_pre_encoded_record_leaves_the_two_offsets_at_zero(rt):
    msg = inner(rt, 3)
    msg.store_timestamp = 1234
    record = MessageExtEncoder(4 * 1024 * 1024).encode(msg)
    raw, _ = layout.decode(record, 0)
    assert (raw.queue_offset, raw.physical_offset, raw.store_timestamp) == (0, 0, 1234)
    assert raw.properties == msg.properties_string.encode()

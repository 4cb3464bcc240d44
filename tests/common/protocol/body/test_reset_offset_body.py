"""The offset-reset wire formats: ResetOffsetRequestHeader's ext fields and the two bodies."""

from __future__ import annotations

import pytest

from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.body.reset_offset_body import ResetOffsetBody
from mqlab.common.protocol.body.reset_offset_body_for_c import MessageQueueForC, ResetOffsetBodyForC
from mqlab.common.protocol.header.broker_headers import ResetOffsetRequestHeader
from mqlab.remoting.command_custom_header import decode_header, header_to_ext_fields


def _java_string_hash(s: str) -> int:
    h = 0
    for ch in s:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h


def _java_bucket(mq: MessageQueue, capacity: int = 16) -> int:
    """Java: MessageQueue#hashCode spread as HashMap#hash, then the bucket index."""
    h = 1
    for part in (_java_string_hash(mq.broker_name), mq.queue_id, _java_string_hash(mq.topic)):
        h = (31 * h + part) & 0xFFFFFFFF
    return (h ^ (h >> 16)) & (capacity - 1)


def _table(topic: str = "TopicTest", queues: int = 4) -> JavaHashMap[MessageQueue, int]:
    table: JavaHashMap[MessageQueue, int] = JavaHashMap()
    for queue_id in range(queues):
        table[MessageQueue(topic, "broker-a", queue_id)] = 10 * queue_id + 1
    return table


@pytest.mark.spec("BRK-36")
def test_the_header_travels_under_javas_field_names():
    header = ResetOffsetRequestHeader("TopicTest", "CG", 1650000000911, True)
    assert header_to_ext_fields(header) == [
        ("topic", "TopicTest"),
        ("group", "CG"),
        ("timestamp", "1650000000911"),
        ("isForce", "true"),
    ]
    # the broker's RESET_CONSUMER_CLIENT_OFFSET leaves isForce at its default, false, and "now" is -1
    ext = dict(header_to_ext_fields(ResetOffsetRequestHeader("T", "G", -1)))
    assert ext == {"topic": "T", "group": "G", "timestamp": "-1", "isForce": "false"}
    back = decode_header(ResetOffsetRequestHeader, ext)
    assert (back.topic, back.group, back.timestamp, back.is_force) == ("T", "G", -1, False)


@pytest.mark.spec("BRK-36")
def test_the_body_is_a_fastjson_map_with_queue_objects_as_keys_in_java_hashmap_order():
    table = _table()
    text = ResetOffsetBody(table).encode().decode()
    order = sorted(table, key=_java_bucket)  # one entry per bucket here, so bucket order is iteration order
    expected = ",".join(
        f'{{"brokerName":"broker-a","queueId":{mq.queue_id},"topic":"TopicTest"}}:{table[mq]}' for mq in order
    )
    assert text == '{"offsetTable":{' + expected + "}}"
    assert [mq.queue_id for mq in table] == [mq.queue_id for mq in order]
    decoded = ResetOffsetBody.decode(text.encode())
    assert dict(decoded.offset_table) == dict(table)
    assert ResetOffsetBody.decode(b'{"offsetTable":{}}').offset_table == {}


@pytest.mark.spec("BRK-36")
@pytest.mark.parametrize("body", [b"[]", b'{"offsetTable":{"T":1}}', b'{"offsetTable":[{"offset":1}]}'])
def test_a_body_that_is_not_a_queue_map_is_refused(body):
    with pytest.raises(ValueError):
        ResetOffsetBody.decode(body)


@pytest.mark.spec("BRK-36")
def test_the_cpp_body_is_a_list_of_queues_with_their_offsets():
    table = _table(queues=2)
    body = ResetOffsetBodyForC.of(table)
    assert body.offset_table == [
        MessageQueueForC("TopicTest", "broker-a", mq.queue_id, offset) for mq, offset in table.items()
    ]
    text = body.encode().decode()
    first = next(iter(table))
    assert text.startswith(
        f'{{"offsetTable":[{{"brokerName":"broker-a","offset":{table[first]},"queueId":{first.queue_id},'
        '"topic":"TopicTest"},'
    )
    assert ResetOffsetBodyForC.decode(text.encode()) == body

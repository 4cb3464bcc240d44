"""ConsumerRunningInfo's JSON: fastjson's layout with MessageQueue objects as map keys."""

from __future__ import annotations

import pytest

from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.body.consumer_running_info import ConsumerRunningInfo
from mqlab.common.protocol.body.process_queue_info import ProcessQueueInfo
from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData
from mqlab.remoting.protocol.remoting_serializable import JsonDecodeError, from_json


def sample() -> ConsumerRunningInfo:
    info = ConsumerRunningInfo()
    info.properties.update({"consumerGroup": "CG", "PROP_CONSUMEORDERLY": "false"})
    info.subscription_set += [SubscriptionData("TopicB", "*"), SubscriptionData("TopicA", "TagA")]
    info.mq_table[MessageQueue("TopicB", "broker-a", 1)] = ProcessQueueInfo(commit_offset=7, dropped=False)
    info.mq_table[MessageQueue("TopicA", "broker-a", 0)] = ProcessQueueInfo(commit_offset=3, locked=True)
    return info


@pytest.mark.spec("PUSH-22")
def test_tables_are_written_in_tree_order_with_object_keys():
    text = sample().encode().decode()
    assert text.startswith('{"mqTable":{{"brokerName":"broker-a","queueId":0,"topic":"TopicA"}:{"cachedMsgCount":0')
    assert '"droped":false' in text and '"cachedMsgSizeInMiB":0' in text
    assert '"properties":{"PROP_CONSUMEORDERLY":"false","consumerGroup":"CG"}' in text
    assert text.index('"topic":"TopicA"},{') > text.index('"subscriptionSet":[')  # TopicA@TagA before TopicB@*
    assert '"statusTable":{}' in text and "jstack" not in text


@pytest.mark.spec("PUSH-22")
def test_decode_reads_back_what_encode_wrote():
    info = sample()
    again = ConsumerRunningInfo.decode(info.encode())
    assert again.mq_table == info.mq_table and list(again.mq_table) == sorted(info.mq_table)
    assert again.properties == info.properties
    assert sorted(s.topic for s in again.subscription_set) == ["TopicA", "TopicB"]


@pytest.mark.spec("PUSH-22")
@pytest.mark.parametrize(
    "body", [b"[]", b'{"mqTable":{"x":{}}}', b'{"mqTable":{{"topic":[1]}:{}}}', b'{"mqTable":{{"topic":"T"}:5}}']
)
def test_malformed_bodies_are_named_errors(body):
    with pytest.raises(ValueError):
        ConsumerRunningInfo.decode(body)


def test_object_keys_parse_as_their_fields():
    [(key, value)] = from_json('{{"b":2,"a":"x"}:1}').items()
    assert dict(key) == {"a": "x", "b": 2} and value == 1
    with pytest.raises(JsonDecodeError):
        from_json('{{"a":[1]}:1}')

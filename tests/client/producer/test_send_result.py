"""SendResult and SendStatus: fields, Java's toString, fastjson JSON both ways."""

import pytest

from mqlab.client.producer.send_result import SendResult, decoder_send_result_from_json, encoder_send_result_to_json
from mqlab.client.producer.send_status import SendStatus
from mqlab.common.message.message_queue import MessageQueue

MQ = MessageQueue("TopicTest", "broker-a", 2)

pytestmark = pytest.mark.spec("CLI-9")


def test_send_status_members():
    assert [s.name for s in SendStatus] == [
        "SEND_OK",
        "FLUSH_DISK_TIMEOUT",
        "FLUSH_SLAVE_TIMEOUT",
        "SLAVE_NOT_AVAILABLE",
    ]


def test_constructor_order_and_defaults():
    result = SendResult(SendStatus.SEND_OK, "UNIQ", MQ, 7, "tx", "OFFSETID", "DefaultRegion")
    assert (result.msg_id, result.offset_msg_id, result.queue_offset, result.region_id) == (
        "UNIQ",
        "OFFSETID",
        7,
        "DefaultRegion",
    )
    assert result.trace_on is True
    empty = SendResult()
    assert (empty.send_status, empty.msg_id, empty.queue_offset, empty.trace_on) == (None, None, 0, True)


def test_str_is_javas_to_string():
    result = SendResult(SendStatus.SEND_OK, "7F00000100002A9F0000000000000000", MQ, 7, offset_msg_id="C0A8")
    assert str(result) == (
        "SendResult [sendStatus=SEND_OK, msgId=7F00000100002A9F0000000000000000, offsetMsgId=C0A8, "
        "messageQueue=MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=2], queueOffset=7]"
    )
    assert str(SendResult()) == (
        "SendResult [sendStatus=null, msgId=null, offsetMsgId=null, messageQueue=null, queueOffset=0]"
    )


def test_json_uses_fastjsons_property_names_in_order_and_reads_back():
    result = SendResult(SendStatus.FLUSH_DISK_TIMEOUT, "UNIQ", MQ, 7, None, "OFF", "DefaultRegion", False)
    text = encoder_send_result_to_json(result)
    assert text == (
        '{"messageQueue":{"brokerName":"broker-a","queueId":2,"topic":"TopicTest"},"msgId":"UNIQ",'
        '"offsetMsgId":"OFF","queueOffset":7,"regionId":"DefaultRegion","sendStatus":"FLUSH_DISK_TIMEOUT",'
        '"traceOn":false}'
    )
    assert decoder_send_result_from_json(text) == result
    assert decoder_send_result_from_json("{}") == SendResult()

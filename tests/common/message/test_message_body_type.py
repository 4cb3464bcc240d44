"""HARD-10: a body that is not bytes is refused where it is set and again where it is sent, naming field and type."""

from __future__ import annotations

import pytest

from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.validators import check_message
from mqlab.common.message.message import Message
from mqlab.common.protocol.response_code import ResponseCode


@pytest.mark.spec("HARD-10")
def test_a_str_body_is_a_type_error_naming_the_field():
    with pytest.raises(TypeError, match=r"Message.body must be bytes \(Java: byte\[\]\), not str: encode it first"):
        Message("TopicTest", "TagA", "k", "hello")
    with pytest.raises(TypeError, match="not int"):
        Message("TopicTest", body=42)


@pytest.mark.spec("HARD-10")
@pytest.mark.parametrize("body", [b"x", bytearray(b"x"), memoryview(b"x")])
def test_bytes_like_bodies_pass(body):
    check_message(Message("TopicTest", body=body), 4 * 1024 * 1024)


@pytest.mark.spec("HARD-10")
def test_a_str_set_after_construction_is_refused_at_send():
    msg = Message("TopicTest", body=b"ok")
    msg.body = "hello"
    with pytest.raises(MQClientException) as raised:
        check_message(msg, 4 * 1024 * 1024)
    assert raised.value.response_code == ResponseCode.MESSAGE_ILLEGAL
    assert "Message.body must be bytes" in raised.value.error_message

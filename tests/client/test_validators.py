import pytest

from mqlab.client import validators
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.common.message.message import Message

PATTERN = "^[%|a-zA-Z0-9_-]+$"


def error_of(check, *args) -> MQClientException:
    with pytest.raises(MQClientException) as error:
        check(*args)
    return error.value


@pytest.mark.spec("MSG-24")
@pytest.mark.parametrize(
    ("topic", "message"),
    [
        (None, "The specified topic is blank"),
        ("", "The specified topic is blank"),
        ("\u3000", "The specified topic is blank"),  # Character.isWhitespace
        ("a" * 128, "The specified topic is longer than topic max length 127."),
        ("!" * 128, "The specified topic is longer than topic max length 127."),  # 4.9.3: length before chars
        ("\U0001f600" * 64, "The specified topic is longer than topic max length 127."),  # 128 UTF-16 units
        ("Topic Test", f"The specified topic[Topic Test] contains illegal characters, allowing only {PATTERN}"),
        ("\u00a0", f"The specified topic[\u00a0] contains illegal characters, allowing only {PATTERN}"),
    ],
)
def test_check_topic_in_4_9_3_order(topic, message):
    error = error_of(validators.check_topic, topic)
    assert error.error_message == message
    assert error.response_code == -1
    assert str(error) == f"CODE: -1  DESC: {message}"


@pytest.mark.spec("MSG-24")
def test_accepted_topic_and_group():
    validators.check_topic("a" * 127)
    validators.check_topic("%RETRY%group")
    validators.check_group("g" * 255)


@pytest.mark.spec("MSG-24")
@pytest.mark.parametrize(
    ("group", "message"),
    [
        (None, "the specified group is blank"),
        ("  ", "the specified group is blank"),
        ("g" * 256, "the specified group is longer than group max length 255."),
        ("!" * 256, "the specified group is longer than group max length 255."),
        ("my group", f"the specified group[my group] contains illegal characters, allowing only {PATTERN}"),
    ],
)
def test_check_group(group, message):
    assert error_of(validators.check_group, group).error_message == message


@pytest.mark.spec("MSG-26")
def test_check_message_order_and_codes():
    limit = 4 * 1024 * 1024
    assert (error_of(validators.check_message, None, limit).error_message, 13) == ("the message is null", 13)
    assert error_of(validators.check_message, None, limit).response_code == 13
    assert error_of(validators.check_message, Message("bad topic", body=None), limit).response_code == -1
    forbidden = error_of(validators.check_message, Message("SCHEDULE_TOPIC_XXXX", body=b"x"), limit)
    assert forbidden.error_message == "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden."
    cases = [
        (None, "the message body is null"),
        (b"", "the message body length is zero"),
        (b"x" * (limit + 1), f"the message body size over max value, MAX: {limit}"),
    ]
    for body, message in cases:
        error = error_of(validators.check_message, Message("TopicTest", body=body), limit)
        assert (error.error_message, error.response_code) == (message, 13)
    validators.check_message(Message("TopicTest", body=b"x" * limit), limit)


@pytest.mark.spec("MSG-27")
def test_client_side_system_topic_checks():
    assert (
        error_of(validators.is_system_topic, "TBW102").error_message
        == "The topic[TBW102] is conflict with system topic."
    )
    validators.is_system_topic("TopicTest")
    validators.is_not_allowed_send_topic("TopicTest")


def test_exception_keeps_its_cause():
    cause = ValueError("x")
    assert MQClientException("m", 13, cause).__cause__ is cause

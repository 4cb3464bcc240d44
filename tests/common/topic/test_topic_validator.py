import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.topic import topic_validator as tv

BLANK = "The specified topic is blank."
ILLEGAL = "The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"
TOO_LONG = "The specified topic is longer than topic max length."


@pytest.mark.spec("MSG-25")
@pytest.mark.parametrize(
    ("topic", "remark"),
    [
        (None, BLANK),
        ("", BLANK),
        (" \t", BLANK),
        ("Topic Test", ILLEGAL),
        ("topic.with.dots", ILLEGAL),
        ("t\u00e9", ILLEGAL),
        ("a" * 128, TOO_LONG),
        ("a" * 127 + "!", ILLEGAL),  # broker order: characters before length
        ("!" * 200, ILLEGAL),
    ],
)
def test_broker_checks_in_order(topic, remark):
    assert tv.validate_topic(topic) == (ResponseCode.SYSTEM_ERROR, remark)
    with pytest.raises(tv.InvalidTopicError) as error:
        tv.check_topic(topic)
    assert (error.value.code, error.value.remark, error.value.topic) == (ResponseCode.SYSTEM_ERROR, remark, topic)


@pytest.mark.spec("MSG-25")
def test_accepted_topics():
    for topic in ("TopicTest", "%RETRY%group", "%DLQ%g", "a|b", "A-Z_0-9", "a" * 127):
        assert tv.validate_topic(topic) is None
        assert tv.check_topic(topic) == topic


@pytest.mark.spec("MSG-25")
def test_length_counts_utf16_code_units():
    assert tv.java_length("\U0001f600") == 2
    assert tv.java_length("abc") == 3


@pytest.mark.spec("MSG-25")
@given(st.text())
def test_legal_characters_are_exactly_the_pattern(text):
    import re

    assert tv.is_topic_or_group_illegal(text) == (re.fullmatch(r"[%|a-zA-Z0-9_-]*", text) is None)


@pytest.mark.spec("MSG-27")
def test_system_topics():
    for topic in (
        "TBW102",
        "SCHEDULE_TOPIC_XXXX",
        "BenchmarkTest",
        "RMQ_SYS_TRANS_HALF_TOPIC",
        "RMQ_SYS_TRACE_TOPIC",
        "RMQ_SYS_TRANS_OP_HALF_TOPIC",
        "TRANS_CHECK_MAX_TIME_TOPIC",
        "SELF_TEST_TOPIC",
        "OFFSET_MOVED_EVENT",
        "rmq_sys_anything",
    ):
        assert tv.is_system_topic(topic)
        assert tv.system_topic_conflict(topic) == (
            ResponseCode.SYSTEM_ERROR,
            f"The topic[{topic}] is conflict with system topic.",
        )
    assert not tv.is_system_topic("TopicTest")
    assert tv.system_topic_conflict("TopicTest") is None


@pytest.mark.spec("MSG-27")
def test_registered_system_topics():
    tv.add_system_topic("mqlab-test-cluster")
    assert tv.is_system_topic("mqlab-test-cluster")


@pytest.mark.spec("MSG-27")
def test_not_allowed_to_send():
    assert tv.is_not_allowed_send_topic("SCHEDULE_TOPIC_XXXX")
    assert not tv.is_not_allowed_send_topic("TBW102")
    assert tv.not_allowed_send_answer("SCHEDULE_TOPIC_XXXX") == (
        ResponseCode.NO_PERMISSION,
        "Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden.",
    )
    assert tv.not_allowed_send_answer("TopicTest") is None

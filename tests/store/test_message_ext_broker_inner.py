import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.common.jdk.string_hash import java_string_hash
from mqlab.common.topic_filter_type import TopicFilterType
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner


@pytest.mark.spec("MSG-23")
@pytest.mark.parametrize(
    ("tags", "code", "consume_queue_bytes"),
    [
        ("TagA", 2598919, "000000000027A807"),
        ("TopicTest#OrderID001", -1231272886, "FFFFFFFFB69C444A"),
        ("polygenelubricants", -2147483648, "FFFFFFFF80000000"),
    ],
)
def test_tags_codes_of_4_9_3(tags, code, consume_queue_bytes):
    assert MessageExtBrokerInner.tags_string2tags_code(tags) == code
    assert code.to_bytes(8, "big", signed=True).hex().upper() == consume_queue_bytes


@pytest.mark.spec("MSG-23")
def test_no_tags_and_filter_type_ignored():
    assert MessageExtBrokerInner.tags_string2tags_code(None) == 0
    assert MessageExtBrokerInner.tags_string2tags_code("") == 0
    assert MessageExtBrokerInner.tags_string2tags_code("TagA||TagB", TopicFilterType.MULTI_TAG) == java_string_hash(
        "TagA||TagB"
    )


@pytest.mark.spec("MSG-23")
@given(st.text(min_size=1))
def test_tags_code_is_the_string_hash(tags):
    assert MessageExtBrokerInner.tags_string2tags_code(tags) == java_string_hash(tags)


def test_bare_inner_message():
    inner = MessageExtBrokerInner.bare()
    assert inner.properties is None
    assert (inner.properties_string, inner.tags_code) == ("", 0)

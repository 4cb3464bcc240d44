import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message.message_queue import MessageQueue

QUEUES = [
    MessageQueue("TopicTest", "broker-b", 0),
    MessageQueue("TopicTest", "broker-a", 3),
    MessageQueue("TopicTest", "broker-a", 10),
    MessageQueue("TopicTest", "broker-a", 2),
    MessageQueue("TopicA", "broker-b", 1),
    MessageQueue("Topic", "broker-z", 0),
    MessageQueue("t", "\uffff", 0),
    MessageQueue("t", "\U0001f600", 0),
    MessageQueue("T", "a", 0),
]


@pytest.mark.spec("MSG-22")
def test_sorted_like_collections_sort_in_java():
    expected = [  # Collections.sort on 4.9.3's MessageQueue
        ("T", "a", 0),
        ("Topic", "broker-z", 0),
        ("TopicA", "broker-b", 1),
        ("TopicTest", "broker-a", 2),
        ("TopicTest", "broker-a", 3),
        ("TopicTest", "broker-a", 10),
        ("TopicTest", "broker-b", 0),
        ("t", "\U0001f600", 0),
        ("t", "\uffff", 0),
    ]
    assert [(q.topic, q.broker_name, q.queue_id) for q in sorted(QUEUES)] == expected


@pytest.mark.spec("MSG-22")
def test_hash_codes_like_java():
    assert [q.java_hash_code() for q in QUEUES] == [
        -222121330,
        -222122198,
        -222121981,
        -222122229,
        -103677570,
        1761506164,
        63009042,
        1703785846,
        123092,
    ]


@pytest.mark.spec("MSG-22", "PROP-5")
def test_a_java_hash_set_of_queues_iterates_like_java():
    queues = JavaHashMap()
    for i in range(8):
        queues[MessageQueue("TopicTest", "broker-a" if i % 2 == 0 else "broker-b", i // 2)] = True
    shown = [f"{q.broker_name}/{q.queue_id}" for q in queues]
    assert shown == [  # a java.util.HashSet of the same queues
        "broker-a/3",
        "broker-a/2",
        "broker-b/3",
        "broker-b/0",
        "broker-a/1",
        "broker-b/2",
        "broker-a/0",
        "broker-b/1",
    ]


_queues = st.builds(MessageQueue, st.text(max_size=5), st.text(max_size=5), st.integers(0, 1000))


@pytest.mark.spec("MSG-22")
@given(_queues, _queues)
def test_compare_to_is_a_total_order_consistent_with_equality(a, b):
    assert (a.compare_to(b) == 0) == (a == b)
    assert (a.compare_to(b) < 0) == (b.compare_to(a) > 0)
    assert (a < b) == (a.compare_to(b) < 0)


def test_str_and_equality():
    q = MessageQueue("TopicTest", "broker-a", 1)
    assert str(q) == "MessageQueue [topic=TopicTest, brokerName=broker-a, queueId=1]"
    assert q == MessageQueue("TopicTest", "broker-a", 1)
    assert hash(q) == hash(MessageQueue("TopicTest", "broker-a", 1))
    assert q.__lt__(3) is NotImplemented

"""TopicPublishInfo: round robin from a random start, and retries that avoid the last broker."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.client.impl.producer.topic_publish_info import TopicPublishInfo
from tests.client.client_fakes import publish_info

INT_MAX = 2**31 - 1


# A broker layout: 1-4 brokers with 1-4 queues each.
layouts = st.dictionaries(
    st.sampled_from(["broker-a", "broker-b", "broker-c", "broker-d"]), st.integers(1, 4), min_size=1
)
# Counter starts far enough from Integer.MAX_VALUE that a few rounds never wrap (the wrap has its own test).
starts = st.integers(0, INT_MAX - 100)


@pytest.mark.spec("CLI-2")
def test_ok_and_write_queue_counts_by_broker():
    info = TopicPublishInfo(random.Random(1))
    assert not info.ok()
    info = publish_info({"broker-a": 4, "broker-b": 2})
    assert info.ok()
    assert info.get_queue_id_by_broker("broker-b") == 2
    assert info.get_queue_id_by_broker("broker-x") == -1


@pytest.mark.spec("CLI-2")
def test_round_robin_follows_the_counter():
    info = publish_info({"broker-a": 2, "broker-b": 2}, start=5)  # counter 6, 7, 8, ... → positions 2, 3, 0, ...
    picked = [info.select_one_message_queue() for _ in range(5)]
    assert [(mq.broker_name, mq.queue_id) for mq in picked] == [
        ("broker-b", 0),
        ("broker-b", 1),
        ("broker-a", 0),
        ("broker-a", 1),
        ("broker-b", 0),
    ]


@pytest.mark.spec("CLI-2")
@given(layout=layouts, start=starts)
def test_size_consecutive_selections_visit_every_queue_once(layout, start):
    info = publish_info(layout, start=start)
    size = len(info.message_queue_list)
    for _ in range(2):
        assert sorted(info.select_one_message_queue() for _ in range(size)) == sorted(info.message_queue_list)


@pytest.mark.spec("CLI-2")
def test_after_the_counter_wraps_position_zero_comes_first_then_the_order_runs_backwards():
    info = publish_info({"broker-a": 3}, start=INT_MAX)
    # Math.abs(MIN_VALUE) % 3 is negative → 0; then MAX % 3 = 1, (MAX - 1) % 3 = 0: Java's order, kept.
    assert [info.select_one_message_queue().queue_id for _ in range(3)] == [0, 1, 0]


@pytest.mark.spec("CLI-3")
def test_retry_brokers_are_always_the_same_set():
    # 4.9.3's SelectMessageQueueRetryTest: three brokers with one queue each, three attempts.
    info = publish_info({"broker-0": 1, "broker-1": 1, "broker-2": 1}, rng=random.Random(3))

    def attempts():
        last, brokers = None, set()
        for _ in range(3):
            mq = info.select_one_message_queue(last)
            brokers.add(mq.broker_name)
            last = mq.broker_name
        return brokers

    first = attempts()
    assert first == {"broker-0", "broker-1", "broker-2"}
    assert attempts() == first


@pytest.mark.spec("CLI-3")
@given(layout=layouts, start=starts, data=st.data())
def test_a_retry_avoids_the_last_broker_whenever_another_has_queues(layout, start, data):
    info = publish_info(layout, start=start)
    last = data.draw(st.sampled_from([*layout, "broker-gone"]))
    mq = info.select_one_message_queue(last)
    if any(b != last for b in layout):
        assert mq.broker_name != last
    else:
        assert mq in info.message_queue_list  # every queue is on the last broker: plain round robin


@pytest.mark.spec("CLI-3")
def test_only_one_broker_gives_the_plain_next_queue():
    info = publish_info({"broker-a": 2}, start=0)  # counter 1, 2 (loop), then 3
    assert info.select_one_message_queue("broker-a").queue_id == 1
    assert info.select_one_message_queue(None).queue_id == 0


@pytest.mark.spec("CLI-2")
def test_str_is_javas():
    info = publish_info({"broker-a": 1}, start=0)
    assert str(info) == (
        "TopicPublishInfo [orderTopic=false, messageQueueList=[MessageQueue [topic=TopicTest, brokerName=broker-a, "
        "queueId=0]], sendWhichQueue=ThreadLocalIndex{threadLocalIndex=null}, haveTopicRouterInfo=true]"
    )

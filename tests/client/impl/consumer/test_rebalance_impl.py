"""RebalanceImpl / RebalancePushImpl against recording fakes: allocation, the process-queue table, offsets, locks."""

from __future__ import annotations

import threading

import pytest

from mqlab.client.impl.consumer import rebalance_push_impl
from mqlab.client.impl.consumer.rebalance_push_impl import parse_consume_timestamp
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from tests.client.consumer.push_support import TOPIC, pulled, queue, wired_push_consumer

RETRY = "%RETRY%CG"
ME = "10.0.0.9@c1"


def setup(orderly=False, queues=4, **settings):
    world, consumer, factory, store = wired_push_consumer(orderly=orderly, **settings)
    rebalance = consumer.default_mq_push_consumer_impl.rebalance_impl
    rebalance.topic_subscribe_info_table[TOPIC] = {queue(i) for i in range(queues)}
    rebalance.subscription_inner.pop(RETRY, None)  # keep these tests to one topic
    return world, consumer, rebalance, factory, store


def owned(rebalance):
    return sorted(mq.queue_id for mq in rebalance.process_queue_table)


def dispatched(factory):
    return [(r.message_queue.queue_id, r.next_offset, delay) for r, delay in factory.pull_message_service.requests]


@pytest.mark.spec("REB-2")
def test_clustering_sorts_queues_and_ids_then_allocates_for_itself():
    world, _consumer, rebalance, factory, store = setup()
    factory.cid_all = ["10.0.0.9@c2", ME]  # unsorted: sorting puts c1 first
    store.stored[queue(1)] = 17
    world.run_for(1234)
    rebalance.do_rebalance(False)
    assert owned(rebalance) == [0, 1]
    # new queues start where computePullFromWhere says: the stored offset, else (LAST_OFFSET) the max offset
    assert sorted(dispatched(factory)) == [(0, 100, None), (1, 17, None)]
    assert rebalance.subscription_inner[TOPIC].sub_version == world.now_ms()  # messageQueueChanged
    assert factory.heartbeats == 1
    changed = [e.fields for e in world.trace.events("RebalanceImpl", event="rebalanceResultChanged")]
    assert changed[0]["strategy"] == "AVG" and changed[0]["cidAllSize"] == 2 and changed[0]["mqAllSize"] == 4
    rebalance.do_rebalance(False)  # same inputs: nothing changes, no second heartbeat
    assert factory.heartbeats == 1 and len(dispatched(factory)) == 2


@pytest.mark.spec("REB-4")
def test_queues_no_longer_assigned_are_dropped_persisted_and_forgotten():
    _world, _consumer, rebalance, factory, store = setup()
    rebalance.do_rebalance(False)
    assert owned(rebalance) == [0, 1, 2, 3]
    old = {mq.queue_id: pq for mq, pq in rebalance.process_queue_table.items()}
    store.offset_table[queue(3)] = 9
    factory.cid_all = ["10.0.0.9@c0", ME, "10.0.0.9@c2"]  # AVG: c0 → 0,1; c1 → 2; c2 → 3
    rebalance.do_rebalance(False)
    assert owned(rebalance) == [2]
    assert old[0].dropped and old[1].dropped and old[3].dropped and not old[2].dropped
    assert sorted(mq.queue_id for mq in store.persisted) == [0, 1, 3]
    assert store.stored[queue(3)] == 9  # persisted before it was forgotten
    assert queue(3) not in store.offset_table
    assert factory.heartbeats == 2


@pytest.mark.spec("REB-4")
def test_a_queue_without_a_usable_start_offset_is_skipped_this_round():
    _world, _consumer, rebalance, factory, store = setup(consume_from_where=ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET)
    store.store_answer = -2  # the broker could not be asked
    rebalance.do_rebalance(False)
    assert owned(rebalance) == []
    assert factory.heartbeats == 0
    store.store_answer = None
    factory.mq_admin_impl.error = RuntimeError("no broker")  # LAST_OFFSET needs the max offset: fails
    rebalance.do_rebalance(False)
    assert owned(rebalance) == []
    factory.mq_admin_impl.error = None
    rebalance.do_rebalance(False)
    assert owned(rebalance) == [0, 1, 2, 3]
    assert {offset for _, offset, _ in dispatched(factory)} == {100}  # the fake's max offset


@pytest.mark.spec("REB-5")
def test_a_push_queue_not_pulled_for_120_s_is_dropped_and_recreated():
    world, _consumer, rebalance, factory, _store = setup(queues=1)
    rebalance.do_rebalance(False)
    first = rebalance.process_queue_table[queue(0)]
    world.run_for(120_000)
    rebalance.do_rebalance(False)
    assert rebalance.process_queue_table[queue(0)] is first  # exactly 120 s: not yet expired
    world.run_for(1)
    rebalance.do_rebalance(False)
    second = rebalance.process_queue_table[queue(0)]
    assert first.dropped and second is not first and not second.dropped
    assert len(dispatched(factory)) == 2


@pytest.mark.spec("REB-6")
def test_topic_wide_thresholds_become_per_queue_thresholds():
    _world, consumer, rebalance, factory, _store = setup(pull_threshold_for_topic=100, pull_threshold_size_for_topic=10)
    factory.cid_all = [ME, "10.0.0.9@c2"]
    rebalance.do_rebalance(False)
    assert owned(rebalance) == [0, 1]
    assert consumer.pull_threshold_for_queue == 50
    assert consumer.pull_threshold_size_for_queue == 5


@pytest.mark.spec("REB-8")
def test_queues_of_topics_no_longer_subscribed_are_truncated():
    _world, consumer, rebalance, _factory, _store = setup()
    rebalance.do_rebalance(False)
    queues = list(rebalance.process_queue_table.values())
    consumer.unsubscribe(TOPIC)
    rebalance.do_rebalance(False)
    assert owned(rebalance) == []
    assert all(pq.dropped for pq in queues)


@pytest.mark.spec("REB-9")
def test_broadcasting_takes_every_queue_whatever_the_group():
    _world, _consumer, rebalance, factory, _store = setup(message_model=MessageModel.BROADCASTING)
    factory.cid_all = ["a", "b", "c", ME]
    rebalance.do_rebalance(False)
    assert owned(rebalance) == [0, 1, 2, 3]


@pytest.mark.spec("REB-11")
def test_failures_skip_the_topic_for_this_round():
    world, _consumer, rebalance, factory, _store = setup()
    factory.cid_all = None  # no broker answered GET_CONSUMER_LIST_BY_GROUP
    rebalance.do_rebalance(False)
    assert owned(rebalance) == []

    class Broken:
        def allocate(self, *args):
            raise ValueError("boom")

        def get_name(self):
            return "BROKEN"

    factory.cid_all = [ME]
    rebalance.allocate_message_queue_strategy = Broken()
    rebalance.do_rebalance(False)
    assert owned(rebalance) == []
    failures = [e.fields for e in world.trace.events("RebalanceImpl", event="allocateException")]
    assert failures[0]["strategy"] == "BROKEN"


@pytest.mark.spec("REB-11")
def test_a_retry_topic_without_route_is_rebalanced_quietly():
    world, _consumer, rebalance, _factory, _store = setup()
    rebalance.subscription_inner[RETRY] = rebalance.subscription_inner[TOPIC]
    rebalance.do_rebalance(False)
    assert owned(rebalance) == [0, 1, 2, 3]
    assert [e.fields["topic"] for e in world.trace.events("RebalanceImpl", event="noSubscribeInfo")] == []


# -- where a new queue starts (facts §11.8) -------------------------------------------------------------------------
LAST_LIKE = [
    ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
    ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST,
    ConsumeFromWhere.CONSUME_FROM_MIN_OFFSET,
    ConsumeFromWhere.CONSUME_FROM_MAX_OFFSET,
]


@pytest.mark.spec("REB-7")
@pytest.mark.parametrize("where", list(ConsumeFromWhere))
def test_a_stored_offset_wins_and_an_unreachable_broker_gives_minus_one(where):
    _world, _consumer, rebalance, _factory, store = setup(consume_from_where=where)
    store.stored[queue(0)] = 42
    assert rebalance.compute_pull_from_where_with_exception(queue(0)) == 42
    store.store_answer = -2
    assert rebalance.compute_pull_from_where_with_exception(queue(0)) == -1


@pytest.mark.spec("REB-7")
@pytest.mark.parametrize("where", LAST_LIKE)
def test_last_offset_starts_at_the_max_offset_or_zero_for_a_retry_topic(where):
    _world, _consumer, rebalance, factory, _store = setup(consume_from_where=where)
    factory.mq_admin_impl.max_offsets[queue(0)] = 33
    assert rebalance.compute_pull_from_where_with_exception(queue(0)) == 33
    assert rebalance.compute_pull_from_where_with_exception(queue(0, RETRY)) == 0


@pytest.mark.spec("REB-7")
def test_first_offset_starts_at_zero():
    *_, rebalance, _factory, _store = setup(consume_from_where=ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET)
    assert rebalance.compute_pull_from_where_with_exception(queue(0)) == 0
    assert rebalance.compute_pull_from_where_with_exception(queue(0, RETRY)) == 0


@pytest.mark.spec("REB-7")
def test_timestamp_searches_the_consume_timestamp_but_a_retry_topic_starts_at_its_max():
    world, _consumer, rebalance, factory, _store = setup(
        consume_from_where=ConsumeFromWhere.CONSUME_FROM_TIMESTAMP, consume_timestamp="20220415050000"
    )
    factory.mq_admin_impl.max_offsets[queue(0, RETRY)] = 5
    assert rebalance.compute_pull_from_where_with_exception(queue(0)) == 7
    assert factory.mq_admin_impl.searched == [(queue(0), 1_649_998_800_000)]  # 05:00:00 UTC, the runtime's zone
    assert rebalance.compute_pull_from_where_with_exception(queue(0, RETRY)) == 5
    assert parse_consume_timestamp("2022041505", world.tz) is None
    assert parse_consume_timestamp("20221315050000", world.tz) == 1_673_758_800_000  # lenient: 2023-01-15 05:00


@pytest.mark.spec("REB-7")
def test_the_default_consume_timestamp_is_half_an_hour_before_construction():
    world, consumer, _rebalance, _factory, _store = setup()
    assert parse_consume_timestamp(consumer.consume_timestamp, world.tz) == world.start_ms - 30 * 60 * 1000


# -- orderly: broker locks -------------------------------------------------------------------------------------------
@pytest.mark.spec("REB-10")
def test_orderly_rebalance_takes_only_queues_it_could_lock():
    _world, _consumer, rebalance, factory, _store = setup(orderly=True)
    factory.mq_client_api_impl.lockable = {queue(0), queue(2)}
    rebalance.do_rebalance(True)
    assert owned(rebalance) == [0, 2]
    assert [len(body.mq_set) for _, body in factory.mq_client_api_impl.locks] == [1, 1, 1, 1]


@pytest.mark.spec("REB-10")
def test_lock_all_renews_granted_queues_and_unlocks_the_others():
    world, _consumer, rebalance, factory, _store = setup(orderly=True)
    rebalance.do_rebalance(True)
    world.run_for(5000)
    factory.mq_client_api_impl.lockable = {queue(1)}
    rebalance.lock_all()
    table = {mq.queue_id: pq for mq, pq in rebalance.process_queue_table.items()}
    assert table[1].locked and table[1].last_lock_timestamp == world.now_ms()
    assert not table[0].locked and not table[2].locked and not table[3].locked
    addr, body = factory.mq_client_api_impl.locks[-1]
    assert (addr, body.consumer_group, body.client_id, len(body.mq_set)) == (factory.broker_addr, "CG", ME, 4)
    rebalance.unlock_all(False)
    assert not table[1].locked
    assert factory.mq_client_api_impl.unlocks[-1][2] is False


@pytest.mark.spec("REB-10")
def test_giving_up_an_orderly_queue_unlocks_at_once_or_after_20_s_when_messages_are_cached():
    world, _consumer, rebalance, factory, _store = setup(orderly=True, queues=2)
    rebalance.do_rebalance(True)
    table = {mq.queue_id: pq for mq, pq in rebalance.process_queue_table.items()}
    table[1].put_message(pulled([0, 1], queue_id=1))
    factory.cid_all = ["10.0.0.9@c0", "10.0.0.9@c00", ME]  # 2 queues, 3 consumers: c1 (third) gets nothing
    rebalance.do_rebalance(True)
    assert owned(rebalance) == []
    unlocked = [
        (sorted(mq.queue_id for mq in body.mq_set), oneway) for _, body, oneway in factory.mq_client_api_impl.unlocks
    ]
    assert unlocked == [([0], True)]  # queue 1 still has cached messages
    world.run_for(20_000)
    unlocked = [
        (sorted(mq.queue_id for mq in body.mq_set), oneway) for _, body, oneway in factory.mq_client_api_impl.unlocks
    ]
    assert unlocked == [([0], True), ([1], True)]


@pytest.mark.spec("REB-10")
def test_an_orderly_queue_being_consumed_is_not_given_up(monkeypatch):
    monkeypatch.setattr(rebalance_push_impl, "CONSUME_LOCK_WAIT_MILLIS", 10)
    _world, _consumer, rebalance, factory, _store = setup(orderly=True, queues=1)
    rebalance.do_rebalance(True)
    pq = rebalance.process_queue_table[queue(0)]
    pq.consume_lock = threading.Lock()
    pq.consume_lock.acquire()  # a consume request holds it
    factory.cid_all = ["10.0.0.9@c0", ME]
    rebalance.do_rebalance(True)
    assert owned(rebalance) == [0]  # dropped, but still in the table: removal refused
    assert pq.dropped and pq.try_unlock_times == 1
    assert factory.mq_client_api_impl.unlocks == []


@pytest.mark.spec("AUDIT-5")
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("20240230120000", "2024-03-01 12:00:00"),  # 30 February rolls over to 1 March
        ("20231301000000", "2024-01-01 00:00:00"),  # month 13: January of the next year
        ("20240300000000", "2024-02-29 00:00:00"),  # day 00: the last day of the month before
        ("20240101240000", "2024-01-02 00:00:00"),  # hour 24: the next day
        ("20240101123456extra", "2024-01-01 12:34:56"),  # DateFormat#parse need not use the whole text
        ("2024010112345", None),  # too short
        ("2024-01-01 12:00", None),
    ],
)
def test_consume_timestamp_is_read_leniently_as_java_parse_date(text, expected):
    from datetime import UTC, datetime

    millis = parse_consume_timestamp(text, UTC)
    if expected is None:
        assert millis is None
    else:
        assert datetime.fromtimestamp(millis / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S") == expected

"""ConsumeMessageOrderlyService: one queue in order, failures retried in place, DLQ past the limit, broker locks."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqlab.client.consumer.listener.consume_concurrently_context import INTEGER_MAX_VALUE
from mqlab.client.consumer.listener.consume_orderly_status import ConsumeOrderlyStatus
from mqlab.client.impl.consumer import consume_message_orderly_service as orderly_module
from mqlab.client.impl.consumer.consume_message_orderly_service import ConsumeMessageOrderlyService
from mqlab.common.message import message_const as mc
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from tests.client.consumer.push_support import TOPIC, ConsumerCluster, Recorder, pulled, queue, wired_push_consumer

SUCCESS = ConsumeOrderlyStatus.SUCCESS
SUSPEND = ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT


def setup(verdict=None, *, locked=True, **settings_):
    world, consumer, factory, store = wired_push_consumer(Recorder(lambda: 0, verdict, orderly=True), orderly=True,
                                                          **settings_)  # fmt: skip
    impl = consumer.default_mq_push_consumer_impl
    listener = consumer.message_listener.target
    listener.now = world.clock.now_ms
    service = impl.consume_message_service
    assert isinstance(service, ConsumeMessageOrderlyService)
    mq = queue(0)
    pq = impl.rebalance_impl.new_process_queue()
    pq.locked = locked
    impl.rebalance_impl.process_queue_table[mq] = pq
    return world, consumer, service, factory, store, listener, mq, pq


def deliver(service, pq, mq, offsets):
    msgs = pulled(offsets)
    dispatch = pq.put_message(msgs)
    service.submit_consume_request(msgs, pq, mq, dispatch)
    return msgs


def consumed(listener):
    return [[offset for _, _, offset, _, _ in batch] for _, batch in listener.calls]


@pytest.mark.spec("CONSUME-8")
def test_batches_come_from_the_head_in_order_and_each_success_commits():
    world, _consumer, service, _factory, store, listener, mq, pq = setup(consume_message_batch_max_size=2)
    deliver(service, pq, mq, [0, 1, 2, 3, 4])
    deliver(service, pq, mq, [5])  # a request is already running: no second one
    world.run_for(0)
    assert consumed(listener) == [[0, 1], [2, 3], [4, 5]]
    assert store.offset_table[mq] == 6
    assert pq.msg_count == 0 and pq.consuming is False


@pytest.mark.spec("CONSUME-8")
def test_suspend_retries_the_same_batch_after_the_suspend_time_and_later_messages_wait():
    answers = iter([SUCCESS, SUSPEND, None, SUCCESS, SUCCESS])
    world, _consumer, service, _factory, store, listener, mq, pq = setup(lambda m, c: next(answers))
    deliver(service, pq, mq, [0, 1, 2])
    world.run_for(0)
    assert consumed(listener) == [[0], [1]]
    assert store.offset_table[mq] == 1
    world.run_for(1000)  # suspendCurrentQueueTimeMillis
    assert consumed(listener) == [[0], [1], [1]]  # None also means "suspend"
    world.run_for(1000)
    assert consumed(listener) == [[0], [1], [1], [1], [2]]
    assert [t - world.start_ms for t, _ in listener.calls] == [0, 0, 1000, 2000, 2000]
    assert [times for _, batch in listener.calls for *_, times in batch] == [0, 0, 1, 2, 0]
    assert store.offset_table[mq] == 3


@pytest.mark.spec("CONSUME-8")
@pytest.mark.parametrize(("asked", "waited"), [(1, 10), (250, 250), (60_000, 30_000)])
def test_the_suspend_time_is_clamped_to_10_30000_ms(asked, waited):
    answers = iter([SUSPEND, SUCCESS])

    def verdict(msgs, ctx):
        ctx.suspend_current_queue_time_millis = asked
        return next(answers)

    world, _consumer, service, _factory, _store, listener, mq, pq = setup(verdict)
    deliver(service, pq, mq, [0])
    world.run_for(waited - 1)
    assert len(listener.calls) == 1
    world.run_for(1)
    assert len(listener.calls) == 2


@pytest.mark.spec("CONSUME-9")
def test_a_message_past_max_reconsume_times_is_sent_to_the_dlq_via_the_retry_topic_and_committed():
    world, _consumer, service, factory, store, listener, mq, pq = setup(
        lambda msgs, ctx: SUSPEND if msgs[0].queue_offset == 1 else SUCCESS, max_reconsume_times=2
    )
    deliver(service, pq, mq, [0, 1, 2])
    world.run_for(10_000)
    assert consumed(listener) == [[0], [1], [1], [1], [2]]
    [sent] = factory.default_mq_producer.sent
    assert sent.topic == "%RETRY%CG"
    assert sent.get_property(mc.PROPERTY_RECONSUME_TIME) == "2"  # not +1: the broker then picks the DLQ
    assert sent.get_property(mc.PROPERTY_MAX_RECONSUME_TIMES) == "2"
    assert sent.get_property(mc.PROPERTY_RETRY_TOPIC) == TOPIC
    assert sent.get_delay_time_level() == 5
    assert store.offset_table[mq] == 3


@pytest.mark.spec("CONSUME-9")
def test_when_the_dlq_send_fails_the_message_keeps_being_retried_and_minus_one_means_forever():
    world, _consumer, service, factory, store, listener, mq, pq = setup(lambda m, c: SUSPEND, max_reconsume_times=1)
    factory.default_mq_producer.error = RuntimeError("no route")
    deliver(service, pq, mq, [0])
    world.run_for(3000)
    assert [batch[0][4] for _, batch in listener.calls] == [0, 1, 2, 3]
    assert mq not in store.offset_table
    world, _consumer, service, *_ = setup()
    assert service.get_max_reconsume_times() == INTEGER_MAX_VALUE


@pytest.mark.spec("CONSUME-10")
def test_an_unlocked_queue_is_locked_first_and_then_consumed():
    world, _consumer, service, factory, _store, listener, mq, pq = setup(locked=False)
    factory.mq_client_api_impl.lockable = set()
    deliver(service, pq, mq, [0])
    world.run_for(100)  # tryLockLaterAndReconsume(…, 100)
    assert listener.calls == [] and len(factory.mq_client_api_impl.locks) == 1
    world.run_for(3100)  # refused: the queue is resubmitted in 3 s, finds no lock, tries again 100 ms later
    assert len(factory.mq_client_api_impl.locks) == 2
    factory.mq_client_api_impl.lockable = None
    world.run_for(3000 + 100 + 9)
    assert listener.calls == []
    world.run_for(1)  # granted: resubmitted 10 ms later
    assert consumed(listener) == [[0]]


@pytest.mark.spec("CONSUME-10")
def test_an_expired_lock_stops_consumption_until_renewed_and_broadcasting_needs_none():
    world, _consumer, service, factory, _store, listener, mq, pq = setup()
    world.run_for(30_001)  # last_lock_timestamp is the creation time: the lock has expired
    deliver(service, pq, mq, [0])
    world.run_for(0)
    assert listener.calls == []
    world.run_for(200)
    assert consumed(listener) == [[0]] and pq.last_lock_timestamp > world.start_ms
    world, _consumer, service, factory, _store, listener, mq, pq = setup(
        locked=False, message_model=MessageModel.BROADCASTING
    )
    deliver(service, pq, mq, [0])
    world.run_for(0)
    assert consumed(listener) == [[0]] and factory.mq_client_api_impl.locks == []


@pytest.mark.spec("CONSUME-10")
def test_locks_are_renewed_after_1_s_and_every_20_s_and_given_back_at_shutdown():
    world, _consumer, service, factory, _store, _listener, mq, _pq = setup()
    service.start()
    world.run_for(41_000)
    assert len(factory.mq_client_api_impl.locks) == 3  # at 1 s, 21 s, 41 s
    service.shutdown()
    [(_, body, oneway)] = factory.mq_client_api_impl.unlocks
    assert set(body.mq_set) == {mq} and oneway is False
    world.run_for(60_000)
    assert len(factory.mq_client_api_impl.locks) == 3


@pytest.mark.spec("CONSUME-11")
def test_without_auto_commit_only_commit_moves_the_offset_and_rollback_retries():
    answers = iter([SUCCESS, ConsumeOrderlyStatus.COMMIT, ConsumeOrderlyStatus.ROLLBACK, ConsumeOrderlyStatus.COMMIT])

    def verdict(msgs, ctx):
        ctx.auto_commit = False
        return next(answers)

    world, _consumer, service, _factory, store, listener, mq, pq = setup(verdict)
    deliver(service, pq, mq, [0, 1, 2])
    world.run_for(0)
    assert consumed(listener) == [[0], [1], [2]]
    assert store.offset_table[mq] == 2  # COMMIT covers everything taken since the last commit
    world.run_for(1000)
    assert consumed(listener) == [[0], [1], [2], [2]]
    assert store.offset_table[mq] == 3


@pytest.mark.spec("CONSUME-11")
def test_with_auto_commit_commit_and_rollback_count_as_success():
    answers = iter([ConsumeOrderlyStatus.COMMIT, ConsumeOrderlyStatus.ROLLBACK])
    world, _consumer, service, _factory, store, _listener, mq, pq = setup(lambda m, c: next(answers))
    deliver(service, pq, mq, [0, 1])
    world.run_for(0)
    assert store.offset_table[mq] == 2
    assert len(world.trace.events("ConsumeMessageOrderlyService", event="illegalStatusWithAutoCommit")) == 2


@pytest.mark.spec("CONSUME-8")
def test_a_request_yields_the_queue_after_60_s_of_continuous_consumption():
    assert orderly_module.MAX_TIME_CONSUME_CONTINUOUSLY == 60_000
    holder = {}

    def slow(msgs, ctx):
        holder["world"].run_for(61_000) if msgs[0].queue_offset == 0 else None
        return SUCCESS

    world, _consumer, service, _factory, _store, listener, mq, pq = setup(slow, message_model=MessageModel.BROADCASTING)
    holder["world"] = world
    deliver(service, pq, mq, [0, 1])
    world.run_for(0)
    assert consumed(listener) == [[0]]
    world.run_for(10)
    assert consumed(listener) == [[0], [1]]


@pytest.mark.spec("CONSUME-12")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    count=st.integers(1, 12),
    batch=st.integers(1, 3),
    failures=st.lists(st.sampled_from(["ok", "suspend", "none", "raise"]), max_size=30),
)
def test_orderly_consumption_keeps_queue_order_under_injected_failures(count, batch, failures):
    script = iter(failures)

    def verdict(msgs, ctx):
        answer = next(script, "ok")
        if answer == "raise":
            raise RuntimeError("injected")
        return {"ok": SUCCESS, "suspend": SUSPEND, "none": None}[answer]

    world, _consumer, service, _factory, store, listener, mq, pq = setup(verdict, consume_message_batch_max_size=batch)
    deliver(service, pq, mq, list(range(count)))
    world.run_for(200_000)
    statuses = [e.fields for e in world.trace.events("ConsumeMessageOrderlyService", event="consumeMessage")]
    committed_up_to = 0
    for call, status in zip(consumed(listener), statuses, strict=True):
        assert call[0] == committed_up_to  # every batch starts at the first message not yet consumed
        assert call == list(range(call[0], call[0] + len(call)))
        if status["status"] == "SUCCESS":
            committed_up_to = call[-1] + 1
    assert committed_up_to == count
    assert store.offset_table[mq] == count


@pytest.mark.spec("CONSUME-8", "CONSUME-12")
def test_orderly_consumer_on_a_cluster_keeps_each_queue_in_order_despite_failures(tmp_path):
    cluster = ConsumerCluster(tmp_path / "c")
    try:
        cluster.make_topic(TOPIC, 4)
        for i in range(24):
            cluster.send(1, queue=i % 2, start=i)
        calls = [0]

        def flaky(msgs, ctx):
            calls[0] += 1
            return SUSPEND if calls[0] % 3 == 0 else SUCCESS

        listener = Recorder(cluster.world.clock.now_ms, flaky, orderly=True)
        consumer = cluster.push_consumer("CO", listener, orderly=True)
        cluster.run_for(60_000)
        succeeded: dict[int, list[int]] = {}
        statuses = [
            e.fields["status"]
            for e in cluster.world.trace.events("ConsumeMessageOrderlyService", event="consumeMessage")
        ]
        for (_, [(_, queue_id, _offset, body, _)]), status in zip(listener.calls, statuses, strict=True):
            if status == "SUCCESS":
                succeeded.setdefault(queue_id, []).append(int(body))
        assert succeeded == {0: list(range(0, 24, 2)), 1: list(range(1, 24, 2))}
        impl = consumer.default_mq_push_consumer_impl
        locked = [pq.locked for mq, pq in impl.rebalance_impl.process_queue_table.items() if mq.topic == TOPIC]
        assert locked and all(locked)
    finally:
        cluster.close()

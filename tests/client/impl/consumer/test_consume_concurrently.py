"""ConsumeMessageConcurrentlyService: batches, ackIndex, send-back and its fallback, offsets, the expiry sweep."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.impl.consumer.consume_message_concurrently_service import ConsumeMessageConcurrentlyService
from mqlab.common import mix_all
from mqlab.common.message import message_const as mc
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from tests.client.consumer.push_support import TOPIC, ConsumerCluster, Recorder, pulled, queue, wired_push_consumer

OK = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
LATER = ConsumeConcurrentlyStatus.RECONSUME_LATER


class Capture:
    """An executor that keeps submitted tasks for the test to run (and can refuse the first ones)."""

    def __init__(self, refuse: int = 0):
        self.tasks: list = []
        self.refuse = refuse

    def submit(self, fn, *args):
        if self.refuse > 0:
            self.refuse -= 1
            raise RuntimeError("rejected")
        self.tasks.append(fn)

    def shutdown(self):
        pass


def setup(verdict=None, **settings_):
    world, consumer, factory, store = wired_push_consumer(Recorder(lambda: 0, verdict), **settings_)
    impl = consumer.default_mq_push_consumer_impl
    listener = consumer.message_listener.target
    listener.now = world.clock.now_ms
    service = impl.consume_message_service
    assert isinstance(service, ConsumeMessageConcurrentlyService)
    mq = queue(0)
    pq = impl.rebalance_impl.new_process_queue()
    impl.rebalance_impl.process_queue_table[mq] = pq
    return world, consumer, service, factory, store, listener, mq, pq


def deliver(service, pq, mq, offsets):
    msgs = pulled(offsets)
    pq.put_message(msgs)
    service.submit_consume_request(msgs, pq, mq, True)
    return msgs


@pytest.mark.spec("CONSUME-1")
def test_a_pulled_batch_is_split_into_requests_of_the_batch_size():
    world, consumer, service, _factory, store, listener, mq, pq = setup(consume_message_batch_max_size=3)
    assert service.consume_executor.threads == consumer.consume_thread_min == 20
    assert service.consume_executor.name == "ConsumeMessageThread_CG_"
    deliver(service, pq, mq, list(range(7)))
    world.run_for(0)
    assert [[offset for _, _, offset, _, _ in batch] for _, batch in listener.calls] == [[0, 1, 2], [3, 4, 5], [6]]
    assert store.offset_table[mq] == 7


@pytest.mark.spec("CONSUME-1")
def test_a_refused_submit_is_retried_five_seconds_later():
    world, _consumer, service, _factory, _store, _listener, mq, pq = setup()
    service.consume_executor = Capture(refuse=1)
    deliver(service, pq, mq, [0])
    assert service.consume_executor.tasks == []
    world.run_for(4999)
    assert service.consume_executor.tasks == []
    world.run_for(1)
    assert len(service.consume_executor.tasks) == 1


@pytest.mark.spec("CONSUME-2")
def test_run_stamps_the_start_time_and_treats_exceptions_and_none_as_reconsume_later():
    answers = iter([None, "raise", OK])

    def verdict(msgs, ctx):
        answer = next(answers)
        if answer == "raise":
            raise ValueError("listener bug")
        return answer

    world, _consumer, service, factory, store, _listener, mq, pq = setup(verdict)
    world.run_for(777)
    msgs = deliver(service, pq, mq, [0, 1, 2])
    world.run_for(0)
    assert msgs[0].get_property(mc.PROPERTY_CONSUME_START_TIMESTAMP) == str(world.now_ms())
    backs = factory.mq_client_api_impl.send_backs
    assert [msg.queue_offset for _, msg, *_ in backs] == [0, 1]
    returns = [
        e.fields["returnType"] for e in world.trace.events("ConsumeMessageConcurrentlyService", event="consumeMessage")
    ]
    assert returns == ["RETURNNULL", "EXCEPTION", "SUCCESS"]
    assert store.offset_table[mq] == 3


@pytest.mark.spec("CONSUME-2")
def test_a_dropped_queue_is_not_consumed_and_a_queue_dropped_meanwhile_commits_nothing():
    world, _consumer, service, _factory, store, listener, mq, pq = setup()
    pq.dropped = True
    deliver(service, pq, mq, [0])
    world.run_for(0)
    assert listener.calls == []

    def drop_while_consuming(msgs, ctx):
        pq2.dropped = True
        return OK

    world, _consumer, service, _factory, store, listener, mq, pq2 = setup(drop_while_consuming)
    deliver(service, pq2, mq, [0])
    world.run_for(0)
    assert len(listener.calls) == 1 and mq not in store.offset_table
    assert pq2.msg_count == 1  # processConsumeResult did not run


@pytest.mark.spec("CONSUME-3")
@pytest.mark.parametrize(
    ("status", "ack_index", "sent_back"),
    [
        (OK, 2**31 - 1, []),
        (OK, 0, [1, 2]),
        (OK, 1, [2]),
        (OK, 5, []),
        (LATER, 2**31 - 1, [0, 1, 2]),
        (LATER, 1, [0, 1, 2]),
    ],
)
def test_ack_index_decides_which_messages_are_sent_back(status, ack_index, sent_back):
    def verdict(msgs, ctx):
        ctx.ack_index = ack_index
        ctx.delay_level_when_next_consume = 2
        return status

    world, _consumer, service, factory, store, _listener, mq, pq = setup(verdict, consume_message_batch_max_size=3)
    deliver(service, pq, mq, [0, 1, 2])
    world.run_for(0)
    backs = factory.mq_client_api_impl.send_backs
    assert [msg.queue_offset for _, msg, *_ in backs] == sent_back
    for addr, _msg, group, delay_level, timeout, max_times in backs:
        assert (addr, group, delay_level, timeout, max_times) == (factory.broker_addr, "CG", 2, 5000, 16)
    assert store.offset_table[mq] == 3  # sent back counts as done


@pytest.mark.spec("CONSUME-3")
def test_broadcasting_drops_failed_messages():
    world, _consumer, service, factory, store, _listener, mq, pq = setup(
        lambda m, c: LATER, message_model=MessageModel.BROADCASTING
    )
    deliver(service, pq, mq, [0, 1])
    world.run_for(0)
    assert factory.mq_client_api_impl.send_backs == []
    dropped = world.trace.events("ConsumeMessageConcurrentlyService", event="broadcastingConsumeFailedDropped")
    assert [e.fields["offset"] for e in dropped] == [0, 1]
    assert store.offset_table[mq] == 2


@pytest.mark.spec("CONSUME-4")
def test_a_message_whose_send_back_fails_is_consumed_again_locally_five_seconds_later():
    world, _consumer, service, factory, store, listener, mq, pq = setup(
        lambda msgs, ctx: LATER if msgs[0].queue_offset == 1 and msgs[0].reconsume_times == 0 else OK
    )
    factory.mq_client_api_impl.send_back_error = RuntimeError("broker refused")
    factory.default_mq_producer.error = RuntimeError("no route either")
    deliver(service, pq, mq, [0, 1, 2])
    world.run_for(0)
    assert store.offset_table[mq] == 1  # message 1 is still in the ProcessQueue: the offset waits for it
    assert pq.msg_count == 1
    world.run_for(5000)
    assert [(offset, times) for _, batch in listener.calls for _, _, offset, _, times in batch] == [
        (0, 0), (1, 0), (2, 0), (1, 1)
    ]  # fmt: skip
    assert store.offset_table[mq] == 3


@pytest.mark.spec("PUSH-16")
def test_send_back_goes_to_the_queues_broker_or_the_store_host_and_falls_back_to_the_inner_producer():
    _world, consumer, _service, factory, _store, _listener, _mq, _pq = setup()
    impl = consumer.default_mq_push_consumer_impl
    msg = pulled([4])[0]
    msg.reconsume_times = 2
    msg.put_property(mc.PROPERTY_TRANSACTION_PREPARED, "true")
    consumer.send_message_back(msg, 0, "broker-a")
    assert factory.mq_client_api_impl.send_backs[-1][0] == factory.broker_addr
    consumer.send_message_back(msg, 0)
    assert factory.mq_client_api_impl.send_backs[-1][0] == "0.0.0.0:0"  # Java: parseSocketAddressAddr(storeHost)
    factory.mq_client_api_impl.send_back_error = RuntimeError("refused")
    impl.send_message_back(msg, 0, "broker-a")
    [retry] = factory.default_mq_producer.sent
    assert retry.topic == mix_all.get_retry_topic("CG")
    assert retry.get_property(mc.PROPERTY_RETRY_TOPIC) == TOPIC
    assert retry.get_property(mc.PROPERTY_RECONSUME_TIME) == "3"
    assert retry.get_property(mc.PROPERTY_MAX_RECONSUME_TIMES) == "16"
    assert retry.get_delay_time_level() == 5
    assert retry.get_property(mc.PROPERTY_TRANSACTION_PREPARED) is None
    assert retry.get_property(mc.PROPERTY_ORIGIN_MESSAGE_ID) is None  # lost with the replaced property map
    assert retry.properties is msg.properties  # Java attaches the consumed message's map itself
    factory.default_mq_producer.error = RuntimeError("down")
    with pytest.raises(RuntimeError, match="down"):
        impl.send_message_back(msg, 0, "broker-a")


@pytest.mark.spec("CONSUME-7")
def test_messages_consumed_for_longer_than_the_consume_timeout_are_sent_back_with_level_3():
    stuck = []

    def verdict(msgs, ctx):
        stuck.extend(msgs)
        return OK

    world, _consumer, service, factory, _store, _listener, _mq, pq = setup(verdict, consume_timeout=1)
    service.start()
    msgs = pulled([0, 1])
    pq.put_message(msgs)
    for msg in msgs:
        msg.put_property(mc.PROPERTY_CONSUME_START_TIMESTAMP, str(world.now_ms()))
    world.run_for(60_000)  # the sweep runs every consumeTimeout minutes; at exactly 1 min nothing is older
    assert factory.mq_client_api_impl.send_backs == []
    world.run_for(60_000)
    backs = factory.mq_client_api_impl.send_backs
    assert [(msg.queue_offset, level) for _, msg, _, level, _, _ in backs] == [(0, 3), (1, 3)]
    assert pq.msg_count == 0
    service.shutdown()
    world.run_for(600_000)
    assert len(factory.mq_client_api_impl.send_backs) == 2


@pytest.mark.spec("CONSUME-5")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_committed_offset_never_passes_an_unconsumed_message(data):
    world, _consumer, service, factory, store, listener, mq, pq = setup(consume_message_batch_max_size=2)
    executor = Capture()
    service.consume_executor = executor
    done: set[int] = set()

    def verdict(msgs, ctx):
        if any(m.reconsume_times < 2 for m in msgs) and data.draw(st.booleans(), label="fail"):
            return LATER
        done.update(m.queue_offset for m in msgs)
        return OK

    listener.verdict = verdict

    class FlakyAPI:  # send-back succeeds or fails as drawn; a successful send-back also counts as done
        def consumer_send_message_back(self, addr, msg, group, delay_level, timeout, max_times):
            if data.draw(st.booleans(), label="send back fails"):
                raise RuntimeError("refused")
            done.add(msg.queue_offset)

    factory.mq_client_api_impl = FlakyAPI()
    factory.default_mq_producer.error = RuntimeError("fallback down too")
    batches = data.draw(st.lists(st.integers(1, 5), min_size=1, max_size=5), label="pull sizes")
    pulled_offsets: list[int] = []
    next_offset = 0
    last_committed = -1
    while True:
        if batches and (not executor.tasks or data.draw(st.booleans(), label="pull now")):
            size = batches.pop(0)
            offsets = list(range(next_offset, next_offset + size))
            next_offset += size
            pulled_offsets += offsets
            deliver(service, pq, mq, offsets)
        elif executor.tasks:
            task = executor.tasks.pop(data.draw(st.integers(0, len(executor.tasks) - 1), label="which request"))
            task()
        elif len(done) < next_offset:
            world.run_for(5000)  # failed send-backs come back to the pool
        else:
            break
        committed = store.offset_table.get(mq)
        if committed is not None:
            unconsumed = [o for o in pulled_offsets if o not in done]
            if unconsumed:
                assert committed <= min(unconsumed)
            assert committed >= last_committed
            last_committed = committed
    assert store.offset_table[mq] == next_offset


@pytest.mark.spec("CONSUME-6")
def test_reconsume_later_walks_delay_levels_3_4_5_then_the_dead_letter_queue(tmp_path):
    cluster = ConsumerCluster(tmp_path / "c")
    try:
        cluster.make_topic(TOPIC, 4)
        cluster.send(1, queue=0)
        listener = Recorder(cluster.world.clock.now_ms, lambda msgs, ctx: LATER)
        cluster.push_consumer("CG", listener, max_reconsume_times=3)
        cluster.run_for(200_000)
        times = [t for t, _ in listener.calls]
        assert [batch[0][4] for _, batch in listener.calls] == [0, 1, 2, 3]
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert [round(g / 1000) for g in gaps] == [10, 30, 60]  # levels 3, 4, 5: 10 s, 30 s, 1 min
        assert all(topic == TOPIC for _, [(topic, *_)] in listener.calls)
        [dead] = cluster.stored("broker-a", "%DLQ%CG")
        assert dead.reconsume_times == 4
        assert dead.body == b"0"
        assert dead.get_property(mc.PROPERTY_RETRY_TOPIC) == TOPIC
        back = [e.fields for e in cluster.world.trace.events("SendMessageProcessor", event="consumerSendMsgBack")]
        assert [(b["topic"], b["delayLevel"]) for b in back] == [
            ("%RETRY%CG", 3), ("%RETRY%CG", 4), ("%RETRY%CG", 5), ("%DLQ%CG", 0)
        ]  # fmt: skip
    finally:
        cluster.close()

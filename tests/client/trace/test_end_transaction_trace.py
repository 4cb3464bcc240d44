"""A traced TransactionMQProducer writes EndTransaction trace records (EndTransactionTraceHookImpl).

The world: ``broker-a`` with ``traceTopicEnable``; ``TopicTest`` with 4 queues. A traced transactional producer of
``TXG`` (node ``producer``) sends three half messages: its local transaction commits the first, rolls back the
second and leaves the third UNKNOW; the broker's check asks about the third and the producer's check answers
COMMIT. Every decision sent leaves one EndTransaction record in ``RMQ_SYS_TRACE_TOPIC``.
"""

from __future__ import annotations

import pytest

from mqlab.client.producer.local_transaction_state import LocalTransactionState
from mqlab.client.producer.transaction_mq_producer import TransactionMQProducer
from mqlab.client.trace.trace_data_encoder import decoder_from_trace_data_string, encoder_from_context_bean
from mqlab.client.trace.trace_type import TraceType
from mqlab.common.message.message import Message
from mqlab.common.message.message_type import MessageType
from mqlab.runtime import SimulatedWorld
from tests.client.consumer.push_support import TOPIC, ConsumerCluster

TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC"
DECISIONS = {
    b"commit": LocalTransactionState.COMMIT_MESSAGE,
    b"rollback": LocalTransactionState.ROLLBACK_MESSAGE,
    b"unknown": LocalTransactionState.UNKNOW,
}


class Listener:
    def execute_local_transaction(self, msg, arg):
        return DECISIONS[msg.body]

    def check_local_transaction(self, msg_ext):
        return LocalTransactionState.COMMIT_MESSAGE


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    cluster = ConsumerCluster(
        tmp_path_factory.mktemp("txtrace"),
        broker={"trace_topic_enable": True, "transaction_check_interval": 10_000},
    )
    cluster.make_topic(TOPIC, 4)
    producer = TransactionMQProducer(
        "TXG",
        cluster.client_runtime("producer"),
        namesrv_addr=cluster.namesrv_addr,
        transaction_listener=Listener(),
        enable_msg_trace=True,
    )
    producer.start()
    results = {
        body: producer.send_message_in_transaction(Message(TOPIC, "TagT", f"key-{body.decode()}", body), None)
        for body in DECISIONS
    }
    cluster.run_for(25_000)  # the check (every 10 s, for messages older than 6 s) asks about the UNKNOW one
    cluster.run_for(2_000)  # the trace dispatcher sends its batch
    ends = []
    for stored in cluster.stored("broker-a", TRACE_TOPIC):
        for ctx in decoder_from_trace_data_string(stored.body.decode()):
            if ctx.trace_type is TraceType.EndTransaction:
                ends.append((stored, ctx))
    yield cluster, producer, results, ends
    producer.shutdown()
    cluster.close()


@pytest.mark.spec("TRACE-11")
def test_each_decision_sent_leaves_one_end_transaction_record(world):
    _, producer, results, ends = world
    rows = [
        (c.group_name, c.region_id, b.topic, b.tags, b.keys, b.msg_type, b.transaction_state, b.from_transaction_check)
        for _, c in ends
        for b in c.trace_beans
    ]
    common = ("TXG", "DefaultRegion", TOPIC, "TagT")
    commit_type = MessageType.Trans_msg_Commit  # for every decision, as 4.9.3 writes it
    expected = [
        (*common, "key-commit", commit_type, "COMMIT_MESSAGE", False),
        (*common, "key-rollback", commit_type, "ROLLBACK_MESSAGE", False),
        (*common, "key-unknown", commit_type, "UNKNOW", False),
        (*common, "key-unknown", commit_type, "COMMIT_MESSAGE", True),  # the answer to the broker's check
    ]
    assert sorted(rows, key=str) == sorted(expected, key=str)
    broker_addr = producer.default_mq_producer_impl.mq_client_factory.find_broker_address_in_publish("broker-a")
    for _, ctx in ends:
        [bean] = ctx.trace_beans
        key = bean.keys.removeprefix("key-").encode()
        assert bean.msg_id == results[key].msg_id  # the send result's msgId; the check's answer names UNIQ_KEY
        assert bean.store_host == broker_addr
        assert bean.transaction_id == results[key].msg_id  # the message's transaction id is its UNIQ_KEY


@pytest.mark.spec("TRACE-11")
def test_the_record_is_the_encoders_end_transaction_format(world):
    _, _, _, ends = world
    stored, ctx = ends[0]
    text = stored.body.decode()
    record = encoder_from_context_bean(ctx).trans_data
    assert record in text  # re-encoding the decoded context gives the stored bytes back
    fields = record.rstrip("\x02").split("\x01")
    bean = ctx.trace_beans[0]
    assert fields == [
        "EndTransaction",
        str(ctx.time_stamp),
        "DefaultRegion",
        "TXG",
        TOPIC,
        bean.msg_id,
        "TagT",
        bean.keys,
        bean.store_host,
        "2",  # Trans_msg_Commit's ordinal, for every decision
        bean.transaction_id,
        bean.transaction_state,
        "true" if bean.from_transaction_check else "false",
    ]
    assert bean.msg_id in stored.get_keys().split(" ")  # findable by queryMsgTraceById


@pytest.mark.spec("TRACE-12")
def test_a_producer_without_trace_registers_no_end_transaction_hook():
    world = SimulatedWorld(0)
    producer = TransactionMQProducer("TXG2", world.runtime("p2"), transaction_listener=Listener())
    assert producer.default_mq_producer_impl.has_end_transaction_hook() is False
    traced = TransactionMQProducer("TXG3", world.runtime("p3"), transaction_listener=Listener(), enable_msg_trace=True)
    [hook] = traced.default_mq_producer_impl.end_transaction_hook_list
    assert hook.hook_name() == "EndTransactionTraceHook"

"""TransactionMQProducer end to end: half message, local transaction, END_TRANSACTION, and the broker's check."""

from __future__ import annotations

import pytest

from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.producer.default_mq_producer_impl import CheckExecutor, RejectedExecutionError
from mqlab.client.producer.local_transaction_state import LocalTransactionState
from mqlab.client.producer.send_status import SendStatus
from mqlab.client.producer.transaction_mq_producer import TransactionMQProducer
from mqlab.common.message import message_const as mc
from mqlab.common.message.message import Message
from mqlab.common.message.message_decoder import decode_message_id
from mqlab.common.protocol.header.end_transaction_request_header import EndTransactionRequestHeader
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.topic import topic_validator as tv
from tests.client.cluster_fixtures import ClientCluster

COMMIT, ROLLBACK, UNKNOW = (
    LocalTransactionState.COMMIT_MESSAGE,
    LocalTransactionState.ROLLBACK_MESSAGE,
    LocalTransactionState.UNKNOW,
)
TOPIC = "TxTopic"
HALF, OP = tv.RMQ_SYS_TRANS_HALF_TOPIC, tv.RMQ_SYS_TRANS_OP_HALF_TOPIC


class Listener:
    """A TransactionListener with scripted answers; it records what it was asked."""

    def __init__(self, local=COMMIT, check=COMMIT, *, on_execute=None):
        self.local, self.check, self.on_execute = local, check, on_execute
        self.executed, self.checked = [], []

    def execute_local_transaction(self, msg, arg):
        self.executed.append((msg.transaction_id, arg))
        if self.on_execute is not None:
            self.on_execute()
        if isinstance(self.local, Exception):
            raise self.local
        return self.local

    def check_local_transaction(self, msg_ext):
        self.checked.append(msg_ext)
        if isinstance(self.check, Exception):
            raise self.check
        return self.check


class EndSpy:
    """In front of the broker's END_TRANSACTION processor: records each request, then lets it through."""

    def __init__(self, inner):
        self.inner, self.requests = inner, []

    def process_request(self, ctx, request):
        self.requests.append(request)
        return self.inner.process_request(ctx, request)

    def reject_request(self):
        return False


@pytest.fixture
def cluster(tmp_path):
    made = []

    def make(kind="sim", **kwargs):
        made.append(ClientCluster(tmp_path / f"c{len(made)}", kind, **kwargs))
        made[-1].make_topic(TOPIC, 4)
        return made[-1]

    yield make
    for c in made:
        c.close()


def tx_producer(cluster, listener, group="TXG", node=None, **settings):
    producer = TransactionMQProducer(
        group,
        cluster.client_runtime(node),
        namesrv_addr=cluster.namesrv_addr,
        transaction_listener=listener,
        **settings,
    )
    producer.start()
    cluster.producers.append(producer)
    return producer


def spy_end(cluster):
    server = cluster.brokers["broker-a"].remoting_server
    pair = server.processor_table[int(RequestCode.END_TRANSACTION)]
    spy = EndSpy(pair.processor)
    server.register_processor(RequestCode.END_TRANSACTION, spy, pair.executor)
    return spy


def queue_records(cluster, topic):
    """Every record of ``topic`` in broker-a's ConsumeQueues (all queues), as stored."""
    cluster.run_for(50)
    store = cluster.brokers["broker-a"].message_store
    found = []
    for queue_id in range(8):
        for offset in range(store.get_max_offset_in_queue(topic, queue_id)):
            found.append(store.look_message_by_offset(store.get_commit_log_offset_in_queue(topic, queue_id, offset)))
    return found


# -- the producer's side --------------------------------------------------------------------------------------------
@pytest.mark.spec("TXN-1", "TXN-2", "TXN-3")
def test_commit_sends_a_half_message_runs_the_listener_and_ends_with_a_oneway_commit(cluster):
    c = cluster()
    spy = spy_end(c)
    listener = Listener(COMMIT)
    producer = tx_producer(c, listener)
    msg = Message(TOPIC, "TagA", "order-1", b"debit 10")
    result = producer.send_message_in_transaction(msg, "arg-1")
    assert (result.send_status, result.local_transaction_state) == (SendStatus.SEND_OK, COMMIT)
    assert result.offset_msg_id is None and result.region_id is None and result.transaction_id is None
    assert listener.executed == [(msg.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX), "arg-1")]
    assert msg.get_property(mc.PROPERTY_TRANSACTION_PREPARED) == "true"
    assert msg.get_property(mc.PROPERTY_PRODUCER_GROUP) == "TXG"
    c.run_for(100)
    [request] = spy.requests
    assert request.is_oneway_rpc() and request.remark is None
    header = request.decode_command_custom_header(EndTransactionRequestHeader)
    [half] = queue_records(c, HALF)
    assert header == EndTransactionRequestHeader(
        producer_group="TXG",
        tran_state_table_offset=result.queue_offset,
        commit_log_offset=half.commit_log_offset,
        commit_or_rollback=8,
        from_transaction_check=False,
        msg_id=result.msg_id,
        transaction_id=None,
    )
    assert request.ext_fields["fromTransactionCheck"] == "false" and "transactionId" not in request.ext_fields
    [committed] = queue_records(c, TOPIC)
    assert committed.body == b"debit 10" and committed.sys_flag & 0xC == 0x8
    assert committed.queue_id == result.message_queue.queue_id
    assert [op.body for op in queue_records(c, OP)] == [b"0"]


@pytest.mark.spec("TXN-2")
def test_rollback_leaves_nothing_for_consumers(cluster):
    c = cluster()
    producer = tx_producer(c, Listener(ROLLBACK))
    result = producer.send_message_in_transaction(Message(TOPIC, body=b"nope"), None)
    assert result.local_transaction_state is ROLLBACK
    assert queue_records(c, TOPIC) == []
    assert len(queue_records(c, HALF)) == 1 and [op.body for op in queue_records(c, OP)] == [b"0"]


@pytest.mark.spec("TXN-2")
def test_an_exception_in_the_local_transaction_is_unknow_with_a_remark(cluster):
    c = cluster()
    spy = spy_end(c)
    producer = tx_producer(c, Listener(RuntimeError("db down")))
    result = producer.send_message_in_transaction(Message(TOPIC, body=b"x"), None)
    assert result.local_transaction_state is UNKNOW
    c.run_for(100)
    [request] = spy.requests
    assert request.remark == "executeLocalTransactionBranch exception: RuntimeError: db down"
    assert request.decode_command_custom_header(EndTransactionRequestHeader).commit_or_rollback == 0
    assert queue_records(c, TOPIC) == [] and queue_records(c, OP) == []


@pytest.mark.spec("TXN-1")
def test_a_listener_is_required_and_a_delay_is_dropped(cluster):
    c = cluster()
    producer = tx_producer(c, None)
    with pytest.raises(MQClientException, match="TransactionListener is null"):
        producer.send_message_in_transaction(Message(TOPIC, body=b"x"), None)
    with pytest.raises(MQClientException, match="tranExecutor is null"):
        producer.default_mq_producer_impl.send_message_in_transaction(Message(TOPIC, body=b"x"))
    producer.transaction_listener = Listener(COMMIT)
    msg = Message(TOPIC, body=b"later")
    msg.set_delay_time_level(3)
    producer.send_message_in_transaction(msg, None)
    assert msg.get_property(mc.PROPERTY_DELAY_TIME_LEVEL) is None
    [committed] = queue_records(c, TOPIC)  # delivered now, not through SCHEDULE_TOPIC_XXXX
    assert committed.get_property(mc.PROPERTY_DELAY_TIME_LEVEL) is None


@pytest.mark.spec("TXN-1")
def test_a_half_message_that_cannot_be_sent_raises_and_ends_nothing(cluster):
    c = cluster()
    spy = spy_end(c)
    producer = tx_producer(c, Listener(COMMIT), send_msg_timeout=500, retry_times_when_send_failed=0)
    c.world.network.kill("broker-a")
    with pytest.raises(MQClientException, match="send message Exception"):
        producer.send_message_in_transaction(Message(TOPIC, body=b"x"), None)
    assert spy.requests == []


# -- the broker's check ----------------------------------------------------------------------------------------------
@pytest.mark.spec("TXN-4", "TXN-10", "TXN-12")
def test_unknow_is_resolved_by_the_check_after_the_timeout(cluster):
    c = cluster()
    spy = spy_end(c)
    listener = Listener(UNKNOW, COMMIT)
    producer = tx_producer(c, listener)
    result = producer.send_message_in_transaction(Message(TOPIC, "TagA", "order-2", b"credit 5"), None)
    assert result.local_transaction_state is UNKNOW
    c.run_for(30_000)
    assert listener.checked == [] and queue_records(c, TOPIC) == []
    c.run_for(35_000)  # the first check round, 60 s after the broker started; the message is older than 6 s
    [checked] = listener.checked
    assert (checked.topic, checked.queue_id) == (TOPIC, result.message_queue.queue_id)
    assert checked.transaction_id == result.msg_id
    assert checked.get_property(mc.PROPERTY_TRANSACTION_CHECK_TIMES) == "1"
    answer = spy.requests[-1].decode_command_custom_header(EndTransactionRequestHeader)
    assert (answer.from_transaction_check, answer.commit_or_rollback, answer.msg_id) == (True, 8, result.msg_id)
    assert answer.tran_state_table_offset == 1  # the copy the check made, not the original half offset 0
    assert answer.commit_log_offset == checked.commit_log_offset
    assert answer.transaction_id == result.msg_id
    [committed] = queue_records(c, TOPIC)
    assert committed.body == b"credit 5"
    assert committed.get_property(mc.PROPERTY_TRANSACTION_CHECK_TIMES) == "1"
    c.run_for(60_000)
    assert len(listener.checked) == 1  # the op message retired the copy: no second check


@pytest.mark.spec("TXN-4")
def test_a_check_answered_with_an_exception_is_unknow_and_asked_again(cluster):
    c = cluster(broker={"transaction_check_interval": 10_000})
    spy = spy_end(c)
    listener = Listener(UNKNOW, ValueError("no record"))
    tx_producer(c, listener).send_message_in_transaction(Message(TOPIC, body=b"x"), None)
    c.run_for(21_000)
    assert len(listener.checked) == 2
    answers = [
        r for r in spy.requests if r.decode_command_custom_header(EndTransactionRequestHeader).from_transaction_check
    ]
    # RemotingHelper#exceptionSimpleDesc: the exception, then where it was raised
    prefix = "checkLocalTransactionState Exception: ValueError: no record, "
    assert len(answers) == 2 and all(r.remark.startswith(prefix) for r in answers)
    assert "check_local_transaction" in answers[0].remark
    assert [m.get_property(mc.PROPERTY_TRANSACTION_CHECK_TIMES) for m in listener.checked] == ["1", "2"]
    assert queue_records(c, TOPIC) == []


@pytest.mark.spec("TXN-4", "TXN-12")
def test_a_producer_that_dies_before_ending_is_covered_by_another_producer_of_the_group(cluster):
    c = cluster(broker={"transaction_check_interval": 10_000})
    spy = spy_end(c)
    survivor_listener = Listener(COMMIT, COMMIT)
    tx_producer(c, survivor_listener, node="survivor")

    def crash():  # the local transaction commits, then the process dies before END_TRANSACTION leaves
        c.world.network.kill("doomed")

    doomed_listener = Listener(COMMIT, COMMIT, on_execute=crash)
    doomed = tx_producer(c, doomed_listener, node="doomed")
    result = doomed.send_message_in_transaction(Message(TOPIC, body=b"paid"), None)
    assert result.local_transaction_state is COMMIT  # what the dying producer believed
    c.run_for(5_000)
    assert spy.requests == [] and queue_records(c, TOPIC) == []
    group = c.brokers["broker-a"].producer_manager.group_channel_table["TXG"]
    assert len(group) == 1  # the broker saw the dead producer's connection close
    c.run_for(10_000)
    assert doomed_listener.checked == [] and len(survivor_listener.checked) == 1
    [committed] = queue_records(c, TOPIC)
    assert committed.body == b"paid"


@pytest.mark.spec("TXN-13")
def test_with_no_producer_left_the_message_is_discarded_after_the_maximum_checks(cluster):
    c = cluster(broker={"transaction_check_interval": 10_000, "transaction_check_max": 2})
    producer = tx_producer(c, Listener(UNKNOW, UNKNOW))
    result = producer.send_message_in_transaction(Message(TOPIC, body=b"orphan"), None)
    producer.shutdown()
    c.producers.remove(producer)
    c.run_for(45_000)
    [discarded] = queue_records(c, tv.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC)
    assert discarded.body == b"orphan" and discarded.get_property(mc.PROPERTY_TRANSACTION_CHECK_TIMES) == "2"
    assert discarded.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX) == result.msg_id
    assert queue_records(c, TOPIC) == []
    half_offset = c.brokers["broker-a"].consumer_offset_manager.query_offset("CID_RMQ_SYS_TRANS", HALF, 0)
    assert half_offset == len(queue_records(c, HALF)) == 3  # the original and two copies, all passed


def test_the_check_executor_refuses_beyond_its_queue(cluster):
    c = cluster()
    runtime = c.client_runtime()
    executor = CheckExecutor(runtime.scheduler.new_executor("t", 1), 1, 2)
    ran = []
    for i in range(3):
        executor.submit(lambda i=i: ran.append(i))
    with pytest.raises(RejectedExecutionError):
        executor.submit(lambda: ran.append(9))
    c.run_for(10)
    assert ran == [0, 1, 2] and executor.waiting == 0
    executor.submit(lambda: ran.append(3))
    c.run_for(10)
    assert ran == [0, 1, 2, 3]


# -- real threads and loopback TCP ----------------------------------------------------------------------------------
@pytest.mark.spec("TXN-15")
def test_commit_over_loopback_tcp(cluster):
    c = cluster("tcp")
    listener = Listener(COMMIT)
    producer = tx_producer(c, listener)
    result = producer.send_message_in_transaction(Message(TOPIC, "TagA", "tcp-1", b"over tcp"), None)
    assert (result.send_status, result.local_transaction_state) == (SendStatus.SEND_OK, COMMIT)
    assert c.wait_until(lambda: len(queue_records(c, TOPIC)) == 1, 5000)
    [committed] = queue_records(c, TOPIC)
    assert committed.body == b"over tcp" and committed.sys_flag & 0xC == 0x8
    half_id = decode_message_id(committed.msg_id)
    assert committed.prepared_transaction_offset == queue_records(c, HALF)[0].commit_log_offset
    assert half_id.address.host == "127.0.0.1"
    assert c.wait_until(lambda: [op.body for op in queue_records(c, OP)] == [b"0"], 5000)


@pytest.mark.spec("TXN-4", "TXN-6", "TXN-12", "TXN-14")
def test_rollback_and_a_check_that_commits_over_loopback_tcp(cluster):
    c = cluster("tcp", broker={"transaction_check_interval": 1000, "transaction_time_out": 1000})
    rolled_back = tx_producer(c, Listener(ROLLBACK), group="TXR", node="rollback")
    result = rolled_back.send_message_in_transaction(Message(TOPIC, "TagA", "tcp-r", b"rolled back"), None)
    assert (result.send_status, result.local_transaction_state) == (SendStatus.SEND_OK, ROLLBACK)
    undecided = Listener(UNKNOW, COMMIT)  # the local transaction cannot tell yet; the broker's check will ask
    checked = tx_producer(c, undecided, group="TXC", node="checked")
    result = checked.send_message_in_transaction(Message(TOPIC, "TagA", "tcp-c", b"decided later"), None)
    assert result.local_transaction_state is UNKNOW
    assert c.wait_until(lambda: len(undecided.checked) >= 1, 15_000)  # CHECK_TRANSACTION_STATE over TCP
    assert undecided.checked[0].get_property(mc.PROPERTY_TRANSACTION_CHECK_TIMES) == "1"
    assert c.wait_until(lambda: [r.body for r in queue_records(c, TOPIC)] == [b"decided later"], 10_000)
    assert c.wait_until(lambda: len(queue_records(c, OP)) == 2, 10_000)  # one op for the rollback, one for the commit

"""Transactional messages on the broker, driven by a raw client: half messages, END_TRANSACTION, the check.

Every stored record is read back as bytes and decoded with the record layout, so the sysflags, properties strings,
topics and queue ids are those 4.9.3 writes.
"""

from __future__ import annotations

import struct

import pytest

from mqlab.broker.broker_controller import BrokerController
from mqlab.chaos import broken
from mqlab.common.message import message_const as mc
from mqlab.common.message import message_decoder
from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message_decoder import decode_message_id
from mqlab.common.protocol.header.check_transaction_state_request_header import CheckTransactionStateRequestHeader
from mqlab.common.protocol.header.end_transaction_request_header import EndTransactionRequestHeader
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.common.topic import topic_validator as tv
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.config.message_store_config import MessageStoreConfig
from tests.broker.cluster import BROKER_IP, SIM_BROKER_PORT

HALF, OP, DISCARD = tv.RMQ_SYS_TRANS_HALF_TOPIC, tv.RMQ_SYS_TRANS_OP_HALF_TOPIC, tv.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC
GROUP = "TXG"
COMMIT, ROLLBACK, UNKNOWN = 8, 12, 0
PREPARED = int(MessageSysFlag.TRANSACTION_PREPARED_TYPE)
TRAN_MASK = int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE)


# -- helpers ----------------------------------------------------------------------------------------------------
def half_message(client, body=b"half", tags="TagA", keys="k1", group=GROUP):
    msg = client.message("TopicTest", body, tags=tags, keys=keys)
    msg.put_property(mc.PROPERTY_TRANSACTION_PREPARED, "true")
    msg.put_property(mc.PROPERTY_PRODUCER_GROUP, group)
    return msg


def send_half(client, queue_id=2, **kwargs):
    """A half message as DefaultMQProducerImpl sends it (TRAN_MSG, PGROUP, sysflag 0x4); (msg, response)."""
    msg = half_message(client, **kwargs)
    response = client.send(msg, queue_id, sys_flag=PREPARED)
    assert response.code == ResponseCode.SUCCESS, response.remark
    return msg, response


def end_header(response, state, *, group=GROUP, from_check=False, **overrides):
    header = EndTransactionRequestHeader(
        producer_group=group,
        tran_state_table_offset=int(response.ext_fields["queueOffset"]),
        commit_log_offset=decode_message_id(response.ext_fields["msgId"]).offset,
        commit_or_rollback=state,
        from_transaction_check=from_check,
        msg_id=response.ext_fields["msgId"],
    )
    for name, value in overrides.items():
        setattr(header, name, value)
    return header


def end(client, header, remark=None):
    request = client.request(RequestCode.END_TRANSACTION, header)
    request.remark = remark
    return client.remoting.invoke_sync(client.broker_addr, request, 3000)


def records(cluster, topic, queue_id=0):
    """(raw record, decoded message, ConsumeQueue unit) of every ConsumeQueue entry of a queue."""
    cluster.run_for(50)
    store = cluster.controller.message_store
    found = []
    queue = store.find_consume_queue(topic, queue_id)
    for offset in range(queue.get_min_offset_in_queue(), queue.get_max_offset_in_queue()):
        unit = struct.unpack(">qiq", queue.get_index_buffer(offset).data[:20])
        data = store.select_one_message_by_offset(unit[0], unit[1]).data
        found.append((layout.decode_raw(data), message_decoder.decode(data), unit))
    return found


def keys_of(raw):
    """The property names of a stored properties string, in stored order."""
    return [pair.split("\x01")[0] for pair in raw.properties.decode().split("\x02")]


# -- half messages ----------------------------------------------------------------------------------------------
@pytest.mark.spec("TXN-5")
def test_a_half_message_is_stored_in_the_half_topic_queue_0_with_its_real_topic_and_queue(cluster):
    client = cluster.client()
    _, response = send_half(client, queue_id=2)
    header = response.ext_fields
    assert (header["queueId"], header["queueOffset"]) == ("2", "0")  # the real queue, the half queue's offset
    assert "transactionId" not in header  # never set by a 4.9.3 broker
    [(raw, stored, unit)] = records(cluster, HALF)
    assert (raw.topic, raw.queue_id, raw.queue_offset) == (HALF.encode(), 0, 0)
    assert raw.sys_flag & TRAN_MASK == 0  # TRANSACTION_NOT_TYPE: dispatched like a normal message
    assert raw.physical_offset == decode_message_id(header["msgId"]).offset
    assert raw.prepared_transaction_offset == 0
    assert keys_of(raw) == [
        "REAL_TOPIC",
        "KEYS",
        "TRAN_MSG",
        "UNIQ_KEY",
        "CLUSTER",
        "PGROUP",
        "WAIT",
        "TAGS",
        "REAL_QID",
    ]  # WAIT is back in the string: the half message's properties are serialised again from the map
    assert (stored.get_property("REAL_TOPIC"), stored.get_property("REAL_QID")) == ("TopicTest", "2")
    assert stored.get_property(mc.PROPERTY_WAIT_STORE_MSG_OK) == "true"
    assert unit[2] == java_hash("TagA")  # the ConsumeQueue unit carries the tags code
    # nothing for consumers: the real topic's queues are empty, and no topic config was made for the half topic
    store = cluster.controller.message_store
    assert all(store.get_max_offset_in_queue("TopicTest", q) == 0 for q in range(4))
    assert cluster.controller.topic_config_manager.select_topic_config(HALF) is None


def java_hash(text: str) -> int:
    h = 0
    for ch in text:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


@pytest.mark.spec("TXN-5")
def test_the_branch_keys_on_the_property_not_on_sysflag_0x4(cluster):
    client = cluster.client()
    msg = client.message("TopicTest", b"prepared", tags="TagA")
    response = client.send(msg, 1, sys_flag=PREPARED)
    assert (response.code, response.ext_fields["queueOffset"]) == (ResponseCode.SUCCESS, "0")
    cluster.run_for(50)
    store = cluster.controller.message_store
    # stored in the real topic as a PREPARED record: queue offset 0, not in the ConsumeQueue, but indexed
    assert store.get_max_offset_in_queue("TopicTest", 1) == 0
    raw = layout.decode_raw(store.select_one_message_by_offset(0).data)
    assert (raw.topic, raw.sys_flag & TRAN_MASK, raw.queue_offset) == (b"TopicTest", PREPARED, 0)
    assert store.get_max_offset_in_queue(HALF, 0) == 0


# -- END_TRANSACTION ----------------------------------------------------------------------------------------------
@pytest.mark.spec("TXN-6", "TXN-7")
def test_commit_stores_a_commit_record_in_the_real_queue_and_an_op_message(cluster):
    client = cluster.client()
    _, response = send_half(client, queue_id=2)
    [(half_raw, _, _)] = records(cluster, HALF)
    answer = end(client, end_header(response, COMMIT))
    assert (answer.code, answer.remark) == (ResponseCode.SUCCESS, None)
    [(raw, stored, unit)] = records(cluster, "TopicTest", 2)
    assert (raw.topic, raw.queue_id, raw.queue_offset) == (b"TopicTest", 2, 0)
    assert raw.sys_flag & TRAN_MASK == int(MessageSysFlag.TRANSACTION_COMMIT_TYPE)
    assert raw.prepared_transaction_offset == half_raw.physical_offset
    assert (raw.body, raw.born_timestamp, raw.born_host) == (half_raw.body, half_raw.born_timestamp, half_raw.born_host)
    # serialised before REAL_TOPIC / REAL_QID / TRAN_MSG were removed from the map: all still stored
    assert raw.properties == half_raw.properties
    assert stored.get_property(mc.PROPERTY_TRANSACTION_PREPARED) == "true"
    assert unit[2] == java_hash("TagA")  # recomputed from TAGS at dispatch
    [(op_raw, op, op_unit)] = records(cluster, OP)
    assert (op_raw.topic, op_raw.queue_id, op_raw.queue_offset, op_raw.body) == (OP.encode(), 0, 0, b"0")
    assert (op_raw.sys_flag, op_raw.flag, op_unit[2]) == (0, 0, 100)  # "d".hashCode()
    assert op_raw.properties == b"WAIT\x01true\x02TAGS\x01d"  # no UNIQ_KEY, WAIT=false never stored
    broker_host = f"{BROKER_IP}:{SIM_BROKER_PORT}"
    assert str(op.born_host) == str(op.store_host) == broker_host


@pytest.mark.spec("TXN-7")
def test_rollback_writes_only_the_op_message(cluster):
    client = cluster.client()
    _, response = send_half(client, queue_id=1)
    answer = end(client, end_header(response, ROLLBACK), remark="local rollback")
    # Java builds the answer with createResponseCommand(null) and only sets the code: the default remark stays
    assert (answer.code, answer.remark) == (ResponseCode.SUCCESS, "not set any response code")
    assert records(cluster, "TopicTest", 1) == []
    [(op_raw, _, _)] = records(cluster, OP)
    assert op_raw.body == b"0"
    store = cluster.controller.message_store
    assert store.get_max_phy_offset() == sum(r[0].total_size for r in records(cluster, HALF) + records(cluster, OP))


@pytest.mark.spec("TXN-6")
def test_unknown_state_changes_nothing_and_gets_no_answer(cluster):
    client = cluster.client()
    _, response = send_half(client)
    before = cluster.controller.message_store.get_max_phy_offset()
    for from_check in (False, True):
        request = client.request(RequestCode.END_TRANSACTION, end_header(response, UNKNOWN, from_check=from_check))
        client.remoting.invoke_oneway(client.broker_addr, request, 3000)
    cluster.run_for(100)
    assert cluster.controller.message_store.get_max_phy_offset() == before
    assert any(
        e.component == "EndTransactionProcessor" and e.fields.get("state") == "UNKNOW" for e in cluster.world.trace
    )


@pytest.mark.spec("TXN-8")
def test_end_transaction_checks_group_queue_offset_and_commitlog_offset_in_that_order(cluster):
    client = cluster.client()
    _, response = send_half(client)
    cases = [
        ({"producer_group": "OTHER", "tran_state_table_offset": 9}, "The producer group wrong"),
        ({"tran_state_table_offset": 9}, "The transaction state table offset wrong"),
        ({"commit_log_offset": 7}, "Find prepared transaction message failed"),  # not the start of a record
        ({"commit_log_offset": 10_000_000}, "Find prepared transaction message failed"),
    ]
    for overrides, remark in cases:
        for state in (COMMIT, ROLLBACK):
            answer = end(client, end_header(response, state, **overrides))
            assert (answer.code, answer.remark) == (ResponseCode.SYSTEM_ERROR, remark)
    # a second half message: pointing the offsets of one at the other fails on the commitlog offset
    _, second = send_half(client)
    wrong = end_header(response, COMMIT, tran_state_table_offset=0)
    wrong.commit_log_offset = decode_message_id(second.ext_fields["msgId"]).offset
    answer = end(client, wrong)
    assert (answer.code, answer.remark) == (ResponseCode.SYSTEM_ERROR, "The transaction state table offset wrong")
    header = end_header(second, COMMIT, tran_state_table_offset=1)
    header.commit_log_offset = decode_message_id(second.ext_fields["msgId"]).offset
    assert end(client, header).code == ResponseCode.SUCCESS
    assert [r[1].body for r in records(cluster, "TopicTest", 2)] == [b"half"]  # only the good commit


@pytest.mark.spec("TXN-8")
def test_a_commit_or_rollback_value_outside_0_8_12_is_refused_by_the_header(cluster):
    client = cluster.client()
    _, response = send_half(client)
    answer = end(client, end_header(response, 4))
    assert answer.code == ResponseCode.SYSTEM_ERROR
    assert "commitOrRollback field wrong" in answer.remark
    with pytest.raises(Exception, match="commitOrRollback field wrong"):
        EndTransactionRequestHeader(commit_or_rollback=5).check_fields()


@pytest.mark.spec("TXN-8")
def test_a_slave_refuses_end_transaction(make_cluster):
    cluster = make_cluster(store={"broker_role": BrokerRole.SLAVE})
    client = cluster.client()
    header = EndTransactionRequestHeader(GROUP, 0, 0, COMMIT, False, "X")
    assert end(client, header).code == ResponseCode.SLAVE_NOT_AVAILABLE
    assert cluster.controller.transactional_message_check_service._started is False


@pytest.mark.spec("TXN-9", "TXN-20")
def test_4_9_3_stores_another_copy_for_every_commit_that_passes_its_checks(cluster):
    client = cluster.client()
    _, response = send_half(client)
    with broken.variant("trust-end-transaction"):  # 4.9.3's processor: no record of what was resolved
        for _ in range(2):
            assert end(client, end_header(response, COMMIT)).code == ResponseCode.SUCCESS
    assert [r[0].queue_offset for r in records(cluster, "TopicTest", 2)] == [0, 1]
    assert [r[0].body for r in records(cluster, OP)] == [b"0", b"0"]


# -- END_TRANSACTION hardening: only an unresolved half message, only into a queue that exists --------------------
MISSING = (ResponseCode.SYSTEM_ERROR, "Find prepared transaction message failed")  # 4.9.3's "no half message"


def forged_normal_message(client, real_topic, real_qid, *, group=GROUP):
    """A normal message carrying the properties a half message has; (response, its END_TRANSACTION header)."""
    msg = client.message("TopicTest", b"forged", tags="TagA")
    msg.put_property(mc.PROPERTY_REAL_TOPIC, real_topic)
    msg.put_property(mc.PROPERTY_REAL_QUEUE_ID, str(real_qid))
    msg.put_property(mc.PROPERTY_PRODUCER_GROUP, group)
    response = client.send(msg, 1)
    assert response.code == ResponseCode.SUCCESS
    return response


@pytest.mark.spec("TXN-17")
@pytest.mark.parametrize(
    ("real_topic", "real_qid", "group"),
    [("SCHEDULE_TOPIC_XXXX", 0, GROUP), ("TopicTest", 999, GROUP), ("TopicTest", 0, "OTHER")],
)
def test_a_commit_naming_a_normal_message_is_refused_and_writes_nothing(cluster, real_topic, real_qid, group):
    client = cluster.client()
    response = forged_normal_message(client, real_topic, real_qid, group=group)
    cluster.run_for(50)
    store = cluster.controller.message_store
    before = store.get_max_phy_offset()
    for state in (COMMIT, ROLLBACK):
        answer = end(client, end_header(response, state, group=group))
        assert (answer.code, answer.remark) == MISSING
    cluster.run_for(50)
    assert store.get_max_phy_offset() == before  # nothing written anywhere: no copy, no op message
    assert store.get_max_offset_in_queue(real_topic, real_qid) == 0
    assert records(cluster, OP) == []


@pytest.mark.spec("TXN-8", "TXN-17")
def test_a_half_message_of_another_producer_group_is_refused_as_4_9_3_refuses_it(cluster):
    client = cluster.client()
    _, response = send_half(client)
    before = cluster.controller.message_store.get_max_phy_offset()
    answer = end(client, end_header(response, COMMIT, group="OTHER"))
    assert (answer.code, answer.remark) == (ResponseCode.SYSTEM_ERROR, "The producer group wrong")
    cluster.run_for(50)
    assert cluster.controller.message_store.get_max_phy_offset() == before


@pytest.mark.spec("TXN-18")
def test_a_commit_into_a_queue_the_real_topic_no_longer_has_is_refused(cluster):
    client = cluster.client()
    _, response = send_half(client, queue_id=3)
    topics = cluster.controller.topic_config_manager
    config = topics.select_topic_config("TopicTest")
    config.write_queue_nums = config.read_queue_nums = 2  # the topic shrank after the half message was stored
    before = cluster.controller.message_store.get_max_phy_offset()
    answer = end(client, end_header(response, COMMIT))
    assert (answer.code, answer.remark) == MISSING
    cluster.run_for(50)
    assert cluster.controller.message_store.get_max_phy_offset() == before
    assert cluster.controller.message_store.get_max_offset_in_queue("TopicTest", 3) == 0
    # the half message stays unresolved: the check asks again, and a rollback still retires it
    assert end(client, end_header(response, ROLLBACK)).code == ResponseCode.SUCCESS
    assert [r[0].body for r in records(cluster, OP)] == [b"0"]


@pytest.mark.spec("TXN-19")
@pytest.mark.parametrize(
    ("first", "second"), [(COMMIT, COMMIT), (ROLLBACK, COMMIT), (COMMIT, ROLLBACK), (ROLLBACK, ROLLBACK)]
)
def test_a_half_message_is_resolved_once(cluster, first, second):
    client = cluster.client()
    _, response = send_half(client)
    assert end(client, end_header(response, first)).code == ResponseCode.SUCCESS
    cluster.run_for(50)
    before = cluster.controller.message_store.get_max_phy_offset()
    answer = end(client, end_header(response, second, from_check=True))
    assert (answer.code, answer.remark) == MISSING
    cluster.run_for(50)
    assert cluster.controller.message_store.get_max_phy_offset() == before  # a no-op
    assert len(records(cluster, "TopicTest", 2)) == (1 if first == COMMIT else 0)
    assert [r[0].body for r in records(cluster, OP)] == [b"0"]


@pytest.mark.spec("TXN-19")
def test_two_commits_arriving_back_to_back_store_one_copy(cluster):
    client = cluster.client()
    _, response = send_half(client)
    header = end_header(response, COMMIT)
    for _ in range(2):  # both queued before either ran: the op message is not yet in the op ConsumeQueue
        request = client.request(RequestCode.END_TRANSACTION, header)
        client.remoting.invoke_oneway(client.broker_addr, request, 3000)
    cluster.run_for(100)
    assert len(records(cluster, "TopicTest", 2)) == 1
    assert [r[0].body for r in records(cluster, OP)] == [b"0"]


@pytest.mark.spec("TXN-19")
def test_a_late_commit_of_the_original_after_its_check_copy_was_committed_is_refused(cluster):
    client, _ = producer_client(cluster)
    _, response = send_half(client, queue_id=3)
    cluster.run_for(7_000)
    assert check_once(cluster).checked == [0]  # copy at half offset 1
    [_, (copy_raw, _, _)] = records(cluster, HALF)
    from_check = end_header(
        response, COMMIT, from_check=True, tran_state_table_offset=1, commit_log_offset=copy_raw.physical_offset
    )
    assert end(client, from_check).code == ResponseCode.SUCCESS
    answer = end(client, end_header(response, COMMIT))  # the producer's own oneway commit, delayed until now
    assert (answer.code, answer.remark) == MISSING
    assert len(records(cluster, "TopicTest", 3)) == 1


@pytest.mark.spec("TXN-19")
def test_what_was_resolved_survives_a_broker_restart(make_cluster):
    cluster = make_cluster()
    client = cluster.client()
    _, committed = send_half(client)
    _, rolled_back = send_half(client, queue_id=1)
    _, open_one = send_half(client, queue_id=0)
    assert end(client, end_header(committed, COMMIT)).code == ResponseCode.SUCCESS
    assert end(client, end_header(rolled_back, ROLLBACK)).code == ResponseCode.SUCCESS
    cluster.run_for(100)
    cluster.controller.shutdown()
    again = BrokerController(
        cluster.broker_config,
        NettyServerConfig(listen_port=SIM_BROKER_PORT),
        NettyClientConfig(),
        MessageStoreConfig.under(str(cluster.tmp_path / "store"), **cluster.store_settings),
        cluster.broker_rt,
        listen_host=cluster.listen_host,
    )
    assert again.initialize()
    again.start()
    cluster.controller = again
    client = cluster.client("client-2", "10.0.0.4")
    for response in (committed, rolled_back):
        for state in (COMMIT, ROLLBACK):
            answer = end(client, end_header(response, state))
            assert (answer.code, answer.remark) == MISSING
    assert end(client, end_header(open_one, COMMIT)).code == ResponseCode.SUCCESS  # unresolved: still accepted
    assert len(records(cluster, "TopicTest", 2)) == 1 and records(cluster, "TopicTest", 1) == []
    assert [r[0].body for r in records(cluster, OP)] == [b"0", b"1", b"2"]


@pytest.mark.spec("TXN-5")
def test_reject_transaction_message_refuses_before_storing(make_cluster):
    cluster = make_cluster(broker={"reject_transaction_message": True})
    response = cluster.client().send(half_message(cluster.client("c2", "10.0.0.4")), 0, sys_flag=PREPARED)
    assert response.code == ResponseCode.NO_PERMISSION
    assert cluster.controller.message_store.get_max_phy_offset() == 0


# -- the check ----------------------------------------------------------------------------------------------------
class CheckRecorder:
    """A producer-side processor that records CHECK_TRANSACTION_STATE requests (and answers nothing)."""

    def __init__(self, runtime):
        self.runtime = runtime
        self.requests = []

    def process_request(self, ctx, request):
        self.requests.append((self.runtime.now_ms(), request))
        return None

    def reject_request(self):
        return False


def producer_client(cluster, node="producer", ip="10.0.0.5"):
    client = cluster.client(node, ip)
    recorder = CheckRecorder(client.runtime)
    client.remoting.register_processor(RequestCode.CHECK_TRANSACTION_STATE, recorder)
    assert client.heartbeat(producer=GROUP).code == ResponseCode.SUCCESS
    return client, recorder


def check_once(cluster):
    controller = cluster.controller
    summary = controller.transactional_message_check_service.run_once()
    cluster.run_for(50)
    return summary


@pytest.mark.spec("TXN-10", "TXN-12")
def test_the_check_copies_an_old_half_message_and_asks_a_producer_of_its_group(cluster):
    client, recorder = producer_client(cluster)
    _, response = send_half(client, queue_id=3)
    cluster.run_for(50)
    assert check_once(cluster).checked == []  # younger than transactionTimeOut (6 s): the walk stops
    cluster.run_for(6_000)
    summary = check_once(cluster)
    assert (summary.checked, summary.half_offset) == ([0], (0, 1))
    [(raw0, _, _), (raw1, copy, _)] = records(cluster, HALF)
    assert raw1.queue_offset == 1 and raw1.flag == 0 and raw1.sys_flag & TRAN_MASK == 0
    assert copy.get_property(mc.PROPERTY_TRANSACTION_CHECK_TIMES) == "1"
    assert mc.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET not in copy.properties
    assert raw1.born_timestamp == raw0.born_timestamp
    [(_, request)] = recorder.requests
    assert request.code == RequestCode.CHECK_TRANSACTION_STATE and request.is_oneway_rpc()
    header = request.decode_command_custom_header(CheckTransactionStateRequestHeader)
    uniq = copy.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
    assert header == CheckTransactionStateRequestHeader(1, raw1.physical_offset, uniq, uniq, copy.msg_id)
    body = message_decoder.decode(request.body)
    assert (body.topic, body.queue_id, body.queue_offset, body.commit_log_offset) == (
        "TopicTest",
        3,
        1,
        raw1.physical_offset,
    )
    assert body.get_property(mc.PROPERTY_WAIT_STORE_MSG_OK) == "false"  # put into the shared map after the copy
    # the group's offsets are ordinary consumer offsets of CID_RMQ_SYS_TRANS
    offsets = cluster.controller.consumer_offset_manager
    assert offsets.query_offset("CID_RMQ_SYS_TRANS", HALF, 0) == 1
    assert cluster.controller.topic_config_manager.select_topic_config(HALF).perm == 6
    # the producer answers (fromTransactionCheck) with the copy's offsets: committed, then retired by the op queue
    answer = end(
        client,
        end_header(
            response, COMMIT, from_check=True, tran_state_table_offset=1, commit_log_offset=raw1.physical_offset
        ),
    )
    assert answer.code == ResponseCode.SUCCESS
    assert [r[0].body for r in records(cluster, OP)] == [b"1"]
    summary = check_once(cluster)
    assert (summary.done, summary.half_offset, summary.op_offset) == ([1], (1, 2), (0, 1))
    assert [r[1].get_property("TRANSACTION_CHECK_TIMES") for r in records(cluster, "TopicTest", 3)] == ["1"]


@pytest.mark.spec("TXN-11")
def test_an_op_message_retires_the_half_offset_without_a_check(cluster):
    client, recorder = producer_client(cluster)
    _, response = send_half(client)
    assert end(client, end_header(response, ROLLBACK)).code == ResponseCode.SUCCESS
    cluster.run_for(10_000)
    summary = check_once(cluster)
    assert (summary.checked, summary.done, summary.half_offset, summary.op_offset) == ([], [0], (0, 1), (0, 1))
    assert recorder.requests == []
    assert check_once(cluster).half_offset is None  # nothing new: the offsets stay


@pytest.mark.spec("TXN-13")
def test_without_any_producer_the_message_is_checked_until_the_maximum_then_discarded(make_cluster):
    cluster = make_cluster(broker={"transaction_check_max": 3})
    client = cluster.client()
    send_half(client)
    times = []
    for _ in range(5):
        cluster.run_for(7_000)
        summary = check_once(cluster)
        times.append((summary.checked, summary.discarded))
    # three checks (counts 1, 2, 3), each on the newest copy; the fourth encounter discards; then nothing left
    assert times == [([0], []), ([1], []), ([2], []), ([], [3]), ([], [])]
    [(raw, moved, _)] = records(cluster, DISCARD)
    assert (raw.topic, raw.queue_id) == (DISCARD.encode(), 0)
    assert moved.get_property(mc.PROPERTY_TRANSACTION_CHECK_TIMES) == "3"
    assert moved.get_property(mc.PROPERTY_REAL_TOPIC) == "TopicTest"
    assert moved.get_property(mc.PROPERTY_TRANSACTION_PREPARED) == "true"
    config = cluster.controller.topic_config_manager.select_topic_config(DISCARD)
    assert (config.read_queue_nums, config.write_queue_nums, config.perm) == (1, 1, 6)
    assert records(cluster, OP) == []  # a discard writes no op message
    assert records(cluster, "TopicTest", 2) == []


@pytest.mark.spec("TXN-12")
def test_the_immunity_property_delays_the_check_with_copies_pointing_at_the_original(cluster):
    client, recorder = producer_client(cluster)
    msg = half_message(client)
    msg.put_user_property(mc.PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS, "20")
    assert client.send(msg, 0, sys_flag=PREPARED).code == ResponseCode.SUCCESS
    cluster.run_for(7_000)
    summary = check_once(cluster)  # 7 s old, immune for 20 s: an immunity copy, no check
    assert (summary.checked, summary.half_offset) == ([], (0, 1))
    [_, (_, copy, _)] = records(cluster, HALF)
    assert copy.get_property(mc.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET) == "0"
    assert copy.get_property(mc.PROPERTY_WAIT_STORE_MSG_OK) == "false"
    cluster.run_for(7_000)
    check_once(cluster)  # 14 s: another copy, still pointing at offset 0
    assert records(cluster, HALF)[-1][1].get_property(mc.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET) == "0"
    assert recorder.requests == []
    cluster.run_for(7_000)
    assert check_once(cluster).checked == [2]  # 21 s: past the immunity time, checked
    assert len(recorder.requests) == 1


@pytest.mark.spec("TXN-12")
def test_an_answer_for_the_original_retires_an_immunity_copy(cluster):
    client, _ = producer_client(cluster)
    msg = half_message(client)
    msg.put_user_property(mc.PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS, "30")
    response = client.send(msg, 0, sys_flag=PREPARED)
    cluster.run_for(7_000)
    check_once(cluster)  # copy at offset 1 with TRAN_PREPARED_QUEUE_OFFSET=0
    assert end(client, end_header(response, COMMIT)).code == ResponseCode.SUCCESS  # op body "0"
    cluster.run_for(1_000)
    summary = check_once(cluster)
    assert (summary.checked, summary.half_offset, summary.op_offset) == ([], (1, 2), (0, 1))


@pytest.mark.spec("TXN-14")
def test_the_service_checks_every_interval_read_once_at_start(make_cluster):
    cluster = make_cluster(broker={"transaction_check_interval": 10_000})
    service = cluster.controller.transactional_message_check_service
    cluster.controller.broker_config.transaction_check_interval = 1_000  # too late: read at start
    cluster.run_for(35_000)
    mine = [e for e in cluster.world.trace if e.component == service.get_service_name()]
    started = next(e.time_ms for e in mine if e.event == "start")
    rounds = [e.time_ms - started for e in mine if e.event == "checkBegin"]
    assert rounds == [10_000, 20_000, 30_000]
    assert service.wait_interval_ms() == 10_000


@pytest.mark.spec("TXN-14")
def test_the_check_answers_on_the_round_it_finds_an_old_message(make_cluster):
    cluster = make_cluster(broker={"transaction_check_interval": 10_000, "transaction_time_out": 3_000})
    client, recorder = producer_client(cluster)
    send_half(client)
    cluster.run_for(10_500)
    assert len(recorder.requests) == 1  # first round at 10 s, message 10 s old > 3 s


@pytest.mark.spec("TXN-12")
def test_a_producer_channel_is_picked_round_robin_among_the_open_ones(cluster):
    first, rec1 = producer_client(cluster, "p1", "10.0.0.5")
    _, rec2 = producer_client(cluster, "p2", "10.0.0.6")
    for _ in range(2):
        send_half(first)
    cluster.run_for(7_000)
    check_once(cluster)  # both are old: both are copied and checked, each through the next channel
    assert len(rec1.requests) + len(rec2.requests) == 2
    assert len(rec1.requests) == len(rec2.requests) == 1


@pytest.mark.spec("TXN-16")
def test_broker_config_defaults_are_4_9_3s():
    from mqlab.common.broker_config import BrokerConfig

    config = BrokerConfig()
    assert config.transaction_time_out == 6_000  # BrokerConfig#transactionTimeOut
    assert config.transaction_check_max == 15  # BrokerConfig#transactionCheckMax
    assert config.transaction_check_interval == 60_000  # BrokerConfig#transactionCheckInterval
    assert config.reject_transaction_message is False  # BrokerConfig#rejectTransactionMessage
    assert config.end_transaction_pool_queue_capacity == 100_000  # BrokerConfig#endTransactionPoolQueueCapacity
    assert config.wait_time_mills_in_transaction_queue == 3_000  # BrokerConfig#waitTimeMillsInTransactionQueue


@pytest.mark.spec("TXN-13")
def test_a_half_message_older_than_the_file_reserved_time_is_discarded_too(cluster):
    from mqlab.common.message.message_ext import MessageExt

    service = cluster.controller.transactional_message_service
    horizon = cluster.controller.message_store_config.file_reserved_time * 3_600_000  # 72 h by default
    msg = MessageExt.bare()
    msg.born_timestamp = cluster.now() - horizon
    assert service.need_skip(msg) is False
    msg.born_timestamp -= 1
    assert service.need_skip(msg) is True


@pytest.mark.spec("TXN-17", "TXN-19")
@pytest.mark.timeout(60)
def test_end_transaction_refusals_over_loopback_tcp(make_cluster):
    tcp = make_cluster("tcp")
    client = tcp.client()
    forged = forged_normal_message(client, "TopicTest", 999)
    _, half = send_half(client, queue_id=2)
    store = tcp.controller.message_store
    assert tcp.wait_until(lambda: store.get_max_offset_in_queue(HALF, 0) == 1, 3000)
    before = store.get_max_phy_offset()
    answer = end(client, end_header(forged, COMMIT))
    assert (answer.code, answer.remark) == MISSING
    assert store.get_max_phy_offset() == before
    assert end(client, end_header(half, COMMIT)).code == ResponseCode.SUCCESS
    assert tcp.wait_until(lambda: store.get_max_offset_in_queue(OP, 0) == 1, 3000)
    after_commit = store.get_max_phy_offset()
    for state in (COMMIT, ROLLBACK):
        answer = end(client, end_header(half, state, from_check=True))
        assert (answer.code, answer.remark) == MISSING
    assert store.get_max_phy_offset() == after_commit
    assert store.get_max_offset_in_queue("TopicTest", 2) == 1
    assert store.get_max_offset_in_queue("TopicTest", 999) == 0


# -- the check in the simulator: its 60 s guard must hold on the virtual clock -----------------------------------
@pytest.mark.spec("TXN-21")
@pytest.mark.timeout(60)
def test_a_check_whose_put_back_fails_ends_after_60_s_of_virtual_time(cluster):
    client, recorder = producer_client(cluster)
    send_half(client)
    cluster.run_for(7_000)
    fill_disk(cluster)  # every put fails: the copy cannot be written
    began = cluster.now()
    summary = check_once(cluster)
    assert summary.checked == [] and summary.half_offset is None  # nothing passed, nothing committed
    assert 60_000 < cluster.now() - began < 62_000  # Java's MAX_PROCESS_TIME_LIMIT, on the virtual clock
    assert recorder.requests == []
    failed = cluster.world.trace.events("TransactionalMessageServiceImpl", event="putBackHalfFailed")
    assert 50 <= len(failed) <= 61  # one attempt per second of virtual time, not one per loop turn
    cluster.world.disk.other_used_bytes = 0
    cluster.run_for(11_000)  # the store's space check clears its disk-full mark
    assert check_once(cluster).checked == [0]  # the disk is back: the next check asks the producer


def fill_disk(cluster):
    """The disk 96 % full, as the chaos nemesis fills it, and the store's disk-full mark set at once."""
    store = cluster.controller.message_store
    cluster.world.disk.fill_to_ratio(store.config.store_path_commit_log, 0.96)
    store.running_flags.get_and_make_disk_full()


@pytest.mark.spec("TXN-21")
@pytest.mark.timeout(60)
def test_a_put_back_that_succeeds_once_the_disk_frees_continues_the_same_check(cluster):
    client, recorder = producer_client(cluster)
    send_half(client)
    cluster.run_for(7_000)
    fill_disk(cluster)

    def free() -> None:
        cluster.world.disk.other_used_bytes = 0

    cluster.world.schedule(5_000, free)  # the disk frees during the check; the space check notices within 10 s
    began = cluster.now()
    summary = check_once(cluster)
    assert summary.checked == [0] and summary.half_offset == (0, 1)
    assert 5_000 <= cluster.now() - began < 17_000
    assert len(recorder.requests) == 1


@pytest.mark.spec("TXN-21")
@pytest.mark.timeout(60)
def test_a_message_exactly_transaction_timeout_old_does_not_freeze_the_check(cluster):
    client, recorder = producer_client(cluster)
    send_half(client)
    [(raw, _, _)] = records(cluster, HALF)
    cluster.run_for(raw.born_timestamp + 6_000 - cluster.now())  # age == transactionTimeOut: neither young nor due
    began = cluster.now()
    summary = check_once(cluster)  # 4.9.3 re-pulls the empty op queue, at one instant of virtual time
    assert summary.checked == [0] and summary.half_offset == (0, 1)  # a second later it is due, as on a wall clock
    assert cluster.now() - began == 1_000 + 50
    assert len(recorder.requests) == 1


@pytest.mark.spec("TXN-21")
def test_the_check_does_not_run_inside_itself(cluster):
    service = cluster.controller.transactional_message_service
    listener = cluster.controller.transactional_message_check_listener
    service._checking = True  # as while a check lets virtual time pass and the periodic service fires
    summary = service.check(6_000, 15, listener)
    assert summary.error == "a check is already running"

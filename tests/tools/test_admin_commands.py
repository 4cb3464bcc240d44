"""``mqlab admin`` against a real cluster: every command, as a table and as JSON, and its failures.

The cluster is built once per module: 8 messages are sent to ``AdminTopic`` (auto-created, 4 queues) with keys
``order-<i> common``, a push consumer of ``admin_group`` consumes all 8 and commits its offsets, stops, and 3 more
messages (keys ``late-<i>``) are sent, so the group lags by 3.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

import pytest

from mqlab.cli import main
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.cluster import Cluster
from mqlab.common.message import message_decoder
from mqlab.common.message.message import Message
from tests.tools.admin_cli import start_consumer

TOPIC = "AdminTopic"
GROUP = "admin_group"
FIRST, LATE = 8, 3


@dataclass
class AdminWorld:
    """The cluster and what was sent to it."""

    cluster: Cluster
    sent: list = field(default_factory=list)  # SendResult of every message, in send order

    @property
    def namesrv(self) -> str:
        return self.cluster.namesrv_addr

    def admin(self, capsys, *argv: str) -> tuple[int, str, str]:
        """Run ``mqlab admin <argv> -n <namesrv>``; (exit code, stdout, stderr)."""
        code = main(["admin", argv[0], "-n", self.namesrv, *argv[1:]])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    def admin_json(self, capsys, *argv: str):
        code, out, err = self.admin(capsys, *argv, "--json")
        assert code == 0, err
        return json.loads(out)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    cluster = Cluster.real(tmp_path_factory.mktemp("admin")).start()
    result = AdminWorld(cluster)
    producer = DefaultMQProducer(
        "admin_producer", cluster.client_runtime("producer"), namesrv_addr=cluster.namesrv_addr
    )
    producer.start()
    consumer = None
    try:
        for i in range(FIRST):
            result.sent.append(producer.send(Message(TOPIC, "TagA", f"order-{i} common", f"body {i}".encode())))
        received: set[str] = set()
        lock = threading.Lock()

        def on_messages(msgs, context):
            with lock:
                received.update(m.get_msg_id() for m in msgs)
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

        consumer = start_consumer(cluster, GROUP, TOPIC, on_messages)
        assert cluster.wait_until(lambda: len(received) >= FIRST, 30_000), "the consumer did not get every message"
        consumer.default_mq_push_consumer_impl.persist_consumer_offset()
        offsets = cluster.broker().consumer_offset_manager

        def committed() -> int:
            return sum(int(o) for o in (offsets.offset_table.get(f"{TOPIC}@{GROUP}") or {}).values())

        assert cluster.wait_until(lambda: committed() >= FIRST, 30_000), "the offsets were not committed"
        consumer.shutdown()
        consumer = None
        for i in range(LATE):
            result.sent.append(producer.send(Message(TOPIC, "TagB", f"late-{i}", f"late {i}".encode())))
        yield result
    finally:
        if consumer is not None:
            consumer.shutdown()
        producer.shutdown()
        cluster.shutdown()


# -- the cluster and its topics ----------------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-2")
def test_cluster_list_shows_each_broker_with_its_runtime_figures(world, capsys):
    code, out, err = world.admin(capsys, "clusterList")
    assert code == 0 and err == ""
    header, row = out.splitlines()
    assert header.split()[:5] == ["#Cluster", "Name", "#Broker", "Name", "#BID"]
    addr = world.cluster.broker().get_broker_addr()
    assert row.split()[:5] == ["DefaultCluster", "broker-a", "0", addr, "V4_9_3"]
    [data] = world.admin_json(capsys, "clusterList")
    assert (data["cluster"], data["brokerName"], data["brokerId"], data["addr"]) == (
        "DefaultCluster",
        "broker-a",
        0,
        addr,
    )
    assert data["version"] == "V4_9_3" and 0.0 <= data["space"] <= 1.0 and data["hour"] >= 0


@pytest.mark.spec("ADMIN-3")
def test_topic_list_prints_every_topic_sorted(world, capsys):
    code, out, _ = world.admin(capsys, "topicList")
    topics = out.splitlines()
    assert code == 0 and topics == sorted(topics)
    assert {TOPIC, "TBW102", f"%RETRY%{GROUP}", "broker-a", "DefaultCluster"} <= set(topics)
    assert world.admin_json(capsys, "topicList") == topics


@pytest.mark.spec("ADMIN-3")
def test_topic_list_with_c_gives_each_topic_its_cluster_and_consumer_groups(world, capsys):
    rows = world.admin_json(capsys, "topicList", "-c")
    assert {"cluster": "DefaultCluster", "topic": TOPIC, "group": GROUP} in rows  # from its committed offsets
    assert {"cluster": "DefaultCluster", "topic": "TBW102", "group": ""} in rows  # nobody consumes it
    assert not any(r["topic"].startswith(("%RETRY%", "%DLQ%")) for r in rows)
    assert [r["topic"] for r in rows] == sorted(r["topic"] for r in rows)
    code, out, _ = world.admin(capsys, "topicList", "-c")
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["#Cluster", "Name", "#Topic", "#Consumer", "Group"]
    assert ["DefaultCluster", TOPIC, GROUP] in [line.split() for line in lines[1:]]
    assert lines[1 + rows.index({"cluster": "DefaultCluster", "topic": TOPIC, "group": GROUP})] == (
        f"{'DefaultCluster':<20}  {TOPIC:<64}  {GROUP}"
    )


@pytest.mark.spec("ADMIN-4")
def test_topic_route_shows_brokers_queues_and_permission(world, capsys):
    code, out, _ = world.admin(capsys, "topicRoute", "-t", TOPIC)
    lines = out.splitlines()
    addr = world.cluster.broker().get_broker_addr()
    assert code == 0 and lines[0].split() == [
        "#ClusterName",
        "#BrokerName",
        "#BrokerAddrs",
        "#ReadQueue",
        "#WriteQueue",
        "#Perm",
    ]
    assert lines[1].split() == ["DefaultCluster", "broker-a", f"{{0={addr}}}", "4", "4", "6"]
    assert lines[3].split() == ["Total:", "1", "4", "4"]
    route = world.admin_json(capsys, "topicRoute", "-t", TOPIC)
    assert route["brokerDatas"] == [{"cluster": "DefaultCluster", "brokerName": "broker-a", "brokerAddrs": {"0": addr}}]
    assert route["queueDatas"] == [
        {"brokerName": "broker-a", "readQueueNums": 4, "writeQueueNums": 4, "perm": 6, "topicSysFlag": 0}
    ]


@pytest.mark.spec("ADMIN-5")
def test_topic_status_gives_each_queue_its_offsets_and_last_store_time(world, capsys):
    rows = world.admin_json(capsys, "topicStatus", "-t", TOPIC)
    assert [(r["brokerName"], r["queueId"]) for r in rows] == [("broker-a", q) for q in range(4)]
    per_queue = {q: sum(1 for s in world.sent if s.message_queue.queue_id == q) for q in range(4)}
    assert {r["queueId"]: (r["minOffset"], r["maxOffset"]) for r in rows} == {q: (0, n) for q, n in per_queue.items()}
    for row in rows:  # the last update is the store time of the queue's newest message
        assert row["lastUpdateTimestamp"] > 0 and row["lastUpdated"].count(":") == 2
    code, out, _ = world.admin(capsys, "topicStatus", "-t", TOPIC)
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == [
        "#Broker",
        "Name",
        "#QID",
        "#Min",
        "Offset",
        "#Max",
        "Offset",
        "#Last",
        "Updated",
    ]
    assert [line.split()[:4] for line in lines[1:]] == [
        ["broker-a", str(r["queueId"]), "0", str(r["maxOffset"])] for r in rows
    ]
    assert lines[1].split()[4:] == rows[0]["lastUpdated"].split()


@pytest.mark.spec("ADMIN-6")
def test_update_topic_on_a_broker_then_on_a_cluster(world, capsys):
    addr = world.cluster.broker().get_broker_addr()
    code, out, _ = world.admin(capsys, "updateTopic", "-t", "AdminCreated", "-b", addr, "-r", "2", "-w", "3", "-p", "4")
    assert code == 0
    assert out.splitlines() == [
        f"create topic to {addr} success.",
        "TopicConfig [topicName=AdminCreated, readQueueNums=2, writeQueueNums=3, perm=R--, "
        "topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false]",
    ]
    assert world.cluster.broker().topic_config_manager.select_topic_config("AdminCreated").perm == 4
    assert world.cluster.wait_until(lambda: _queue_nums(world, capsys, "AdminCreated") == (2, 3, 4), 10_000)
    created = world.admin_json(capsys, "updateTopic", "-t", "AdminCreated", "-c", "DefaultCluster")
    assert created == {"topic": "AdminCreated", "readQueueNums": 8, "writeQueueNums": 8, "perm": 6, "brokers": [addr]}
    assert world.cluster.wait_until(lambda: _queue_nums(world, capsys, "AdminCreated") == (8, 8, 6), 10_000)


def _queue_nums(world, capsys, topic):
    code, out, _ = world.admin(capsys, "topicRoute", "-t", topic, "--json")
    if code != 0:
        return None
    [qd] = json.loads(out)["queueDatas"]
    return qd["readQueueNums"], qd["writeQueueNums"], qd["perm"]


@pytest.mark.spec("ADMIN-6", "ADMIN-12")
def test_update_topic_to_an_unknown_cluster_fails_naming_it(world, capsys):
    code, out, err = world.admin(capsys, "updateTopic", "-t", "Nowhere", "-c", "NoSuchCluster")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "updateTopic" in err and "'NoSuchCluster' not found" in err


# -- consumers -----------------------------------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-7")
def test_consumer_progress_shows_the_lag_of_each_queue_and_in_total(world, capsys):
    data = world.admin_json(capsys, "consumerProgress", "-g", GROUP)
    assert data["group"] == GROUP and data["diffTotal"] == LATE
    topic_rows = [q for q in data["queues"] if q["topic"] == TOPIC]
    assert [q["queueId"] for q in topic_rows] == [0, 1, 2, 3]
    late = {q: sum(1 for s in world.sent[FIRST:] if s.message_queue.queue_id == q) for q in range(4)}
    for q in topic_rows:
        assert q["diff"] == q["brokerOffset"] - q["consumerOffset"] == late[q["queueId"]]
        assert q["lastTime"] != "N/A"  # the group consumed something from every queue
    code, out, _ = world.admin(capsys, "consumerProgress", "-g", GROUP)
    lines = out.splitlines()
    assert code == 0 and lines[0].split()[:3] == ["#Topic", "#Broker", "Name"]
    assert lines[-2:] == ["Consume TPS: 0.00", f"Diff Total: {LATE}"]
    table = {(cols[0], int(cols[2])): cols for cols in (line.split() for line in lines[1:-3])}
    for q in topic_rows:
        assert table[(TOPIC, q["queueId"])][3:6] == [str(q["brokerOffset"]), str(q["consumerOffset"]), str(q["diff"])]


@pytest.mark.spec("ADMIN-7", "ADMIN-12")
def test_consumer_progress_of_an_unknown_group_fails(world, capsys):
    code, out, err = world.admin(capsys, "consumerProgress", "-g", "nobody_group")
    assert (code, out) == (1, "")
    assert err.startswith("mqlab admin consumerProgress: ") and "%RETRY%nobody_group" in err
    assert err.count("\n") == 1


# -- messages ------------------------------------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-8")
def test_query_msg_by_id_views_the_message_at_the_decoded_address_and_offset(world, capsys):
    sent = world.sent[2]
    decoded = message_decoder.decode_message_id(sent.offset_msg_id)
    [data] = world.admin_json(capsys, "queryMsgById", "-i", sent.offset_msg_id)
    assert data["offsetMsgId"] == sent.offset_msg_id and data["msgId"] == sent.msg_id
    assert data["commitLogOffset"] == decoded.offset and data["storeHost"] == world.cluster.broker().get_broker_addr()
    assert (data["topic"], data["tags"], data["keys"], data["body"]) == (TOPIC, "TagA", "order-2 common", "body 2")
    assert (data["queueId"], data["queueOffset"]) == (sent.message_queue.queue_id, sent.queue_offset)
    code, out, _ = world.admin(capsys, "queryMsgById", "-i", f"{sent.offset_msg_id},{world.sent[3].offset_msg_id}")
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"OffsetID:            {sent.offset_msg_id}"
    assert "Keys:                [order-2 common]" in lines and "Message Body:        body 2" in lines
    assert (
        f"CommitLog Offset:    {decoded.offset}" in lines
        and f"OffsetID:            {world.sent[3].offset_msg_id}" in lines
    )


@pytest.mark.spec("ADMIN-8", "ADMIN-12")
@pytest.mark.parametrize("bad_id", ["not-an-id", "7F00000100008BC9000000000000000", "ZZ00000100008BC90000000000000000"])
def test_query_msg_by_id_rejects_a_bad_id(world, capsys, bad_id):
    code, out, err = world.admin(capsys, "queryMsgById", "-i", bad_id)
    assert (code, out) == (1, "")
    assert err.startswith("mqlab admin queryMsgById: BadMessageIdError: ") and repr(bad_id) in err
    assert err.count("\n") == 1


@pytest.mark.spec("ADMIN-8", "ADMIN-12")
def test_query_msg_by_id_past_the_end_of_the_commitlog_fails(world, capsys):
    sent = message_decoder.decode_message_id(world.sent[0].offset_msg_id)
    beyond = message_decoder.create_message_id(sent.address, 1 << 40)
    code, out, err = world.admin(capsys, "queryMsgById", "-i", beyond)
    assert (code, out) == (1, "") and "MQBrokerException" in err and err.count("\n") == 1


@pytest.mark.spec("ADMIN-9")
def test_query_msg_by_key_finds_exactly_the_messages_with_that_key(world, capsys):
    common = world.admin_json(capsys, "queryMsgByKey", "-t", TOPIC, "-k", "common")
    assert sorted(m["msgId"] for m in common) == sorted(s.msg_id for s in world.sent[:FIRST])
    [one] = world.admin_json(capsys, "queryMsgByKey", "-t", TOPIC, "-k", "late-1")
    assert (one["msgId"], one["body"]) == (world.sent[FIRST + 1].msg_id, "late 1")
    code, out, _ = world.admin(capsys, "queryMsgByKey", "-t", TOPIC, "-k", "order-5")
    header, row = out.splitlines()
    sent = world.sent[5]
    assert code == 0 and header.split() == ["#Message", "ID", "#QID", "#Offset"]
    assert row.split() == [sent.msg_id, str(sent.message_queue.queue_id), str(sent.queue_offset)]


@pytest.mark.spec("ADMIN-9", "ADMIN-12")
def test_query_msg_by_key_without_a_match_fails(world, capsys):
    code, out, err = world.admin(capsys, "queryMsgByKey", "-t", TOPIC, "-k", "order-")  # a prefix is no match
    assert (code, out) == (1, "") and "CODE: 208" in err and "no message" in err


@pytest.mark.spec("ADMIN-10")
def test_query_msg_by_offset_pulls_the_one_message_at_that_offset(world, capsys):
    for sent in (world.sent[0], world.sent[-1]):
        mq = sent.message_queue
        data = world.admin_json(
            capsys,
            "queryMsgByOffset",
            "-t",
            TOPIC,
            "-b",
            mq.broker_name,
            "-i",
            str(mq.queue_id),
            "-o",
            str(sent.queue_offset),
        )
        assert (data["msgId"], data["offsetMsgId"]) == (sent.msg_id, sent.offset_msg_id)
        assert (data["queueId"], data["queueOffset"]) == (mq.queue_id, sent.queue_offset)
    code, out, _ = world.admin(capsys, "queryMsgByOffset", "-t", TOPIC, "-b", "broker-a", "-i", "0", "-o", "0")
    assert code == 0 and out.splitlines()[1] == f"Topic:               {TOPIC}"


@pytest.mark.spec("ADMIN-10", "ADMIN-12")
@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (["-b", "broker-a", "-i", "0", "-o", "99"], "no message at"),
        (["-b", "broker-z", "-i", "0", "-o", "0"], "broker-z"),
    ],
)
def test_query_msg_by_offset_without_a_message_fails(world, capsys, where, expected):
    code, out, err = world.admin(capsys, "queryMsgByOffset", "-t", TOPIC, *where)
    assert (code, out) == (1, "") and expected in err and err.count("\n") == 1


@pytest.mark.spec("ADMIN-11")
def test_print_msg_prints_every_message_of_every_queue(world, capsys):
    data = world.admin_json(capsys, "printMsg", "-t", TOPIC)
    assert [q["queueId"] for q in data["queues"]] == [0, 1, 2, 3]
    printed = [m["msgId"] for q in data["queues"] for m in q["messages"]]
    assert sorted(printed) == sorted(s.msg_id for s in world.sent)
    for q in data["queues"]:
        assert [m["queueOffset"] for m in q["messages"]] == list(range(q["minOffset"], q["maxOffset"]))
    code, out, _ = world.admin(capsys, "printMsg", "-t", TOPIC, "-d", "false")
    lines = out.splitlines()
    assert code == 0 and sum(line.startswith("MSGID: ") for line in lines) == len(world.sent)
    assert lines[0].startswith("minOffset=0, maxOffset=") and all(
        "BODY: NOT PRINT BODY" in x for x in lines if x.startswith("MSGID")
    )


@pytest.mark.spec("ADMIN-11")
def test_print_msg_between_two_store_times_prints_only_those(world, capsys):
    everything = world.admin_json(capsys, "printMsg", "-t", TOPIC)
    stored = sorted(m["storeTimestamp"] for q in everything["queues"] for m in q["messages"])
    begin = stored[FIRST]  # the first late message's store time: the early ones were consumed before it
    late = world.admin_json(capsys, "printMsg", "-t", TOPIC, "-b", str(begin))
    got = {m["msgId"] for q in late["queues"] for m in q["messages"]}
    # SEARCH_OFFSET_BY_TIMESTAMP answers the offset whose store time is *nearest* (4.9.3), so a queue without a
    # late message may still print its last early one; every late message is printed, most early ones are not.
    assert {s.msg_id for s in world.sent[FIRST:]} <= got and len(got) < len(world.sent)
    none = world.admin_json(capsys, "printMsg", "-t", TOPIC, "-b", "0", "-e", "1")
    assert all(q["messages"] == [] for q in none["queues"])
    tagged = world.admin_json(capsys, "printMsg", "-t", TOPIC, "-s", "TagB")
    assert sorted(m["msgId"] for q in tagged["queues"] for m in q["messages"]) == sorted(
        s.msg_id for s in world.sent[FIRST:]
    )


# -- failures ------------------------------------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-12")
@pytest.mark.parametrize(
    "argv",
    [["topicRoute", "-t", "NoSuchTopic"], ["topicStatus", "-t", "NoSuchTopic"], ["printMsg", "-t", "NoSuchTopic"]],
)
def test_an_unknown_topic_fails_with_one_line_naming_it(world, capsys, argv):
    code, out, err = world.admin(capsys, *argv)
    assert (code, out) == (1, "")
    assert err.startswith(f"mqlab admin {argv[0]}: ") and "NoSuchTopic" in err and err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.spec("ADMIN-12")
@pytest.mark.parametrize("argv", [["clusterList"], ["topicList"], ["topicRoute", "-t", TOPIC]])
def test_an_unreachable_name_server_fails_naming_its_address(capsys, argv):
    code = main(["admin", argv[0], "-n", "127.0.0.1:1", *argv[1:], "--json"])
    captured = capsys.readouterr()
    assert (code, captured.out) == (1, "")
    assert captured.err.startswith(f"mqlab admin {argv[0]}: ") and "127.0.0.1:1" in captured.err
    assert captured.err.count("\n") == 1

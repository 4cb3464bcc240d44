"""The rest of ``mqlab admin`` in a simulation with two brokers: topic deletion, broker config, producers,
subscription groups, consumer status, ConsumeQueue units, offset cloning, broker status, topic clusters.

The world: ``TopicTest`` has 4 queues on each of ``broker-a`` and ``broker-b``; the producer of group ``PG`` sent 8
messages and stays up; one push consumer of ``status_group`` (node ``live-1``) consumed them all and committed its
offsets.
"""

from __future__ import annotations

import pytest

from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.consumer.listener.consume_orderly_status import ConsumeOrderlyStatus
from mqlab.common.protocol.header import broker_headers as bh
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt
from tests.client.consumer.push_support import TOPIC, ConsumerCluster, Recorder
from tests.tools.admin_cli import AdminCli

GROUP = "status_group"
COUNT = 8
BROKERS = ("broker-a", "broker-b")
CLUSTER = "DefaultCluster"


class World(AdminCli):
    def __init__(self, tmp_path):
        self.cluster = cluster = ConsumerCluster(tmp_path / "c", brokers=BROKERS)
        cluster.make_topic(TOPIC, 4)
        cluster.send(COUNT)
        self.recorder = Recorder(cluster.world.clock.now_ms)
        self.consumer = cluster.push_consumer(GROUP, self.recorder, node="live-1")
        assert cluster.wait_until(lambda: len(self.recorder.bodies) >= COUNT, 10_000)
        cluster.run_for(11_000)  # offsets are committed every 5 s, first 10 s after the start
        self.client_id = self.consumer.default_mq_push_consumer_impl.mq_client_factory.client_id

    def broker(self, name: str = "broker-a"):
        return self.cluster.brokers[name]

    def addr(self, name: str = "broker-a") -> str:
        return self.cluster.broker_addr(name)

    def admin_ext(self) -> DefaultMQAdminExt:
        admin = DefaultMQAdminExt(self.cluster.client_runtime(), namesrv_addr=self.cluster.namesrv_addr)
        admin.start()
        return admin

    def ask_broker(self, code: int, header=None, body: bytes | None = None, name: str = "broker-a") -> RemotingCommand:
        """Send a raw request to a broker from a new client node."""
        admin = self.admin_ext()
        try:
            api = admin.default_mq_admin_ext_impl.mq_client_instance.mq_client_api_impl
            return api.remoting_client.invoke_sync(self.addr(name), api._request(code, header, body), 5000)
        finally:
            admin.shutdown()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    made = World(tmp_path_factory.mktemp("more-admin"))
    yield made
    made.cluster.close()


def _failed(result: tuple[int, str, str], *needles: str) -> None:
    code, out, err = result
    assert (code, out) == (1, "") and err.count("\n") == 1, (code, out, err)
    for needle in needles:
        assert needle in err, err


# -- deleteTopic ----------------------------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-17", "BRK-38", "BRK-39")
def test_delete_topic_removes_config_queues_and_route_but_keeps_offsets_and_commit_log(world):
    cluster = world.cluster
    cluster.make_topic("DoomedTopic", 2)
    cluster.send(4, topic="DoomedTopic")
    a = world.broker("broker-a")
    a.consumer_offset_manager.commit_offset("test", "doomed_group", "DoomedTopic", 0, 1)
    a.message_store.find_consume_queue("OrphanTopic", 0)  # queues without a TopicConfig: swept too
    a.message_store.find_consume_queue("SCHEDULE_TOPIC_XXXX", 0)  # ... except the schedule topic's
    max_phy = a.message_store.get_max_phy_offset()
    code, out, err = world.admin("deleteTopic", "-t", "DoomedTopic", "-c", CLUSTER)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"delete topic [DoomedTopic] from cluster [{CLUSTER}] success.",
        "delete topic [DoomedTopic] from NameServer success.",
    ]
    for name in BROKERS:
        broker = world.broker(name)
        assert "DoomedTopic" not in broker.topic_config_manager.topic_config_table
        assert "DoomedTopic" not in broker.message_store.consume_queue_table
        assert not any(k.startswith("DoomedTopic-") for k in broker.message_store.commit_log.topic_queue_table)
    assert "OrphanTopic" not in a.message_store.consume_queue_table
    assert "SCHEDULE_TOPIC_XXXX" in a.message_store.consume_queue_table
    assert a.consumer_offset_manager.query_offset("doomed_group", "DoomedTopic", 0) == 1  # offsets are kept
    assert a.message_store.get_max_phy_offset() == max_phy  # the CommitLog is untouched
    assert TOPIC in a.message_store.consume_queue_table
    _failed(world.admin("topicRoute", "-t", "DoomedTopic"), "DoomedTopic")
    cluster.run_for(31_000)  # the next periodic registration does not bring it back
    _failed(world.admin("topicRoute", "-t", "DoomedTopic"), "DoomedTopic")
    assert world.admin_json("deleteTopic", "-t", "DoomedTopic", "-c", CLUSTER)["brokers"] == sorted(
        [world.addr("broker-a"), world.addr("broker-b")]
    )


@pytest.mark.spec("ADMIN-17", "BRK-38")
def test_delete_topic_refuses_system_topics_and_unknown_clusters(world):
    _failed(world.admin("deleteTopic", "-t", "SCHEDULE_TOPIC_XXXX", "-c", CLUSTER), "conflict with system topic")
    _failed(world.admin("deleteTopic", "-t", "bad topic!", "-c", CLUSTER), "illegal characters")
    _failed(world.admin("deleteTopic", "-t", "AnyTopic", "-c", "NoCluster"), "NoCluster")
    with pytest.raises(SystemExit) as exit_info:  # -c is required
        world.admin("deleteTopic", "-t", "AnyTopic")
    assert exit_info.value.code == 2


# -- updateBrokerConfig / getBrokerConfig -------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-18", "ADMIN-19", "BRK-40", "BRK-41")
def test_update_and_get_broker_config(world):
    a, b = world.broker("broker-a"), world.broker("broker-b")
    before = a.configuration.data_version.counter
    code, out, err = world.admin(
        "updateBrokerConfig", "-b", world.addr(), "-k", "clientManageThreadPoolNums", "-v", "48"
    )
    assert (code, err, out) == (0, "", f"update broker config success, {world.addr()}\n")
    assert a.broker_config.client_manage_thread_pool_nums == 48 and b.broker_config.client_manage_thread_pool_nums != 48
    assert a.configuration.data_version.counter == before + 1
    code, out, _ = world.admin("getBrokerConfig", "-b", world.addr())
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"============{world.addr()}============" and lines[-1] == ""
    assert f"{'clientManageThreadPoolNums':<50}=  48" in lines
    keys = [line.split("=")[0].strip() for line in lines[1:-1]]
    assert keys == sorted(keys) and {"brokerName", "listenPort", "flushDiskType", "clientWorkerThreads"} <= set(keys)
    # a value that does not convert is ignored without a word, as Java's properties2Object does
    assert world.admin("updateBrokerConfig", "-b", world.addr(), "-k", "clientManageThreadPoolNums", "-v", "x")[0] == 0
    assert a.broker_config.client_manage_thread_pool_nums == 48
    # the whole cluster: every master
    data = world.admin_json("updateBrokerConfig", "-c", CLUSTER, "-k", "consumerManageThreadPoolNums", "-v", "77")
    assert sorted(data["updated"]) == sorted([world.addr("broker-a"), world.addr("broker-b")])
    assert a.broker_config.consumer_manage_thread_pool_nums == 77 == b.broker_config.consumer_manage_thread_pool_nums
    data = world.admin_json("getBrokerConfig", "-c", CLUSTER)
    assert {d["title"] for d in data} == {f"============Master: {world.addr(n)}============" for n in BROKERS}
    assert all(d["config"]["consumerManageThreadPoolNums"] == "77" for d in data)


@pytest.mark.spec("BRK-40", "BRK-41")
def test_broker_config_over_the_wire_version_header_and_bad_text(world):
    a = world.broker("broker-a")
    response = world.ask_broker(RequestCode.GET_BROKER_CONFIG)
    assert response.code == ResponseCode.SUCCESS
    version = response.decode_command_custom_header(bh.GetBrokerConfigResponseHeader).version
    assert version == (
        f'{{"counter":{a.configuration.data_version.counter},"timestamp":{a.configuration.data_version.timestamp}}}'
    )
    assert b"brokerName=broker-a\n" in response.body
    response = world.ask_broker(RequestCode.UPDATE_BROKER_CONFIG, body=b"key=\\uZZZZ\n")
    assert (response.code, response.remark) == (ResponseCode.SYSTEM_ERROR, "string2Properties error")
    _failed(
        world.admin("updateBrokerConfig", "-b", world.addr(), "-k", "k", "-v", "\\uZZZZ"), "string2Properties error"
    )
    empty = world.ask_broker(RequestCode.UPDATE_BROKER_CONFIG)
    assert empty.code == ResponseCode.SUCCESS


@pytest.mark.spec("BRK-40")
def test_broker_permission_change_registers_at_once(world):
    cluster = world.cluster

    def perm_of(name: str) -> int:
        data = world.admin_json("topicRoute", "-t", TOPIC)
        return next(q["perm"] for q in data["queueDatas"] if q["brokerName"] == name)

    assert perm_of("broker-b") == 6
    assert world.admin("updateBrokerConfig", "-b", world.addr("broker-b"), "-k", "brokerPermission", "-v", "4")[0] == 0
    cluster.run_for(100)
    assert perm_of("broker-b") == 4
    assert world.admin("updateBrokerConfig", "-b", world.addr("broker-b"), "-k", "brokerPermission", "-v", "6")[0] == 0
    cluster.run_for(100)
    assert perm_of("broker-b") == 6


# -- producerConnection ---------------------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-20", "BRK-42")
def test_producer_connection_lists_the_group_members(world):
    producer_id = world.cluster.sender.default_mq_producer_impl.mq_client_factory.client_id
    code, out, err = world.admin("producerConnection", "-g", "PG", "-t", TOPIC)
    assert (code, err) == (0, "")
    [row] = out.splitlines()
    assert row.startswith(f"0001  {producer_id:<32} ") and row.split()[3:] == ["JAVA", "V4_9_3"]
    [conn] = world.admin_json("producerConnection", "-g", "PG", "-t", TOPIC)
    assert (conn["clientId"], conn["language"], conn["version"]) == (producer_id, "JAVA", 399)
    _failed(world.admin("producerConnection", "-g", "nobody", "-t", TOPIC), "the producer group[nobody] not exist")
    _failed(world.admin("producerConnection", "-g", "PG", "-t", "NoSuchTopic"), "NoSuchTopic")


# -- updateSubGroup / deleteSubGroup ------------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-21", "ADMIN-22", "BRK-43")
def test_update_and_delete_subscription_group(world):
    a = world.broker("broker-a")
    code, out, err = world.admin("updateSubGroup", "-b", world.addr(), "-g", "sub_group", "-r", "3", "-s", "false")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"create subscription group to {world.addr()} success.",
        "SubscriptionGroupConfig [groupName=sub_group, consumeEnable=false, consumeFromMinEnable=false, "
        "consumeBroadcastEnable=false, retryQueueNums=1, retryMaxTimes=3, brokerId=0, whichBrokerWhenConsumeSlowly=1, "
        "notifyConsumerIdsChangedEnable=true]",
    ]
    config = a.subscription_group_manager.subscription_group_table["sub_group"]
    assert (config.retry_max_times, config.consume_enable, config.consume_broadcast_enable) == (3, False, False)
    data = world.admin_json("updateSubGroup", "-c", CLUSTER, "-g", "sub_group", "-q", "2")
    assert sorted(data["brokers"]) == sorted(world.addr(n) for n in BROKERS)
    assert (
        world.broker("broker-b").subscription_group_manager.subscription_group_table["sub_group"].retry_queue_nums == 2
    )
    a.consumer_offset_manager.commit_offset("test", "sub_group", TOPIC, 0, 5)
    code, out, _ = world.admin("deleteSubGroup", "-b", world.addr(), "-g", "sub_group")
    assert (code, out) == (0, f"delete subscription group [sub_group] from broker [{world.addr()}] success.\n")
    assert "sub_group" not in a.subscription_group_manager.subscription_group_table
    assert a.consumer_offset_manager.query_offset("sub_group", TOPIC, 0) == 5  # -r defaults to false
    code, out, _ = world.admin("deleteSubGroup", "-c", CLUSTER, "-g", "sub_group", "-r", "true")
    lines = out.splitlines()
    assert code == 0 and lines[:2] == [
        f"delete subscription group [sub_group] from broker [{addr}] in cluster [{CLUSTER}] success."
        for addr in sorted(world.addr(n) for n in BROKERS)
    ]
    assert lines[2:] == [
        f"delete topic [%RETRY%sub_group] from cluster [{CLUSTER}] success.",
        "delete topic [%RETRY%sub_group] from NameServer success.",
        f"delete topic [%DLQ%sub_group] from cluster [{CLUSTER}] success.",
        "delete topic [%DLQ%sub_group] from NameServer success.",
    ]
    assert a.consumer_offset_manager.query_offset("sub_group", TOPIC, 0) == -1
    assert "sub_group" not in world.broker("broker-b").subscription_group_manager.subscription_group_table
    _failed(world.admin("updateSubGroup", "-c", "NoCluster", "-g", "g"), "NoCluster")


# -- consumerStatus -------------------------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-23", "BRK-44", "INST-17")
def test_consumer_status_of_one_client_prints_its_report(world):
    code, out, err = world.admin("consumerStatus", "-g", GROUP, "-i", world.client_id)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "#Consumer Properties#"
    for section in ("#Consumer Subscription#", "#Consumer Offset#", "#Consumer MQ Detail#", "#Consumer RT&TPS#"):
        assert section in lines
    assert f"{'consumerGroup':<40}: {GROUP}" in lines
    assert f"{'PROP_CONSUME_TYPE':<40}: CONSUME_PASSIVELY" in lines
    assert f"{'PROP_NAMESERVER_ADDR':<40}: {world.cluster.namesrv_addr};" in lines
    assert f"{'PROP_CLIENT_VERSION':<40}: V4_9_3" in lines
    offsets = lines[lines.index("#Consumer Offset#") + 2 : lines.index("#Consumer MQ Detail#") - 2]
    assert {line.split()[0] for line in offsets} == {TOPIC, f"%RETRY%{GROUP}"}
    offsets = [line for line in offsets if line.startswith(f"{TOPIC} ")]
    assert len(offsets) == 8 and sorted(line.split()[1] for line in offsets) == ["broker-a"] * 4 + ["broker-b"] * 4
    assert sum(int(line.split()[3]) for line in offsets) == COUNT
    assert any(f"Topic: {TOPIC:<40} ClassFilter: false    SubExpression: *" in line for line in lines)
    info = world.admin_json("consumerStatus", "-g", GROUP, "-i", world.client_id)["info"]
    assert info["properties"]["PROP_CONSUME_TYPE"] == "CONSUME_PASSIVELY" and len(info["mqTable"]) == 10


@pytest.mark.spec("ADMIN-23")
def test_consumer_status_of_the_group_writes_one_report_per_member(world, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = world.admin("consumerStatus", "-g", GROUP)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    index, client_id, version, path = lines[0].split()
    assert (index, client_id, version) == ("001", world.client_id, "V4_9_3")
    assert (tmp_path / path).read_text(encoding="utf-8").startswith("#Consumer Properties#\n")
    assert lines[1:] == ["", "", "Same subscription in the same group of consumer", "", "Rebalance OK"]


@pytest.mark.spec("ADMIN-23", "BRK-44")
def test_consumer_status_errors(world):
    _failed(
        world.admin("consumerStatus", "-g", GROUP, "-i", "10.9.9.9@nobody"),
        f"The Consumer <{GROUP}> <10.9.9.9@nobody> not online",
    )
    _failed(world.admin("consumerStatus", "-g", "never_group"), "%RETRY%never_group")


# -- queryCq --------------------------------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-24", "BRK-45")
def test_query_cq_prints_units_and_the_group_subscription(world):
    store = world.broker("broker-a").message_store
    queue = store.find_consume_queue(TOPIC, 0)
    count = queue.get_max_offset_in_queue()
    assert count > 0
    code, out, err = world.admin("queryCq", "-t", TOPIC, "-q", "0", "-i", "0", "-b", world.addr(), "-g", GROUP)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "Subscription data: " and '"topic":"TopicTest"' in "".join(lines).replace(" ", "").replace(
        "\t", ""
    )
    assert "Filter data: " in lines and "null" in lines
    start = lines.index("Queue data: ")
    assert lines[start + 1] == f"max: {count}, min: 0" and lines[start + 2] == "=" * 38
    units = lines[start + 3 :]
    assert len(units) == 3 * count and units[0] == "idx: 0"
    assert units[1].startswith("ConsumeQueueData{physicOffset=") and units[1].endswith(
        "extendDataJson='null', bitMap='null', eval=false, msg='null'}"
    )
    data = world.admin_json("queryCq", "-t", TOPIC, "-q", "0", "-i", "0", "-c", "1")
    admin = world.admin_ext()
    try:
        first = admin.examine_topic_route_info(TOPIC).broker_datas[0]
    finally:
        admin.shutdown()
    assert data["broker"] == first.broker_addrs[0]  # the master of the route's first broker
    assert len(data["queueData"]) == 1 and data["subscriptionData"] is None and data["filterData"] is None
    offline = world.admin_json("queryCq", "-t", TOPIC, "-q", "0", "-i", "0", "-b", world.addr(), "-g", "nobody")
    assert offline["filterData"] == f"nobody@{TOPIC} is not online!"


@pytest.mark.spec("ADMIN-24", "BRK-45")
def test_query_cq_errors(world):
    _failed(world.admin("queryCq", "-t", TOPIC, "-q", "9", "-i", "0", "-b", world.addr()), f"9@{TOPIC} is not exist!")
    _failed(
        world.admin("queryCq", "-t", TOPIC, "-q", "0", "-i", "-1", "-b", world.addr()),
        f"Index -1 of 0@{TOPIC} is not exist!",
    )
    _failed(world.admin("queryCq", "-t", "NoSuchTopic", "-q", "0", "-i", "0"), "NoSuchTopic")


# -- cloneGroupOffset -----------------------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-25", "BRK-46")
def test_clone_group_offset_commits_the_source_offsets_for_the_destination(world):
    code, out, err = world.admin("cloneGroupOffset", "-s", GROUP, "-d", "clone_group", "-t", TOPIC)
    assert (code, err) == (0, "")
    assert out == f"clone group offset success. srcGroup[{GROUP}], destGroup=[clone_group], topic[{TOPIC}]\n"
    for name in BROKERS:
        offsets = world.broker(name).consumer_offset_manager
        for queue_id in range(4):
            assert offsets.query_offset("clone_group", TOPIC, queue_id) == offsets.query_offset(GROUP, TOPIC, queue_id)
    _failed(world.admin("cloneGroupOffset", "-s", "never_group", "-d", "x", "-t", TOPIC), "%RETRY%never_group")
    # CLONE_GROUP_OFFSET (314), which no command sends: the admin API asks every broker of the source's retry topic
    admin = world.admin_ext()
    try:
        admin.clone_group_offset(GROUP, "clone_314", TOPIC, False)
        admin.clone_group_offset(GROUP, "clone_blank", None, True)  # the header's blank topic: nothing useful copied
    finally:
        admin.shutdown()
    for name in BROKERS:
        offsets = world.broker(name).consumer_offset_manager
        assert offsets.query_offsets("clone_314", TOPIC) == offsets.query_offsets(GROUP, TOPIC)
        assert offsets.query_offsets("clone_blank", TOPIC) is None


# -- brokerStatus, topicClusterList, QUERY_CONSUME_TIME_SPAN --------------------------------------------------------
@pytest.mark.spec("ADMIN-26")
def test_broker_status_prints_runtime_figures_sorted(world):
    code, out, err = world.admin("brokerStatus", "-b", world.addr())
    lines = out.splitlines()
    assert (code, err) == (0, "")
    keys = [line.split(":")[0].strip() for line in lines]
    assert keys == sorted(keys) and f"{'brokerVersionDesc':<32}: V4_9_3" in lines
    code, out, _ = world.admin("brokerStatus", "-c", CLUSTER)
    rows = out.splitlines()
    assert code == 0 and {row.split()[0] for row in rows} == {world.addr(n) for n in BROKERS}
    assert f"{world.addr():<24} {'brokerVersionDesc':<32}: V4_9_3" in rows
    _failed(world.admin("brokerStatus", "-b", "10.9.9.9:1"), "10.9.9.9:1")


@pytest.mark.spec("ADMIN-27")
def test_topic_cluster_list(world):
    assert world.admin("topicClusterList", "-t", TOPIC)[:2] == (0, f"{CLUSTER}\n")
    assert world.admin_json("topicClusterList", "-t", TOPIC) == [CLUSTER]
    _failed(world.admin("topicClusterList", "-t", "NoSuchTopic"), "NoSuchTopic")


@pytest.mark.spec("ADMIN-28", "BRK-47")
def test_query_consume_time_span_per_queue(world):
    admin = world.admin_ext()
    try:
        spans = admin.query_consume_time_span(TOPIC, GROUP)
        never = admin.query_consume_time_span(TOPIC, "never_group")
    finally:
        admin.shutdown()
    assert sorted((s.message_queue.broker_name, s.message_queue.queue_id) for s in spans) == [
        (b, q) for b in BROKERS for q in range(4)
    ]
    for span in spans:
        if span.max_time_stamp > 0:  # a queue that holds messages, all consumed
            assert span.min_time_stamp <= span.consume_time_stamp == span.max_time_stamp and span.delay_time == 0
    now = world.cluster.now()
    assert all(s.delay_time >= now + 1 - 1000 for s in never if s.max_time_stamp > 0)  # 4.9.3: no offset -> now + 1
    response = world.ask_broker(
        RequestCode.QUERY_CONSUME_TIME_SPAN, bh.QueryConsumeTimeSpanRequestHeader("NoSuchTopic", GROUP)
    )
    assert (response.code, response.remark) == (ResponseCode.TOPIC_NOT_EXIST, "topic[NoSuchTopic] not exist")


# -- queryMsgById -g -d: CONSUME_MESSAGE_DIRECTLY -----------------------------------------------------------------
@pytest.mark.spec("ADMIN-29", "BRK-48", "INST-18")
def test_query_msg_by_id_with_group_and_client_pushes_the_message_to_that_consumer(world):
    stored = world.cluster.stored("broker-a", TOPIC)[0]
    calls = len(world.recorder.calls)
    code, out, err = world.admin("queryMsgById", "-i", stored.msg_id, "-g", GROUP, "-d", world.client_id)
    assert (code, err) == (0, "")
    assert out == (
        "ConsumeMessageDirectlyResult [order=false, autoCommit=true, consumeResult=CR_SUCCESS, remark=null, "
        "spentTimeMills=0]\n"
    )
    assert len(world.recorder.calls) == calls + 1  # the listener saw it once more, on the calling thread
    [(topic, queue_id, offset, body, _)] = world.recorder.calls[-1][1]
    assert (topic, queue_id, offset, body) == (TOPIC, stored.queue_id, stored.queue_offset, stored.body)
    pushed = world.recorder.messages[-1]
    assert (pushed.get_msg_id(), pushed.msg_id) == (stored.get_property("UNIQ_KEY"), stored.msg_id)
    offsets = world.broker("broker-a").consumer_offset_manager
    before = offsets.query_offset(GROUP, TOPIC, stored.queue_id)
    world.cluster.run_for(11_000)
    assert offsets.query_offset(GROUP, TOPIC, stored.queue_id) == before  # nothing committed or sent back
    [data] = world.admin_json("queryMsgById", "-i", stored.msg_id, "-g", GROUP, "-d", world.client_id)
    assert (data["consumeResult"], data["order"], data["autoCommit"]) == ("CR_SUCCESS", False, True)
    _failed(
        world.admin("queryMsgById", "-i", stored.msg_id, "-g", GROUP, "-d", "10.9.9.9@nobody"),
        f"The Consumer <{GROUP}> <10.9.9.9@nobody> not online",
    )


@pytest.mark.spec("ADMIN-29", "INST-18")
def test_consume_message_directly_reports_how_the_listener_answered(world):
    cluster = world.cluster
    stored = cluster.stored("broker-a", TOPIC)[0]
    answers = iter([ConsumeConcurrentlyStatus.CONSUME_SUCCESS] * COUNT)

    def verdict(msgs, context):
        answer = next(answers, "raise")
        if answer == "raise":
            raise RuntimeError("listener broke")
        return answer

    failing = Recorder(cluster.world.clock.now_ms, verdict)
    failing_consumer = cluster.push_consumer("failing_group", failing, node="failing-1")
    suspend = {"now": False}  # the orderly listener suspends only the message pushed directly

    def orderly_verdict(msgs, context):
        return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT if suspend["now"] else ConsumeOrderlyStatus.SUCCESS

    late = Recorder(cluster.world.clock.now_ms, orderly_verdict)
    orderly_consumer = cluster.push_consumer("orderly_group", late, orderly=True, node="orderly-1")
    assert cluster.wait_until(lambda: len(failing.bodies) >= COUNT and len(late.calls) > 0, 20_000)
    failing_id = failing_consumer.default_mq_push_consumer_impl.mq_client_factory.client_id
    orderly_id = orderly_consumer.default_mq_push_consumer_impl.mq_client_factory.client_id
    [thrown] = world.admin_json("queryMsgById", "-i", stored.msg_id, "-g", "failing_group", "-d", failing_id)
    assert thrown["consumeResult"] == "CR_THROW_EXCEPTION" and "listener broke" in thrown["remark"]
    suspend["now"] = True
    [later] = world.admin_json("queryMsgById", "-i", stored.msg_id, "-g", "orderly_group", "-d", orderly_id)
    suspend["now"] = False
    assert (later["consumeResult"], later["order"], later["autoCommit"]) == ("CR_LATER", True, True)
    # a client that has no consumer of that group answers SYSTEM_ERROR itself
    request_group = "failing_group"
    client = orderly_consumer.default_mq_push_consumer_impl.mq_client_factory
    assert client.consume_message_directly(stored, request_group, "broker-a") is None
    failing_consumer.shutdown()
    orderly_consumer.shutdown()
    # a lite pull consumer cannot be pushed to (Java: ClassCastException, answered SYSTEM_ERROR)
    lite = cluster.lite_consumer("lite_group", node="lite-1")
    lite.subscribe(TOPIC, "*")
    lite.start()
    cluster.run_for(1_000)
    lite_id = lite.default_lite_pull_consumer_impl.mq_client_factory.client_id
    _failed(world.admin("queryMsgById", "-i", stored.msg_id, "-g", "lite_group", "-d", lite_id), "cannot be cast")
    lite.shutdown()


@pytest.mark.spec("BRK-44", "BRK-48")
def test_a_consumer_that_does_not_answer_in_10_s_is_a_consume_msg_timeout(world):
    cluster = world.cluster
    stored = cluster.stored("broker-a", TOPIC)[0]
    slow = {"now": False, "runtime": None}

    def verdict(msgs, context):
        if slow["now"]:
            slow["runtime"].scheduler.sleep(12_000)  # the listener takes 12 s of virtual time
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    recorder = Recorder(cluster.world.clock.now_ms, verdict)
    consumer = cluster.push_consumer("slow_group", recorder, node="slow-1")
    slow["runtime"] = consumer.default_mq_push_consumer_impl.runtime
    assert cluster.wait_until(lambda: len(recorder.bodies) >= COUNT, 20_000)
    client_id = consumer.default_mq_push_consumer_impl.mq_client_factory.client_id
    slow["now"] = True
    _failed(
        world.admin("queryMsgById", "-i", stored.msg_id, "-g", "slow_group", "-d", client_id),
        "CODE: 207",
        f"consumer <slow_group> <{client_id}> Timeout: ",
    )
    slow["now"] = False

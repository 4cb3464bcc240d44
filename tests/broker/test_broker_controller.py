"""BrokerController: registration, unregistration and expiry, heartbeats and notices, locks, persistence, replay."""

from __future__ import annotations

import itertools

import pytest

from mqlab.broker.broker_controller import BrokerController, register_period_ms
from mqlab.common import util_all
from mqlab.common.jdk.hash_map import JavaHashSet
from mqlab.common.message.message_decoder import decodes
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.body.lock_batch_request_body import LockBatchRequestBody
from mqlab.common.protocol.body.lock_batch_response_body import LockBatchResponseBody
from mqlab.common.protocol.body.register_broker_body import RegisterBrokerBody
from mqlab.common.protocol.body.unlock_batch_request_body import UnlockBatchRequestBody
from mqlab.common.protocol.header import broker_headers as bh
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.protocol.route.topic_route_data import TopicRouteData
from mqlab.common.topic_config import TopicConfig
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.store.config.message_store_config import MessageStoreConfig
from tests.broker.cluster import BROKER_IP, Cluster


def record_calls(obj, name):
    """Wrap ``obj.name`` so each call records (start time, end time, args)."""
    calls = []
    original = getattr(obj, name)
    runtime = obj.runtime

    def wrapper(*args):
        began = runtime.now_ms()
        result = original(*args)
        calls.append((began, runtime.now_ms(), args))
        return result

    setattr(obj, name, wrapper)
    return calls


# -- registration -------------------------------------------------------------------------------------------------
def test_register_period_is_clamped_to_10_to_60_seconds():
    assert [register_period_ms(p) for p in (30_000, 5_000, 90_000, 45_000)] == [30_000, 10_000, 60_000, 45_000]


@pytest.mark.spec("BRK-28")
def test_registers_at_start_then_every_30_s_after_10_s(make_cluster):
    cluster = make_cluster(start=False)
    calls = record_calls(cluster.controller, "register_broker_all")
    cluster.start()
    cluster.run_for(75_000)
    # The first transaction check (60 s after start) creates RMQ_SYS_TRANS_HALF_TOPIC, which registers at once
    # (oneway, not forced to check order topics: createTopicInSendMessageBackMethod's registration, TXN-10).
    created = [(began, args) for began, _, args in calls if args != (True, False, True)]
    assert [(began - calls[0][0], args) for began, args in created] == [(60_000, (False, True, True))]
    calls = [call for call in calls if call[2] == (True, False, True)]
    starts = [began for began, _, _ in calls]
    assert len(calls) == 4
    first_done = calls[0][1]
    assert starts[1] == first_done + 10_000
    assert [b - a for a, b in itertools.pairwise(starts[1:])] == [30_000, 30_000]
    live = cluster.namesrv.route_info_manager.broker_live_table[cluster.broker_addr]
    assert cluster.now() - live.last_update_timestamp < 30_000
    topics = set(cluster.namesrv.route_info_manager.topic_queue_table)
    assert {"TBW102", "SELF_TEST_TOPIC", "DefaultCluster", "broker-a", "SCHEDULE_TOPIC_XXXX"} <= topics


@pytest.mark.spec("BRK-28")
@pytest.mark.parametrize("compressed", [False, True])
def test_register_body_and_crc_plain_or_compressed(make_cluster, compressed):
    cluster = make_cluster(broker={"compressed_register": compressed}, start=False)
    client = cluster.controller.broker_outer_api.remoting_client
    sent = []
    original = client.invoke_async

    def spy(addr, request, timeout, callback):
        sent.append(request)
        return original(addr, request, timeout, callback)

    client.invoke_async = spy
    cluster.start()
    request = sent[0]
    fields = request.ext_fields
    assert request.code == RequestCode.REGISTER_BROKER
    assert (fields["brokerName"], fields["brokerAddr"], fields["clusterName"], fields["brokerId"]) == (
        "broker-a",
        f"{BROKER_IP}:10911",
        "DefaultCluster",
        "0",
    )
    assert fields["haServerAddr"] == f"{BROKER_IP}:10912"
    assert fields["compressed"] == ("true" if compressed else "false")
    assert int(fields["bodyCrc32"]) == util_all.crc32(request.body)
    body = RegisterBrokerBody.decode(request.body, compressed)
    assert set(body.topic_config_serialize_wrapper.topic_config_table) == set(
        cluster.controller.topic_config_manager.topic_config_table
    )
    client_node = cluster.client()
    route = TopicRouteData.decode(client_node.route("TBW102").body)
    assert route.queue_datas[0].perm == 7


@pytest.mark.spec("BRK-28")
def test_without_force_register_the_broker_asks_for_the_data_version_first(make_cluster):
    cluster = make_cluster(broker={"force_register": False}, start=False)
    calls = record_calls(cluster.controller, "do_register_broker_all")
    cluster.start()
    cluster.run_for(11_000)
    assert len(calls) == 1  # at start (always forced); the 10 s run found nothing changed
    cluster.controller.topic_config_manager.update_topic_config(TopicConfig("Quiet", 4, 4, 6))
    cluster.run_for(30_000)
    assert len(calls) == 2
    assert "Quiet" in cluster.namesrv.route_info_manager.topic_queue_table


@pytest.mark.spec("BRK-28")
def test_a_read_only_broker_registers_its_topics_read_only(make_cluster):
    cluster = make_cluster(broker={"broker_permission": 4})
    route = TopicRouteData.decode(cluster.client().route("TBW102").body)
    assert route.queue_datas[0].perm == 4


@pytest.mark.spec("BRK-29")
def test_shutdown_unregisters_at_once(cluster):
    client = cluster.client()
    assert client.route("TBW102").code == ResponseCode.SUCCESS
    cluster.controller.shutdown()
    assert client.route("TBW102").code == ResponseCode.TOPIC_NOT_EXIST
    cluster.close(shutdown_broker=False)


@pytest.mark.spec("BRK-29")
def test_a_killed_broker_is_removed_when_its_connection_closes(cluster):
    client = cluster.client()
    cluster.run_for(20_000)
    cluster.world.network.kill("broker-a")
    cluster.run_for(10)  # well before the next 10 s scan
    assert cluster.broker_addr not in cluster.namesrv.route_info_manager.broker_live_table
    assert client.route("TBW102").code == ResponseCode.TOPIC_NOT_EXIST
    assert not cluster.world.trace.events("RouteInfoManager", event="brokerExpired")
    cluster.world.network.restart("broker-a")


@pytest.mark.spec("BRK-29", "NS-3")
def test_a_silent_broker_keeps_its_route_until_120_s_pass(cluster):
    client = cluster.client()
    cluster.run_for(20_000)  # registered at start and at 10 s
    last = cluster.namesrv.route_info_manager.broker_live_table[cluster.broker_addr].last_update_timestamp
    cluster.world.network.partition(["broker-a"], ["namesrv"])  # nothing arrives, nothing closes
    cluster.run_for(last + 119_000 - cluster.now())
    assert client.route("TBW102").code == ResponseCode.SUCCESS  # not yet 120 s
    cluster.run_for(last + 130_001 - cluster.now())
    assert cluster.broker_addr not in cluster.namesrv.route_info_manager.broker_live_table
    assert client.route("TBW102").code == ResponseCode.TOPIC_NOT_EXIST
    cluster.world.network.heal()


@pytest.mark.spec("BRK-29")
def test_offsets_are_persisted_periodically_and_everything_survives_a_restart(make_cluster):
    cluster = make_cluster()
    client = cluster.client()
    client.heartbeat("G1", {"TopicTest": "*"})
    client.send(client.message("TopicTest", b"kept", tags="TagA"), queue_id=0)
    client.call(RequestCode.UPDATE_CONSUMER_OFFSET, bh.UpdateConsumerOffsetRequestHeader("G1", "TopicTest", 0, 1))
    offsets_file = cluster.tmp_path / "store" / "config" / "consumerOffset.json"
    assert not offsets_file.exists()
    cluster.run_for(10_000)
    assert '"TopicTest@G1":{0:1' in offsets_file.read_text().replace("\n", "").replace("\t", "")
    cluster.controller.shutdown()
    again = BrokerController(
        cluster.broker_config,
        NettyServerConfig(listen_port=10911),
        NettyClientConfig(),
        MessageStoreConfig.under(str(cluster.tmp_path / "store"), **cluster.store_settings),
        cluster.broker_rt,
        listen_host=cluster.listen_host,
    )
    assert again.initialize()
    again.start()
    cluster.controller = again
    assert again.topic_config_manager.select_topic_config("%RETRY%G1") is not None
    assert again.subscription_group_manager.subscription_group_table.get("G1") is not None
    assert again.consumer_offset_manager.query_offset("G1", "TopicTest", 0) == 1
    other = cluster.client("client-2", "10.0.0.4")
    other.heartbeat("G1", {"TopicTest": "*"})
    pulled = other.pull("G1", "TopicTest", 0, 0, suspend=False)
    assert [m.body for m in decodes(pulled.body)] == [b"kept"]


# -- clients ------------------------------------------------------------------------------------------------------
@pytest.mark.spec("BRK-30", "BRK-6")
def test_heartbeats_register_groups_create_retry_topics_and_notify_members(cluster):
    first, second = cluster.client(), cluster.client("client-2", "10.0.0.4")
    assert first.heartbeat("G1", {"TopicTest": "*"}, producer="PG").code == ResponseCode.SUCCESS
    cluster.run_for(10)
    controller = cluster.controller
    assert controller.subscription_group_manager.subscription_group_table.get("G1") is not None
    retry = controller.topic_config_manager.select_topic_config("%RETRY%G1")
    assert (retry.read_queue_nums, retry.write_queue_nums, retry.perm) == (1, 1, 6)
    assert TopicRouteData.decode(first.route("%RETRY%G1").body).queue_datas[0].write_queue_nums == 1
    assert "PG" in controller.producer_manager.group_channel_table
    assert [group for _, group in first.notices] == ["G1"]  # a new member is told too
    second.heartbeat("G1", {"TopicTest": "*"})
    cluster.run_for(10)
    assert ([g for _, g in first.notices], [g for _, g in second.notices]) == (["G1", "G1"], ["G1"])
    first.heartbeat("G1", {"TopicTest": "*"})  # nothing changed: no notice
    cluster.run_for(10)
    assert len(first.notices) == 2
    second.remoting.close_channel(second.remoting.channel_tables[cluster.broker_addr].get_channel())
    cluster.run_for(10)
    assert len(first.notices) == 3  # a member left
    assert controller.consumer_manager.get_consumer_group_info("G1").get_all_client_id() == [first.client_id]
    unregister = first.call(
        RequestCode.UNREGISTER_CLIENT, bh.UnregisterClientRequestHeader(first.client_id, "PG", "G1")
    )
    assert (unregister.code, unregister.remark) == (ResponseCode.SUCCESS, None)
    assert controller.consumer_manager.get_consumer_group_info("G1") is None
    assert "PG" not in controller.producer_manager.group_channel_table


@pytest.mark.spec("BRK-30")
def test_housekeeping_drops_clients_silent_for_120_s(make_cluster):
    cluster = make_cluster(server={"server_channel_max_idle_time_seconds": 0})
    client = cluster.client()
    client.remoting.channel_max_idle_time_seconds = 0  # neither side closes the quiet connection itself
    client.heartbeat("G1", {"TopicTest": "*"})
    heard = cluster.now()
    cluster.run_for(119_000)
    assert cluster.controller.consumer_manager.get_consumer_group_info("G1") is not None
    cluster.run_for(12_000)
    assert cluster.controller.consumer_manager.get_consumer_group_info("G1") is None
    expired = cluster.world.trace.events("ClientHousekeepingService", event="expired")
    assert len(expired) == 1 and 120_000 < expired[0].time_ms - heard <= 130_000


@pytest.mark.spec("BRK-31", "BRK-7")
def test_lock_and_unlock_batch(cluster):
    first, second = cluster.client(), cluster.client("client-2", "10.0.0.4")
    q = [MessageQueue("TopicTest", "broker-a", i) for i in range(3)]

    def lock(client, queues):
        body = LockBatchRequestBody("G1", client.client_id, JavaHashSet(queues)).encode()
        response = client.call(RequestCode.LOCK_BATCH_MQ, body=body)
        assert (response.code, response.remark) == (ResponseCode.SUCCESS, None)
        return response

    answer = lock(first, [q[0], q[1]])
    assert set(LockBatchResponseBody.decode(answer.body).lock_ok_mq_set) == {q[0], q[1]}
    assert answer.body.startswith(b'{"lockOKMQSet":[{"brokerName":"broker-a","queueId":')
    assert set(LockBatchResponseBody.decode(lock(second, [q[1], q[2]]).body).lock_ok_mq_set) == {q[2]}
    body = UnlockBatchRequestBody("G1", first.client_id, JavaHashSet([q[1]])).encode()
    unlock = first.call(RequestCode.UNLOCK_BATCH_MQ, body=body)
    assert (unlock.code, unlock.remark) == (ResponseCode.SUCCESS, None)
    assert set(LockBatchResponseBody.decode(lock(second, [q[1]]).body).lock_ok_mq_set) == {q[1]}
    assert LockBatchRequestBody("G1", "c", JavaHashSet([q[0]])).encode() == (
        b'{"clientId":"c","consumerGroup":"G1","mqSet":[{"brokerName":"broker-a","queueId":0,"topic":"TopicTest"}]}'
    )


# -- determinism --------------------------------------------------------------------------------------------------
def scenario(tmp_path, seed):
    cluster = Cluster(tmp_path, seed=seed)
    try:
        client = cluster.client()
        client.heartbeat("G1", {"TopicTest": "TagA"})
        for i in range(3):
            client.send(client.message("TopicTest", f"m{i}".encode(), tags="TagA"), queue_id=-1)
        cluster.run_for(20)
        end = cluster.controller.message_store.get_max_offset_in_queue("TopicTest", 0)
        future, _ = client.pull_async("G1", "TopicTest", 0, end)
        cluster.run_for(20)
        client.send(client.message("TopicTest", b"late", tags="TagA"), queue_id=0)
        cluster.run_for(35_000)
        future.result(0)
        return cluster.world.trace.dump()
    finally:
        cluster.close()


@pytest.mark.spec("BRK-35")
def test_same_seed_same_trace(tmp_path):
    first = scenario(tmp_path / "a" / "run", 3)
    second = scenario(tmp_path / "b" / "run", 3)
    assert first == second
    assert " wakeup topic=TopicTest queueId=0" in first and " registerBrokerAll namesrvs=1" in first
    assert scenario(tmp_path / "c" / "run", 4) != first

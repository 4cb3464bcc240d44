"""MQClientInstance and MQClientManager: one engine per client id, routes, addresses, heartbeats, timers, services."""

from __future__ import annotations

import random

import pytest

from mqlab.client.client_config import ClientConfig
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl import client_remoting_processor as crp
from mqlab.client.impl.factory import mq_client_instance as mci
from mqlab.client.impl.factory.mq_client_instance import (
    MQClientInstance,
    topic_route_data2_topic_publish_info,
    topic_route_data2_topic_subscribe_info,
    topic_route_data_is_change,
)
from mqlab.client.impl.find_broker_result import FindBrokerResult
from mqlab.client.impl.mq_client_manager import MQClientManager
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.filter.filter_api import build_subscription_data
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message.message import Message
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.header.broker_headers import NotifyConsumerIdsChangedRequestHeader
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.protocol.route.broker_data import BrokerData
from mqlab.common.protocol.route.queue_data import QueueData
from mqlab.common.protocol.route.topic_route_data import TopicRouteData
from mqlab.common.service_state import ServiceState
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from mqlab.runtime import SimulatedWorld
from tests.client.cluster_fixtures import ClientCluster

TOPIC = "InstTopic"
REAL_LOAD = mci._load


class FakeConsumer:
    """An MQConsumerInner that records what the instance asks of it."""

    def __init__(self, group: str, topics: tuple[str, ...], runtime, *, running_info=None, fail_rebalance=False):
        self.group, self.runtime = group, runtime
        self.subs = [build_subscription_data(t, "*", 1) for t in topics]
        self.subscribe_info: dict[str, set[MessageQueue]] = {}
        self.rebalances = 0
        self.persisted: list[int] = []
        self.running_info = running_info
        self.fail_rebalance = fail_rebalance

    def group_name(self):
        return self.group

    def message_model(self):
        return MessageModel.CLUSTERING

    def consume_type(self):
        return ConsumeType.CONSUME_PASSIVELY

    def consume_from_where(self):
        return ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET

    def subscriptions(self):
        return self.subs

    def do_rebalance(self):
        self.rebalances += 1
        if self.fail_rebalance:
            raise RuntimeError("rebalance failed")

    def persist_consumer_offset(self):
        self.persisted.append(self.runtime.now_ms())

    def update_topic_subscribe_info(self, topic, info):
        self.subscribe_info[topic] = info

    def is_subscribe_topic_need_update(self, topic):
        return not self.subscribe_info.get(topic)

    def is_unit_mode(self):
        return False

    def consumer_running_info(self):
        return self.running_info


class Wakeups:
    """Stands in for the RebalanceService / PullMessageService of the consumer side."""

    def __init__(self, instance):
        self.instance = instance
        self.calls: list[str] = []

    def start(self):
        self.calls.append("start")

    def shutdown(self):
        self.calls.append("shutdown")

    def wakeup(self):
        self.calls.append("wakeup")


@pytest.fixture(autouse=True)
def stand_in_services(monkeypatch):
    """The consumer side's services are replaced by recorders: these tests are about the instance alone."""
    monkeypatch.setattr(mci, "_load", lambda where: Wakeups)


@pytest.fixture
def cluster(tmp_path):
    cluster = ClientCluster(tmp_path, brokers=("broker-a", "broker-b"))
    cluster.make_topic(TOPIC, 2)
    yield cluster
    cluster.close()


def config(runtime, cluster: ClientCluster | None = None, name: str = "inst") -> ClientConfig:
    return ClientConfig(
        client_ip=runtime.host.ip, namesrv_addr=cluster.namesrv_addr if cluster else None, instance_name=name
    )


def route(*queue_datas: QueueData, brokers: dict[str, dict[int, str]], order: str | None = None) -> TopicRouteData:
    broker_datas = [BrokerData("DefaultCluster", name, JavaHashMap(addrs)) for name, addrs in brokers.items()]
    return TopicRouteData(order, list(queue_datas), broker_datas)


# --- the manager --------------------------------------------------------------------------------------------------


@pytest.mark.spec("INST-1")
def test_one_instance_per_client_id_per_node():
    world = SimulatedWorld(1)
    node_a, node_b = world.runtime("a"), world.runtime("b")
    manager = MQClientManager.get_instance(node_a)
    assert MQClientManager.get_instance(node_a) is manager
    assert MQClientManager.get_instance(node_b) is not manager
    first_config = config(node_a, name="x")
    first = manager.get_or_create_mq_client_instance(first_config)
    assert manager.get_or_create_mq_client_instance(config(node_a, name="x")) is first
    second = manager.get_or_create_mq_client_instance(config(node_a, name="y"))
    assert (first.client_id, second.client_id) == (f"{node_a.host.ip}@x", f"{node_a.host.ip}@y")
    assert (first.instance_index, second.instance_index) == (0, 1)
    assert first.client_config is not first_config and type(first.client_config) is ClientConfig
    assert first.client_config.instance_name == "x"
    assert MQClientManager.get_instance(node_b).get_or_create_mq_client_instance(config(node_b, name="x")) is not first
    manager.remove_client_factory(first.client_id)
    assert manager.get_or_create_mq_client_instance(config(node_a, name="x")) is not first


# --- start, timers, services --------------------------------------------------------------------------------------


@pytest.mark.spec("INST-2")
def test_start_runs_the_timers_and_the_inner_producer(cluster):
    runtime = cluster.client_runtime()
    instance = MQClientManager.get_instance(runtime).get_or_create_mq_client_instance(config(runtime, cluster))
    assert instance.service_state is ServiceState.CREATE_JUST
    consumer = FakeConsumer("CG", (TOPIC,), runtime)
    assert instance.register_consumer("CG", consumer)
    started = runtime.now_ms()
    instance.start()
    instance.start()  # a second start does nothing
    assert instance.service_state is ServiceState.RUNNING
    assert instance.pull_message_service.calls == ["start"] and instance.rebalance_service.calls == ["start"]
    assert sorted(instance.producer_table) == ["CLIENT_INNER_PRODUCER"]
    assert instance.default_mq_producer.default_mq_producer_impl.mq_client_factory is instance

    cluster.run_for(65_000)
    assert cluster.world is not None
    refreshes = [
        e.time_ms - started for e in cluster.world.trace.events("MQClientAPIImpl", node=runtime.node, event="route")
    ]
    assert (
        refreshes[0] < 20
        and any(30_000 <= t < 30_020 for t in refreshes)
        and any(60_000 <= t < 60_020 for t in refreshes)
    )
    beats = [
        e.time_ms - started
        for e in cluster.world.trace.events("MQClientInstance", node=runtime.node, event="heartbeat")
    ]
    assert sorted({t // 1000 for t in beats}) == [1, 31, 61]
    assert [t - started for t in consumer.persisted][:3] == [10_000, 15_000, 20_000]
    assert len(consumer.persisted) == 12  # 10 s, then every 5 s up to 65 s

    instance.unregister_consumer("CG")
    instance.shutdown()
    assert instance.service_state is ServiceState.SHUTDOWN_ALREADY
    assert instance.pull_message_service.calls == ["start", "shutdown"]
    assert instance.client_id not in MQClientManager.get_instance(runtime).factory_table
    count = len(consumer.persisted)
    cluster.run_for(20_000)
    assert len(consumer.persisted) == count  # the timers are gone


@pytest.mark.spec("INST-2")
def test_a_failed_start_is_not_retried():
    world = SimulatedWorld(2)
    runtime = world.runtime("c")
    instance = MQClientInstance(config(runtime, name="f"), 0, "c@f", runtime)
    instance.service_state = ServiceState.START_FAILED
    with pytest.raises(MQClientException, match=r"The Factory object\[c@f\] has been created before, and failed"):
        instance.start()


@pytest.mark.spec("INST-9")
def test_missing_consumer_services_are_skipped_with_a_trace_event(monkeypatch):
    monkeypatch.setattr(mci, "_load", REAL_LOAD)
    monkeypatch.setattr(mci, "PULL_MESSAGE_SERVICE", ("mqlab.client.impl.consumer.no_such_module", "X"))
    monkeypatch.setattr(mci, "REBALANCE_SERVICE", ("mqlab.client.impl.consumer.no_such_module", "Y"))
    world = SimulatedWorld(3)
    runtime = world.runtime("c")
    instance = MQClientInstance(config(runtime, name="m"), 0, "c@m", runtime)
    assert instance.pull_message_service is None and instance.rebalance_service is None
    missing = [e.fields["service"] for e in world.trace.events("MQClientInstance", event="serviceMissing")]
    assert missing == ["X", "Y"]
    instance.rebalance_immediately()  # nothing to wake, no failure


# --- routes -------------------------------------------------------------------------------------------------------


@pytest.mark.spec("INST-3")
def test_publish_info_takes_writable_queues_of_brokers_with_a_master_in_broker_order():
    data = route(
        QueueData("broker-c", 4, 4, 6),
        QueueData("broker-a", 2, 3, 6),
        QueueData("broker-b", 4, 4, 4),  # read-only
        QueueData("broker-e", 1, 1, 2),  # write-only
        QueueData("broker-d", 4, 2, 6),  # no master
        brokers={
            "broker-a": {0: "a:1"}, "broker-b": {0: "b:1"}, "broker-c": {0: "c:1"}, "broker-d": {1: "d:1"},
            "broker-e": {0: "e:1"},
        },
    )  # fmt: skip
    info = topic_route_data2_topic_publish_info("T", data, random.Random(0))
    assert [(mq.broker_name, mq.queue_id) for mq in info.message_queue_list] == [
        ("broker-a", 0), ("broker-a", 1), ("broker-a", 2),
        ("broker-c", 0), ("broker-c", 1), ("broker-c", 2), ("broker-c", 3),
        ("broker-e", 0),
    ]  # fmt: skip
    assert not info.order_topic and info.topic_route_data is data
    assert [q.broker_name for q in data.queue_datas] == ["broker-a", "broker-b", "broker-c", "broker-d", "broker-e"]
    subscribe = topic_route_data2_topic_subscribe_info("T", data)
    readable = (("broker-a", 2), ("broker-b", 4), ("broker-c", 4), ("broker-d", 4))
    assert subscribe == {MessageQueue("T", b, i) for b, n in readable for i in range(n)}

    ordered = route(QueueData("broker-a", 8, 8, 2), brokers={}, order="broker-b:2;broker-a:1")
    info = topic_route_data2_topic_publish_info("T", ordered, random.Random(0))
    assert info.order_topic
    assert [(mq.broker_name, mq.queue_id) for mq in info.message_queue_list] == [
        ("broker-b", 0),
        ("broker-b", 1),
        ("broker-a", 0),
    ]

    assert topic_route_data_is_change(None, data)
    brokers = {bd.broker_name: dict(bd.broker_addrs) for bd in reversed(data.broker_datas)}
    shuffled = route(
        *reversed([QueueData(q.broker_name, q.read_queue_nums, q.write_queue_nums, q.perm) for q in data.queue_datas]),
        brokers=brokers,
    )
    assert not topic_route_data_is_change(data, shuffled)
    shuffled.queue_datas[0].write_queue_nums = 5
    assert topic_route_data_is_change(data, shuffled)


@pytest.mark.spec("INST-4")
def test_route_updates_spread_to_producers_and_consumers(cluster):
    runtime = cluster.client_runtime()
    instance = MQClientManager.get_instance(runtime).get_or_create_mq_client_instance(config(runtime, cluster))
    consumer = FakeConsumer("CG", (TOPIC,), runtime)
    instance.register_consumer("CG", consumer)
    instance.start()
    cluster.run_for(100)  # the first timer run fetched every topic in use
    assert set(instance.topic_route_table) == {TOPIC, "TBW102"}
    assert consumer.subscribe_info[TOPIC] == {
        MessageQueue(TOPIC, b, i) for b in ("broker-a", "broker-b") for i in range(2)
    }
    assert set(instance.broker_addr_table) == {"broker-a", "broker-b"}
    inner = instance.default_mq_producer.default_mq_producer_impl
    assert [str(mq.queue_id) + mq.broker_name for mq in inner.topic_publish_info_table[TOPIC].message_queue_list] == [
        "0broker-a", "1broker-a", "0broker-b", "1broker-b",
    ]  # fmt: skip
    assert instance.update_topic_route_info_from_name_server(TOPIC) is False  # unchanged, nobody lacks queues
    consumer.subscribe_info.clear()
    assert instance.update_topic_route_info_from_name_server(TOPIC) is True  # a consumer lacked queues
    assert instance.update_topic_route_info_from_name_server("NoSuchTopic") is False

    # a new topic through TBW102's route: each QueueData cut to min(defaultTopicQueueNums, readQueueNums)
    producer = cluster.producer("PG", default_topic_queue_nums=3)
    assert instance.update_topic_route_info_from_name_server("Fresh", True, producer) is True
    fresh = instance.topic_route_table["Fresh"]
    assert [(q.broker_name, q.read_queue_nums, q.write_queue_nums, q.perm) for q in fresh.queue_datas] == [
        ("broker-a", 3, 3, 7), ("broker-b", 3, 3, 7),
    ]  # fmt: skip

    cluster.world.network.partition([runtime.node], ["namesrv"])
    with pytest.raises(RuntimeError, match="Remoting"):
        instance.update_topic_route_info_from_name_server(TOPIC)  # Java: IllegalStateException
    cluster.world.network.heal()
    instance.unregister_consumer("CG")
    instance.shutdown()


# --- broker addresses ---------------------------------------------------------------------------------------------


@pytest.mark.spec("INST-5")
def test_broker_address_lookups():
    world = SimulatedWorld(4)
    runtime = world.runtime("c")
    instance = MQClientInstance(config(runtime, name="addr"), 0, "c@addr", runtime)
    instance.broker_addr_table["broker-a"] = JavaHashMap({0: "a0:1", 1: "a1:1"})
    instance.broker_addr_table["broker-b"] = JavaHashMap({1: "b1:1", 2: "b2:1"})
    instance.broker_version_table["broker-a"] = {"a1:1": 399}
    assert instance.find_broker_address_in_publish("broker-a") == "a0:1"
    assert instance.find_broker_address_in_publish("broker-b") is None  # no master
    assert instance.find_broker_address_in_publish("broker-z") is None
    assert instance.find_broker_address_in_subscribe("broker-a", 0, False) == FindBrokerResult("a0:1", False, 0)
    assert instance.find_broker_address_in_subscribe("broker-a", 1, True) == FindBrokerResult("a1:1", True, 399)
    # a missing slave id: the next id; a missing master: the first address of the table unless only that broker
    assert instance.find_broker_address_in_subscribe("broker-b", 1, True) == FindBrokerResult("b1:1", True, 0)
    assert instance.find_broker_address_in_subscribe("broker-b", 0, True) is None
    assert instance.find_broker_address_in_subscribe("broker-b", 0, False) == FindBrokerResult("b1:1", True, 0)
    assert instance.find_broker_address_in_subscribe("broker-a", 5, True) is None
    assert instance.find_broker_address_in_subscribe("broker-z", 0, False) is None
    assert instance.get_any_broker_addr_by_name("broker-a") == "a0:1"
    assert instance.get_any_broker_addr_by_name("broker-b") == "b1:1"
    assert instance.get_any_broker_addr_by_name("broker-z") is None
    instance.topic_route_table["T"] = route(brokers={"broker-a": {0: "a0:1"}, "broker-b": {1: "b1:1"}})
    picks = {instance.find_broker_addr_by_topic("T") for _ in range(20)}
    assert picks == {"a0:1", "b1:1"}  # a random broker of the route, its master when it has one
    assert instance.find_broker_addr_by_topic("Unknown") is None

    instance.clean_offline_broker()  # "a1:1" and "b2:1" are in no route any more
    assert dict(instance.broker_addr_table["broker-a"]) == {0: "a0:1"}
    assert dict(instance.broker_addr_table["broker-b"]) == {1: "b1:1"}
    del instance.topic_route_table["T"]
    instance.clean_offline_broker()
    assert len(instance.broker_addr_table) == 0


# --- heartbeats and registration ----------------------------------------------------------------------------------


@pytest.mark.spec("INST-6")
def test_heartbeats_reach_the_brokers_client_managers(cluster):
    producer = cluster.producer("PG")
    producer.send(Message(TOPIC, body=b"x"))
    instance = producer.default_mq_producer_impl.mq_client_factory
    data = instance.prepare_heartbeat_data()
    assert data.client_id == instance.client_id
    assert sorted(p.group_name for p in data.producer_data_set) == ["CLIENT_INNER_PRODUCER", "PG"]
    assert data.consumer_data_set == []
    cluster.run_for(1500)
    for broker in cluster.brokers.values():
        table = broker.producer_manager.group_channel_table
        assert {"PG", "CLIENT_INNER_PRODUCER"} <= set(table)
        (info,) = table["PG"].values()
        assert (info.client_id, info.version) == (instance.client_id, 399)
    assert instance.broker_version_table["broker-a"] == {cluster.broker_addr("broker-a"): 399}

    # a consumer group makes heartbeats carry its subscriptions
    consumer = FakeConsumer("CG", (TOPIC,), producer.runtime)
    instance.register_consumer("CG", consumer)
    instance.send_heartbeat_to_all_broker_with_lock()
    group = cluster.brokers["broker-a"].consumer_manager.get_consumer_group_info("CG")
    assert group is not None and TOPIC in group.subscription_table
    assert group.consume_from_where is ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET

    with instance.lock_heartbeat:  # another heartbeat under way: this one is skipped
        instance.send_heartbeat_to_all_broker_with_lock()
    assert cluster.world.trace.events("MQClientInstance", event="heartbeatSkipped")
    instance.unregister_consumer("CG")
    assert cluster.brokers["broker-a"].consumer_manager.get_consumer_group_info("CG") is None


@pytest.mark.spec("INST-6")
def test_producer_only_clients_heartbeat_masters_only():
    world = SimulatedWorld(5)
    runtime = world.runtime("c")
    instance = MQClientInstance(config(runtime, name="hb"), 0, "c@hb", runtime)
    sent = []
    instance.mq_client_api_impl.send_heartbeat = lambda addr, data, timeout: sent.append(addr) or 399
    instance.broker_addr_table["broker-a"] = JavaHashMap({0: "a0:1", 1: "a1:1"})
    instance.send_heartbeat_to_all_broker()
    assert sent == []  # nobody registered: nothing to say
    instance.register_producer("PG", instance.default_mq_producer.default_mq_producer_impl)
    instance.send_heartbeat_to_all_broker()
    assert sent == ["a0:1"]
    instance.register_consumer("CG", FakeConsumer("CG", ("T",), runtime))
    sent.clear()
    instance.send_heartbeat_to_all_broker()
    assert sent == ["a0:1", "a1:1"]


@pytest.mark.spec("INST-7")
def test_groups_register_once_and_leave_the_brokers_on_unregister(cluster):
    producer = cluster.producer("PG", instance_name="shared")
    other = cluster.producer("PG2", instance_name="shared", runtime=producer.runtime)
    instance = producer.default_mq_producer_impl.mq_client_factory
    assert other.default_mq_producer_impl.mq_client_factory is instance
    assert not instance.register_producer("PG", other.default_mq_producer_impl)
    assert not instance.register_producer(None, other.default_mq_producer_impl)
    assert instance.select_producer("PG") is producer.default_mq_producer_impl
    consumer = FakeConsumer("CG", (TOPIC,), producer.runtime)
    assert instance.register_consumer("CG", consumer) and not instance.register_consumer("CG", consumer)
    assert instance.select_consumer("CG") is consumer and instance.select_consumer("XX") is None
    producer.send(Message(TOPIC, body=b"x"))
    cluster.run_for(1500)
    table = cluster.brokers["broker-a"].producer_manager.group_channel_table
    assert "PG" in table
    producer.shutdown()
    assert "PG" not in table  # UNREGISTER_CLIENT to every broker
    assert instance.service_state is ServiceState.RUNNING  # PG2 and the consumer still use it
    other.shutdown()
    assert instance.service_state is ServiceState.RUNNING  # the consumer still does
    instance.unregister_consumer("CG")
    instance.shutdown()
    assert instance.service_state is ServiceState.SHUTDOWN_ALREADY
    cluster.producers.clear()


# --- requests from brokers ----------------------------------------------------------------------------------------


class Ctx:
    class channel:  # noqa: N801 (what a Netty context exposes)
        remote_address = "10.0.0.11:10911"


@pytest.mark.spec("INST-8")
def test_a_changed_consumer_group_makes_the_client_rebalance_now(cluster):
    runtime = cluster.client_runtime()
    instance = MQClientManager.get_instance(runtime).get_or_create_mq_client_instance(config(runtime, cluster))
    instance.register_consumer("CG", FakeConsumer("CG", (TOPIC,), runtime))
    instance.start()
    cluster.run_for(100)
    instance.send_heartbeat_to_all_broker_with_lock()  # joining the group makes the brokers notify its members
    cluster.run_for(50)
    assert instance.rebalance_service.calls.count("wakeup") == 2  # once per broker
    notices = cluster.world.trace.events("ClientRemotingProcessor", event="notifyConsumerIdsChanged")
    assert {e.fields["group"] for e in notices} == {"CG"}

    processor = instance.client_remoting_processor
    assert not processor.reject_request()
    request = RemotingCommand.create_request_command(
        RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, NotifyConsumerIdsChangedRequestHeader("CG"), opaque=1
    )
    request.mark_oneway_rpc()
    assert processor.process_request(Ctx(), request) is None
    assert instance.rebalance_service.calls.count("wakeup") == 3
    instance.unregister_consumer("CG")
    instance.shutdown()


@pytest.mark.spec("INST-8")
def test_other_broker_requests_are_answered_as_java_or_not_supported():
    world = SimulatedWorld(6)
    runtime = world.runtime("c")
    instance = MQClientInstance(config(runtime, name="rp"), 0, "c@rp", runtime)

    class Info:
        def encode(self):
            return b'{"properties":{}}'

    instance.register_consumer("CG", FakeConsumer("CG", ("T",), runtime, running_info=Info()))
    processor = crp.ClientRemotingProcessor(instance)
    ask = RemotingCommand.create_request_command(RequestCode.GET_CONSUMER_RUNNING_INFO, opaque=1)
    ask.add_ext_field("consumerGroup", "CG")
    answer = processor.process_request(Ctx(), ask)
    assert (answer.code, answer.body) == (ResponseCode.SUCCESS, b'{"properties":{}}')
    ask.ext_fields["consumerGroup"] = "Other"
    answer = processor.process_request(Ctx(), ask)
    assert (answer.code, answer.remark) == (
        ResponseCode.SYSTEM_ERROR,
        "The Consumer Group <Other> not exist in this consumer",
    )
    for code in (RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT,):
        answer = processor.process_request(Ctx(), RemotingCommand.create_request_command(code, opaque=2))
        assert (answer.code, answer.remark) == (
            ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
            f" request type {int(code)} not supported",
        )
    # a transaction check whose body does not decode is dropped without an answer (TXN-4)
    oneway = RemotingCommand.create_request_command(RequestCode.CHECK_TRANSACTION_STATE, opaque=3)
    oneway.mark_oneway_rpc()
    assert processor.process_request(Ctx(), oneway) is None
    # an offset reset is handled (INST-16): no answer, and nothing to do for a group that is not a push consumer
    reset = RemotingCommand.create_request_command(RequestCode.RESET_CONSUMER_CLIENT_OFFSET, opaque=4)
    reset.add_ext_field("topic", "T")
    reset.add_ext_field("group", "CG")
    reset.add_ext_field("timestamp", "-1")
    assert processor.process_request(Ctx(), reset) is None


# --- consumer hooks -----------------------------------------------------------------------------------------------


@pytest.mark.spec("INST-9")
def test_consumer_hooks_ids_rebalance_and_offsets(cluster):
    runtime = cluster.client_runtime()
    instance = MQClientManager.get_instance(runtime).get_or_create_mq_client_instance(config(runtime, cluster))
    good = FakeConsumer("CG", (TOPIC,), runtime)
    bad = FakeConsumer("CG-bad", (TOPIC,), runtime, fail_rebalance=True)
    instance.register_consumer("CG-bad", bad)
    instance.register_consumer("CG", good)
    assert instance.find_consumer_id_list(TOPIC, "CG") is None  # no broker knows the group yet
    instance.start()
    cluster.run_for(1500)  # routes, then a heartbeat with both groups
    assert instance.find_consumer_id_list(TOPIC, "CG") == [instance.client_id]
    instance.do_rebalance()
    assert (good.rebalances, bad.rebalances) == (1, 1)  # one failure does not stop the others
    assert cluster.world.trace.events("MQClientInstance", event="rebalanceFailed")
    instance.persist_all_consumer_offset()
    assert len(good.persisted) == len(bad.persisted) == 1
    for group in ("CG", "CG-bad"):
        instance.unregister_consumer(group)
    instance.shutdown()


# --- MQAdminImpl --------------------------------------------------------------------------------------------------


@pytest.mark.spec("INST-15")
def test_admin_calls_find_the_master_and_wrap_failures(cluster):
    producer = cluster.producer("PG")
    result = producer.send(Message(TOPIC, body=b"admin"), MessageQueue(TOPIC, "broker-b", 1))
    admin = producer.default_mq_producer_impl.mq_client_factory.mq_admin_impl
    mq = MessageQueue(TOPIC, "broker-b", 1)
    assert (producer.min_offset(mq), producer.max_offset(mq)) == (0, 1)
    stored_at = producer.earliest_msg_store_time(mq)
    assert producer.search_offset(mq, stored_at) == 0
    assert producer.view_message(result.offset_msg_id).body == b"admin"
    with pytest.raises(MQClientException, match="query message by id finished, but no message"):
        producer.view_message("not-an-id")
    with pytest.raises(MQClientException, match=r"The broker\[broker-z\] not exist"):
        admin.max_offset(MessageQueue(TOPIC, "broker-z", 0))
    assert producer.fetch_publish_message_queues(TOPIC) == [
        MessageQueue(TOPIC, b, i) for b in ("broker-a", "broker-b") for i in range(2)
    ]
    assert admin.fetch_subscribe_message_queues(TOPIC) == set(producer.fetch_publish_message_queues(TOPIC))
    with pytest.raises(MQClientException, match="Can not find Message Queue for this topic, Nope"):
        admin.fetch_subscribe_message_queues("Nope")
    producer.create_topic("TBW102", "Created", 3)
    for broker in cluster.brokers.values():
        assert broker.topic_config_manager.select_topic_config("Created").write_queue_nums == 3
    with pytest.raises(MQClientException, match="conflict with system topic"):
        producer.create_topic("TBW102", "SCHEDULE_TOPIC_XXXX", 3)
    with pytest.raises(MQClientException, match="create new topic failed"):
        admin.create_topic("NoSuchKey", "Created2", 3)

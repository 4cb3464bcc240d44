"""A master and its slave as brokers on a simulated cluster: registration, replication, what producers see
(docs/spec/store-ha.md)."""

from __future__ import annotations

import pytest

from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.client.producer.send_status import SendStatus
from mqlab.cluster import Cluster
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.message.message import Message
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.store.config.broker_role import BrokerRole
from tests.broker.cluster import Client

STORE = {"mapped_file_size_commit_log": 1 << 20}


def _cluster(tmp_path, role=BrokerRole.SYNC_MASTER, seed=5) -> Cluster:
    cluster = Cluster.simulated(tmp_path, slaves=1, seed=seed, store_settings={**STORE, "broker_role": role})
    return cluster.start()


def _wait_replicating(cluster: Cluster) -> None:
    master = cluster.broker("broker-a").message_store.ha_service
    assert cluster.wait_until(lambda: any(c.slave_request_offset >= 0 for c in master.connection_list), 30_000)


def _producer(cluster: Cluster) -> DefaultMQProducer:
    # A SYNC_MASTER may take the whole slaveTimeout (3 s, the default send timeout too) to answer.
    producer = DefaultMQProducer(
        "pg", cluster.client_runtime("producer"), namesrv_addr=cluster.namesrv_addr, send_msg_timeout=10_000
    )
    producer.start()
    return producer


@pytest.mark.spec("HA-11")
def test_slave_learns_the_masters_ha_address_from_its_registration(tmp_path):
    cluster = _cluster(tmp_path)
    try:
        master, slave = cluster.broker("broker-a"), cluster.broker("broker-a-s1")
        assert slave.broker_config.broker_id == 1
        assert slave.update_master_ha_server_addr_periodically
        assert (
            slave.message_store.ha_service.ha_client.master_address == master.get_ha_server_addr() == "10.0.1.1:10912"
        )
        assert slave.slave_synchronize.master_addr == master.get_broker_addr()
        route = cluster.namesrv.route_info_manager.pickup_topic_route_data("TBW102")
        assert route.broker_datas[0].broker_addrs == {0: "10.0.1.1:10911", 1: "10.0.1.101:10911"}
        _wait_replicating(cluster)
    finally:
        cluster.shutdown()


@pytest.mark.spec("HA-7", "HA-12")
def test_sync_master_producer_sees_send_ok_and_the_slave_holds_every_message(tmp_path):
    cluster = _cluster(tmp_path)
    try:
        _wait_replicating(cluster)
        producer = _producer(cluster)
        results = [producer.send(Message("TopicTest", "TagA", f"k{i}", f"m{i}".encode())) for i in range(10)]
        assert {r.send_status for r in results} == {SendStatus.SEND_OK}
        master, slave = cluster.broker("broker-a").message_store, cluster.broker("broker-a-s1").message_store
        assert slave.get_max_phy_offset() >= master.get_max_phy_offset() > 0
        producer.shutdown()
    finally:
        cluster.shutdown()
    reports = cluster.verify_stores()
    assert reports["broker-a-s1"].ok and reports["broker-a-s1"].records == reports["broker-a"].records


@pytest.mark.spec("HA-8")
def test_partition_gives_flush_slave_timeout_then_slave_not_available(tmp_path):
    cluster = _cluster(tmp_path)
    try:
        _wait_replicating(cluster)
        producer = _producer(cluster)
        assert producer.send(Message("TopicTest", "TagA", "k", b"first")).send_status is SendStatus.SEND_OK
        cluster.world.network.partition(["broker-a"], ["broker-a-s1"])
        status = producer.send(Message("TopicTest", "TagA", "k", b"second")).send_status
        assert status is SendStatus.FLUSH_SLAVE_TIMEOUT
        cluster.world.run_for(25_000)  # haHousekeepingInterval: the master drops the silent slave
        status = producer.send(Message("TopicTest", "TagA", "k", b"third")).send_status
        assert status is SendStatus.SLAVE_NOT_AVAILABLE
        cluster.world.network.heal()
        master, slave = cluster.broker("broker-a").message_store, cluster.broker("broker-a-s1").message_store
        assert cluster.wait_until(lambda: slave.get_max_phy_offset() == master.get_max_phy_offset(), 30_000)
        producer.shutdown()
    finally:
        cluster.shutdown()


@pytest.mark.spec("HA-8")
def test_async_master_answers_send_ok_under_partition(tmp_path):
    cluster = _cluster(tmp_path, role=BrokerRole.ASYNC_MASTER)
    try:
        _wait_replicating(cluster)
        producer = _producer(cluster)
        cluster.world.network.partition(["broker-a"], ["broker-a-s1"])
        statuses = {producer.send(Message("TopicTest", "TagA", "k", b"x")).send_status for _ in range(3)}
        assert statuses == {SendStatus.SEND_OK}
        producer.shutdown()
    finally:
        cluster.shutdown()


@pytest.mark.spec("HA-13")
def test_a_slave_refuses_sends_with_service_not_available(tmp_path):
    cluster = _cluster(tmp_path)
    try:
        client = Client(
            cluster.client_runtime("raw"), cluster.broker("broker-a-s1").get_broker_addr(), cluster.namesrv_addr
        )
        response = client.send(client.message("TopicTest", b"x", tags="TagA"))
        assert response.code == ResponseCode.SERVICE_NOT_AVAILABLE
        assert "messages are put to the slave" in (response.remark or "")
        client.close()
    finally:
        cluster.shutdown()


def _send_acknowledged(cluster: Cluster, count: int) -> set[bytes]:
    """Send ``m0``... to TopicTest, each answered SEND_OK, and stop the producer; returns the bodies."""
    producer = _producer(cluster)
    bodies = [f"m{i}".encode() for i in range(count)]
    for body in bodies:
        assert producer.send(Message("TopicTest", "TagA", "k", body)).send_status is SendStatus.SEND_OK
    producer.shutdown()
    return set(bodies)


def _consume_all(cluster: Cluster, group: str, expected: int) -> tuple[DefaultMQPushConsumer, list[bytes]]:
    received: list[bytes] = []

    def on_messages(msgs, context):
        received.extend(msg.body for msg in msgs)
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    consumer = DefaultMQPushConsumer(
        group,
        cluster.client_runtime(group),
        namesrv_addr=cluster.namesrv_addr,
        consume_from_where=ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET,
    )
    consumer.subscribe("TopicTest", "*")
    consumer.register_message_listener(on_messages)
    consumer.start()
    assert cluster.wait_until(lambda: len(set(received)) >= expected, 60_000)
    return consumer, received


@pytest.mark.spec("HA-14")
def test_slave_synchronize_copies_topics_and_consumer_offsets(tmp_path):
    cluster = _cluster(tmp_path)
    try:
        _wait_replicating(cluster)
        producer = _producer(cluster)
        for i in range(4):
            producer.send(Message("TopicTest", "TagA", "k", f"m{i}".encode()))
        consumer, _ = _consume_all(cluster, "CG", 4)
        consumer.default_mq_push_consumer_impl.persist_consumer_offset()
        master, slave = cluster.broker("broker-a"), cluster.broker("broker-a-s1")
        assert cluster.wait_until(lambda: master.consumer_offset_manager.query_offsets("CG", "TopicTest"), 10_000)
        cluster.world.run_for(10_000)  # one SlaveSynchronize period
        assert "TopicTest" in slave.topic_config_manager.topic_config_table
        assert slave.topic_config_manager.data_version == master.topic_config_manager.data_version
        assert slave.consumer_offset_manager.query_offsets("CG", "TopicTest") == dict(
            master.consumer_offset_manager.query_offsets("CG", "TopicTest")
        )
        consumer.shutdown()
        producer.shutdown()
    finally:
        cluster.shutdown()


@pytest.mark.spec("HA-15")
def test_consumers_read_from_the_slave_while_the_master_is_down(tmp_path):
    cluster = _cluster(tmp_path)
    try:
        _wait_replicating(cluster)
        bodies = _send_acknowledged(cluster, 10)
        cluster.world.run_for(31_000)  # the master registers the new topic, the slave copies it and registers too
        cluster.kill_broker("broker-a")
        namesrv = cluster.namesrv.route_info_manager
        assert cluster.wait_until(lambda: "10.0.1.1:10911" not in namesrv.broker_live_table, 5_000)
        route = namesrv.pickup_topic_route_data("TopicTest")
        assert route.broker_datas[0].broker_addrs == {1: "10.0.1.101:10911"}
        consumer, received = _consume_all(cluster, "CG2", len(bodies))
        assert set(received) == bodies
        slave = cluster.broker("broker-a-s1")
        consumer.default_mq_push_consumer_impl.persist_consumer_offset()
        # With the master gone, offsets are committed to the slave, which keeps them (its sync is paused).
        assert cluster.wait_until(
            lambda: sum((slave.consumer_offset_manager.query_offsets("CG2", "TopicTest") or {}).values()) == 10,
            10_000,
        )
        cluster.world.run_for(31_000)  # a registration round: no live master, so no master address
        assert slave.slave_synchronize.master_addr is None
        consumer.shutdown()
    finally:
        cluster.shutdown()


@pytest.mark.spec("HA-18")
def test_a_slave_restarted_while_its_master_is_down_brings_no_queues_back(tmp_path):
    cluster = _cluster(tmp_path)
    try:
        _wait_replicating(cluster)
        bodies = _send_acknowledged(cluster, 4)
        cluster.world.run_for(31_000)  # the master registers the new topic, the slave copies it and registers too
        namesrv = cluster.namesrv.route_info_manager
        cluster.crash_broker("broker-a")
        assert cluster.wait_until(lambda: "10.0.1.1:10911" not in namesrv.broker_live_table, 5_000)
        assert namesrv.pickup_topic_route_data("TopicTest").queue_datas  # the slave keeps broker-a's queues
        cluster.crash_broker("broker-a-s1")
        assert cluster.wait_until(lambda: namesrv.pickup_topic_route_data("TopicTest") is None, 5_000)
        slave = cluster.restart_broker("broker-a-s1")
        assert slave.message_store.get_max_offset_in_queue("TopicTest", 0) > 0  # the copy is still on its disk
        cluster.world.run_for(31_000)  # at least one registration of the slave, with its whole topic table
        assert "10.0.1.101:10911" in namesrv.broker_live_table
        assert "broker-a" in namesrv.broker_addr_table
        assert namesrv.pickup_topic_route_data("TopicTest") is None  # no queue data from a slave's registration
        cluster.restart_broker("broker-a")  # a master for the broker name: its registration brings the queues back
        cluster.world.run_for(1000)
        assert namesrv.pickup_topic_route_data("TopicTest").queue_datas
        consumer, received = _consume_all(cluster, "CG4", 4)
        assert set(received) == bodies
        consumer.shutdown()
    finally:
        cluster.shutdown()


@pytest.mark.spec("HA-17")
def test_a_consumer_far_behind_memory_is_sent_to_the_slave_when_slave_read_is_enabled(tmp_path):
    # accessMessageInMemoryMaxRatio 0: any backlog counts as "no longer in memory" (suggestPullingFromSlave).
    store = {**STORE, "broker_role": BrokerRole.SYNC_MASTER, "access_message_in_memory_max_ratio": 0}
    cluster = Cluster.simulated(
        tmp_path, slaves=1, seed=6, store_settings=store, broker_settings={"slave_read_enable": True}
    ).start()
    try:
        _wait_replicating(cluster)
        _send_acknowledged(cluster, 8)
        cluster.world.run_for(31_000)  # the new topic is registered and copied to the slave
        consumer, received = _consume_all(cluster, "CG3", 8)
        pulls = [
            e.fields["remote"]
            for e in cluster.world.trace.events("NettyRemotingClient", event="invoke_async")
            if e.node == "CG3" and e.fields.get("code") == 11
        ]
        assert "10.0.1.1:10911" in pulls and "10.0.1.101:10911" in pulls  # the master first, then the slave
        assert pulls.index("10.0.1.101:10911") > pulls.index("10.0.1.1:10911")
        assert len(set(received)) == 8
        consumer.shutdown()
    finally:
        cluster.shutdown()


@pytest.mark.spec("HA-1", "HA-7")
def test_an_embedded_sync_master_without_replication_answers_slave_not_available(make_cluster):
    # A BrokerController built without enable_ha (tests, embedding code): 4.9.3 always builds its HAService, and with
    # no slave connected HAService#isSlaveOK is false.
    cluster = make_cluster(store={"broker_role": BrokerRole.SYNC_MASTER})
    assert not cluster.controller.enable_ha
    client = cluster.client()
    response = client.send(client.message("TopicTest", b"m", tags="TagA"))
    assert response.code == ResponseCode.SLAVE_NOT_AVAILABLE
    assert cluster.controller.message_store.get_max_offset_in_queue("TopicTest", 0) == 1  # stored on the master


@pytest.mark.spec("HA-1", "HA-7")
def test_a_transactional_producer_on_a_lone_sync_master_rolls_back_without_its_local_transaction(tmp_path):
    from mqlab.client.producer.local_transaction_state import LocalTransactionState
    from tests.client.cluster_fixtures import ClientCluster
    from tests.client.producer.test_transaction_producer import Listener, tx_producer

    cluster = ClientCluster(tmp_path / "c", "sim", store={"broker_role": BrokerRole.SYNC_MASTER})
    try:
        cluster.make_topic("TxTopic", 4)
        listener = Listener(LocalTransactionState.COMMIT_MESSAGE)
        producer = tx_producer(cluster, listener)
        result = producer.send_message_in_transaction(Message("TxTopic", "TagA", "k", b"debit"), None)
        assert result.send_status is SendStatus.SLAVE_NOT_AVAILABLE
        assert result.local_transaction_state is LocalTransactionState.ROLLBACK_MESSAGE
        assert listener.executed == []
    finally:
        cluster.close()

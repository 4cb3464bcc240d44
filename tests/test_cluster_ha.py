"""Clusters with master/slave pairs, simulated and real, and ``mqlab admin clusterList`` over them."""

from __future__ import annotations

import json

import pytest

from mqlab.cli import main
from mqlab.cluster import Cluster
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.store.config.broker_role import BrokerRole
from tests.broker.cluster import Client

STORE = {"mapped_file_size_commit_log": 1 << 20, "broker_role": BrokerRole.SYNC_MASTER}


@pytest.mark.spec("HA-11")
def test_simulated_cluster_names_and_places_each_slave(tmp_path):
    cluster = Cluster.simulated(tmp_path, brokers=2, slaves=1, store_settings=STORE)
    names = [(n.name, n.broker_id, n.controller.broker_config.broker_name) for n in cluster.brokers]
    assert names == [
        ("broker-a", 0, "broker-a"),
        ("broker-b", 0, "broker-b"),
        ("broker-a-s1", 1, "broker-a"),
        ("broker-b-s1", 1, "broker-b"),
    ]
    assert cluster.broker("broker-b-s1").broker_config.broker_ip1 == "10.0.1.111"
    assert cluster.broker("broker-a-s1").message_store_config.broker_role is BrokerRole.SLAVE


@pytest.mark.slow
@pytest.mark.spec("HA-12")
def test_real_cluster_replicates_and_cluster_list_shows_master_and_slave(tmp_path, capsys):
    cluster = Cluster.real(tmp_path, slaves=1, store_settings=STORE).start()
    try:
        master = cluster.broker("broker-a")
        ha = master.message_store.ha_service
        assert cluster.wait_until(lambda: any(c.slave_request_offset >= 0 for c in ha.connection_list), 30_000)
        client = Client(cluster.client_runtime("producer"), master.get_broker_addr(), cluster.namesrv_addr)
        assert client.send(client.message("TopicTest", b"hello", tags="TagA")).code == ResponseCode.SUCCESS
        client.close()
        slave_store = cluster.broker("broker-a-s1").message_store
        assert slave_store.get_max_phy_offset() == master.message_store.get_max_phy_offset()
        assert main(["admin", "clusterList", "-n", cluster.namesrv_addr, "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)
        assert [(r["brokerName"], r["brokerId"]) for r in rows] == [("broker-a", 0), ("broker-a", 1)]
        assert rows[1]["addr"] == cluster.broker("broker-a-s1").get_broker_addr()
    finally:
        cluster.shutdown()

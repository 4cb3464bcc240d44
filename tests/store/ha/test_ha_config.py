"""Replication settings equal RocketMQ 4.9.3's (docs/spec/store-ha.md)."""

from __future__ import annotations

import pytest

from mqlab.common.config_file import load_broker_config_file
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.config.message_store_config import MessageStoreConfig


@pytest.mark.spec("HA-1")
def test_defaults_are_4_9_3s():
    config = MessageStoreConfig()
    assert config.broker_role is BrokerRole.ASYNC_MASTER  # MessageStoreConfig.brokerRole
    assert config.ha_listen_port == 10912  # haListenPort
    assert config.ha_send_heartbeat_interval == 5000  # haSendHeartbeatInterval
    assert config.ha_housekeeping_interval == 20000  # haHousekeepingInterval
    assert config.ha_transfer_batch_size == 32 * 1024  # haTransferBatchSize
    assert config.ha_master_address is None  # haMasterAddress
    assert config.ha_slave_fallbehind_max == 256 * 1024 * 1024  # haSlaveFallbehindMax
    assert config.slave_timeout == 3000  # slaveTimeout
    assert [role.name for role in BrokerRole] == ["ASYNC_MASTER", "SYNC_MASTER", "SLAVE"]


@pytest.mark.spec("HA-1")
def test_a_config_file_forces_the_ha_port_to_listen_port_plus_one(tmp_path):
    conf = tmp_path / "broker.conf"
    conf.write_text("brokerRole=SLAVE\nbrokerId=1\nlistenPort=20911\nhaListenPort=30000\n")
    broker, store, server, _client = load_broker_config_file(conf)
    assert store.broker_role is BrokerRole.SLAVE and broker.broker_id == 1
    assert server.listen_port == 20911 and store.ha_listen_port == 20912

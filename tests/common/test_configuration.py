"""``Configuration``: the broker's live config table, its lenient updates, its version and the file it rewrites."""

from __future__ import annotations

import pytest

from mqlab.common.broker_config import BrokerConfig
from mqlab.common.config_file import load_broker_config_file, read_properties_file
from mqlab.common.configuration import Configuration
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.config.message_store_config import MessageStoreConfig


def make(path=None):
    objects = (BrokerConfig(), NettyServerConfig.for_broker(), NettyClientConfig(), MessageStoreConfig())
    return Configuration(lambda: 1234, path, *objects), objects


@pytest.mark.spec("BRK-40", "BRK-41")
def test_update_applies_every_matching_key_leniently_and_bumps_the_version():
    configuration, (broker, _server, _client, store) = make()
    assert configuration.get_data_version_json() == '{"counter":0,"timestamp":0}'
    configuration.update(
        {
            "flushDiskType": "SYNC_FLUSH",  # an enum through its String setter
            "autoCreateTopicEnable": "yes",  # Boolean.parseBoolean: false
            "sendMessageThreadPoolNums": "many",  # Integer.parseInt fails: ignored
            "unknownKey": "1",  # no object has it, the table did not list it: dropped
        }
    )
    assert store.flush_disk_type is FlushDiskType.SYNC_FLUSH and broker.auto_create_topic_enable is False
    assert broker.send_message_thread_pool_nums == BrokerConfig().send_message_thread_pool_nums
    assert configuration.get_data_version_json() == '{"counter":1,"timestamp":1234}'
    text = configuration.get_all_configs_format_string()
    lines = text.splitlines()
    assert lines == sorted(lines) and "flushDiskType=SYNC_FLUSH" in lines and "autoCreateTopicEnable=false" in lines
    assert not any(line.startswith("unknownKey=") for line in lines)
    assert "listenPort=10911" in lines and "clientWorkerThreads=4" in lines  # server and client objects too


@pytest.mark.spec("BRK-40")
def test_update_rewrites_the_config_file_with_every_entry_and_keeps_a_backup(tmp_path):
    conf = tmp_path / "broker.conf"
    conf.write_text("brokerName=broker-x\nrmqAddressServerDomain=example.org\nlistenPort=0\n")
    configs = load_broker_config_file(conf)
    configuration = Configuration(
        lambda: 1, conf, configs.broker_config, configs.netty_server_config, configs.netty_client_config,
        configs.message_store_config,
    )  # fmt: skip
    configuration.register_properties(read_properties_file(conf))
    configuration.update({"rmqAddressServerDomain": "other.org", "brokerPermission": "4"})
    written = read_properties_file(conf)
    assert written["brokerName"] == "broker-x" and written["brokerPermission"] == "4"
    assert written["rmqAddressServerDomain"] == "other.org"  # a key the file had: kept and replaced
    assert (tmp_path / "broker.conf.bak").read_text().startswith("brokerName=broker-x")
    assert load_broker_config_file(conf).broker_config.broker_permission == 4  # the file still loads strictly
    no_file, _ = make()
    no_file.update({"brokerPermission": "2"})  # no store path: memory only
    assert not list(tmp_path.glob("*.tmp"))

"""Loading broker.conf and namesrv.properties as BrokerStartup / NamesrvStartup do, with strict errors."""

from pathlib import Path

import pytest

from mqlab.common.broker_config import BrokerConfig
from mqlab.common.config_errors import InvalidConfigValueError, PropertiesSyntaxError, UnknownConfigKeyError
from mqlab.common.config_file import (
    BROKER_SYSTEM_ENV_KEYS,
    BrokerStartupConfigs,
    check_namesrv_addr,
    load_broker_config,
    load_broker_config_file,
    load_namesrv_config,
    load_namesrv_config_file,
    read_properties_file,
)
from mqlab.common.mix_all import object2properties, string2properties
from mqlab.common.namesrv.namesrv_config import NamesrvConfig
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.config.message_store_config import MessageStoreConfig

# distribution/conf/broker.conf of rocketmq-all-4.9.3: a 15-line license header, a blank line, then the settings.
DISTRIBUTION_BROKER_CONF = (
    "".join(f"# license header line {n}\n" for n in range(1, 16))
    + "\n"
    + """brokerClusterName = DefaultCluster
brokerName = broker-a
brokerId = 0
deleteWhen = 04
fileReservedTime = 48
brokerRole = ASYNC_MASTER
flushDiskType = ASYNC_FLUSH
"""
)


def write(tmp_path: Path, text: str, name: str = "broker.conf", encoding: str = "iso-8859-1") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


@pytest.mark.spec("CFG-14")
def test_distribution_broker_conf(tmp_path: Path) -> None:
    broker, store, server, client = load_broker_config_file(write(tmp_path, DISTRIBUTION_BROKER_CONF))
    assert broker.broker_cluster_name == "DefaultCluster"
    assert broker.broker_name == "broker-a"
    assert broker.broker_id == 0
    assert store.delete_when == "04"
    assert store.file_reserved_time == 48
    assert store.broker_role is BrokerRole.ASYNC_MASTER
    assert store.flush_disk_type is FlushDiskType.ASYNC_FLUSH
    assert server.listen_port == 10911
    assert store.ha_listen_port == 10912
    assert client == NettyClientConfig()
    # Everything the file does not mention keeps the 4.9.3 default.
    assert store.mapped_file_size_commit_log == 1024 * 1024 * 1024
    assert broker.auto_create_topic_enable is True


@pytest.mark.spec("CFG-14")
def test_result_names_its_parts() -> None:
    configs = load_broker_config(string2properties(""))
    assert isinstance(configs, BrokerStartupConfigs)
    assert isinstance(configs.broker_config, BrokerConfig)
    assert isinstance(configs.message_store_config, MessageStoreConfig)
    assert isinstance(configs.netty_server_config, NettyServerConfig)
    assert isinstance(configs.netty_client_config, NettyClientConfig)


@pytest.mark.spec("CFG-14")
def test_each_key_goes_to_every_object_that_has_it() -> None:
    text = """
        brokerIP1 = 10.0.0.7
        storePathRootDir = /data/rmq
        storePathCommitLog = /data/rmq/commitlog
        listenPort = 20911
        clientWorkerThreads = 2
        writeBufferHighWaterMark = 65536
        namesrvAddr = 10.0.0.1:9876;10.0.0.2:9876
        autoCreateTopicEnable = false
        rmqAddressServerDomain = example.invalid
    """
    broker, store, server, client = load_broker_config(string2properties(text))
    assert broker.broker_ip1 == "10.0.0.7"
    assert (store.store_path_root_dir, store.store_path_commit_log) == ("/data/rmq", "/data/rmq/commitlog")
    assert server.listen_port == 20911
    assert store.ha_listen_port == 20912
    assert client.client_worker_threads == 2
    assert server.write_buffer_high_water_mark == client.write_buffer_high_water_mark == 65536
    assert broker.namesrv_addr == "10.0.0.1:9876;10.0.0.2:9876"
    assert broker.auto_create_topic_enable is False
    assert "rmqAddressServerDomain" in BROKER_SYSTEM_ENV_KEYS


@pytest.mark.spec("CFG-14")
@pytest.mark.parametrize(
    ("text", "broker_id"),
    [
        ("brokerRole=ASYNC_MASTER\nbrokerId=3", 0),
        ("brokerRole=SYNC_MASTER\nbrokerId=-2", 0),
        ("brokerRole=SLAVE\nbrokerId=1", 1),
        ("brokerRole=SLAVE\nbrokerId=2\nenableDLegerCommitLog=true", -1),
        ("enableDLegerCommitLog=true", -1),
    ],
)
def test_startup_rules_decide_the_broker_id(text: str, broker_id: int) -> None:
    assert load_broker_config(string2properties(text)).broker_config.broker_id == broker_id


@pytest.mark.spec("CFG-14")
@pytest.mark.parametrize(
    ("text", "line"),
    [("brokerRole=SLAVE\n\nbrokerId=0\n", 3), ("# slave\nbrokerRole=SLAVE\n", 2), ("brokerId=-1\nbrokerRole=SLAVE", 1)],
)
def test_slave_needs_a_positive_broker_id(text: str, line: int) -> None:
    with pytest.raises(InvalidConfigValueError) as info:
        load_broker_config(string2properties(text, source="broker-b-s.conf"))
    assert (info.value.key, info.value.source, info.value.line) == ("brokerId", "broker-b-s.conf", line)
    assert "Slave's brokerId must be > 0" in str(info.value)


@pytest.mark.spec("CFG-14")
def test_ha_listen_port_always_follows_listen_port() -> None:
    store = load_broker_config(string2properties("haListenPort=30000\nlistenPort=10921")).message_store_config
    assert store.ha_listen_port == 10922


@pytest.mark.spec("CFG-14")
@pytest.mark.parametrize(
    ("addr", "valid"),
    [
        ("127.0.0.1:9876", True),
        ("127.0.0.1:9876;192.168.0.1:9876", True),
        ("namesrv:9876;", True),
        (";", True),
        ("[::1]:9876", True),
        ("", False),
        ("localhost", False),
        ("localhost:port", False),
        ("localhost:70000", False),
        ("a:1;;b:2", False),
        ("a:1; b:2", True),
        ("a:1 ", False),
    ],
)
def test_namesrv_addr_format(addr: str, valid: bool) -> None:
    if valid:
        check_namesrv_addr(addr)
        return
    with pytest.raises(InvalidConfigValueError) as info:
        load_broker_config(string2properties(f"brokerName=b\nnamesrvAddr={addr}", source="broker.conf"))
    assert (info.value.key, info.value.line) == ("namesrvAddr", 2)
    assert "host:port" in info.value.expected


@pytest.mark.spec("CFG-12")
def test_unknown_key_is_checked_against_all_four_objects(tmp_path: Path) -> None:
    path = write(tmp_path, "brokerName=b\nlistenPort=1\n# typo below\nlistenPot=10911\n")
    with pytest.raises(UnknownConfigKeyError) as info:
        load_broker_config_file(path)
    assert (info.value.key, info.value.line, info.value.suggestion) == ("listenPot", 4, "listenPort")
    assert info.value.source == str(path)
    assert str(info.value).startswith(f"{path}:4: unknown config key 'listenPot'; did you mean 'listenPort'?")


@pytest.mark.spec("CFG-13")
@pytest.mark.parametrize(
    ("line_text", "key"),
    [
        ("fileReservedTime=48h", "fileReservedTime"),
        ("brokerId=one", "brokerId"),
        ("listenPort=10911 ", "listenPort"),
        ("autoCreateTopicEnable=yes", "autoCreateTopicEnable"),
        ("useTLS=on", "useTLS"),
        ("flushDiskType=async", "flushDiskType"),
    ],
)
def test_bad_values_in_a_file_name_the_line(tmp_path: Path, line_text: str, key: str) -> None:
    path = write(tmp_path, DISTRIBUTION_BROKER_CONF + line_text + "\n")
    with pytest.raises(InvalidConfigValueError) as info:
        load_broker_config_file(path)
    assert (info.value.key, info.value.source, info.value.line) == (key, str(path), 24)


@pytest.mark.spec("CFG-13")
def test_first_problem_in_file_order_across_objects() -> None:
    text = "brokerName=b\nmaxIndexNum=many\nbrokerId=x\nnoSuchKey=1\n"
    with pytest.raises(InvalidConfigValueError) as info:
        load_broker_config(string2properties(text))
    assert (info.value.key, info.value.line) == ("maxIndexNum", 2)


@pytest.mark.spec("CFG-17")
def test_caller_objects_are_starting_values_and_stay_untouched_on_error() -> None:
    base = BrokerConfig(broker_name="host-7", broker_ip1="10.0.0.7")
    configs = load_broker_config(string2properties("brokerClusterName=c1"), broker_config=base)
    assert configs.broker_config is base
    assert (base.broker_name, base.broker_ip1, base.broker_cluster_name) == ("host-7", "10.0.0.7", "c1")
    before = object2properties(base)
    with pytest.raises(InvalidConfigValueError):
        load_broker_config(string2properties("brokerName=x\nfileReservedTime=x"), broker_config=base)
    assert object2properties(base) == before


@pytest.mark.spec("CFG-10")
def test_files_are_decoded_as_iso_8859_1(tmp_path: Path) -> None:
    utf8 = write(tmp_path, "brokerName=caf\u00e9\n", name="utf8.conf", encoding="utf-8")
    assert read_properties_file(utf8)["brokerName"] == "caf\u00c3\u00a9"  # one character per byte, as in Java
    escaped = write(tmp_path, "brokerName=caf\\u00e9\n", name="escaped.conf")
    assert load_broker_config_file(escaped).broker_config.broker_name == "caf\u00e9"


@pytest.mark.spec("CFG-9")
def test_malformed_escape_in_a_file(tmp_path: Path) -> None:
    path = write(tmp_path, "brokerName=b\nbrokerClusterName=\\u12G4\n")
    with pytest.raises(PropertiesSyntaxError) as info:
        load_broker_config_file(path)
    assert (info.value.source, info.value.line) == (str(path), 2)


@pytest.mark.spec("CFG-15")
def test_namesrv_properties(tmp_path: Path) -> None:
    text = (
        "# namesrv\nlistenPort = 9877\norderMessageEnable = true\nkvConfigPath = /data/kv.json\nserverWorkerThreads=4\n"
    )
    path = write(tmp_path, text, name="namesrv.properties")
    namesrv, server = load_namesrv_config_file(path)
    assert server.listen_port == 9877
    assert server.server_worker_threads == 4
    assert namesrv.order_message_enable is True
    assert namesrv.kv_config_path == "/data/kv.json"
    assert namesrv.config_store_path == str(path), "NamesrvStartup sets configStorePath to the -c file"


@pytest.mark.spec("CFG-15")
def test_namesrv_defaults_and_unknown_keys() -> None:
    namesrv, server = load_namesrv_config(string2properties(""))
    assert server.listen_port == 9876
    assert namesrv == NamesrvConfig()
    with pytest.raises(UnknownConfigKeyError) as info:
        load_namesrv_config(string2properties("listenPort=9876\nbrokerName=broker-a\n", source="namesrv.properties"))
    assert (info.value.key, info.value.line) == ("brokerName", 2)

"""HARD-6/HARD-7: bad settings and failed starts end with one clear line, a non-zero exit and nothing damaged."""

from __future__ import annotations

import socket

import pytest

from mqlab.cli import main
from mqlab.runtime import SimulatedWorld
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.default_message_store import DefaultMessageStore


def broker_conf(tmp_path, *lines):
    conf = tmp_path / "broker.conf"
    store = tmp_path / "store"
    conf.write_text(
        "\n".join([f"storePathRootDir={store}", f"storePathCommitLog={store / 'commitlog'}", *lines]) + "\n"
    )
    return conf, store


@pytest.mark.spec("HARD-6")
@pytest.mark.parametrize(
    ("line", "key", "expected"),
    [
        ("listenPort=70000", "listenPort", "a port in 1..65535"),
        ("listenPort=-1", "listenPort", "a port in 1..65535"),
        ("mappedFileSizeCommitLog=0", "mappedFileSizeCommitLog", "a positive multiple of 4096"),
        ("mappedFileSizeCommitLog=1000", "mappedFileSizeCommitLog", "a positive multiple of 4096"),
        ("mappedFileSizeConsumeQueue=30", "mappedFileSizeConsumeQueue", "a positive multiple of 20"),
        ("mappedFileSizeConsumeQueue=-20", "mappedFileSizeConsumeQueue", "a positive multiple of 20"),
    ],
)
def test_config_check_and_broker_refuse_out_of_range_values(tmp_path, capsys, line, key, expected):
    conf, store = broker_conf(tmp_path, "brokerName=broker-a", line)
    for command in (["config-check", str(conf)], ["broker", "-c", str(conf)]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert f"{conf}:4: invalid value" in err and key in err and expected in err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not store.exists()  # refused before the store was opened


@pytest.mark.spec("HARD-6")
def test_port_zero_and_sizes_on_their_units_pass(tmp_path, capsys):
    conf, _ = broker_conf(tmp_path, "listenPort=0", "mappedFileSizeCommitLog=8192", "mappedFileSizeConsumeQueue=600")
    assert main(["config-check", str(conf)]) == 0
    namesrv = tmp_path / "namesrv.properties"
    namesrv.write_text("listenPort=65536\n")
    assert main(["config-check", "--namesrv", str(namesrv)]) == 2
    assert "listenPort" in capsys.readouterr().err


def written_store(root):
    world = SimulatedWorld(seed=1)
    store = DefaultMessageStore(MessageStoreConfig.under(root), world.runtime("broker-a", ip="10.0.0.2"))
    store.load()
    return store


@pytest.mark.spec("HARD-6")
def test_a_locked_store_is_one_line_and_exit_2(tmp_path, capsys):
    conf, store_dir = broker_conf(tmp_path, "listenPort=0")
    holder = written_store(store_dir)
    try:
        assert main(["broker", "-c", str(conf)]) == 2
    finally:
        holder.shutdown()
    err = capsys.readouterr().err
    assert "mqlab broker: StoreLockedError: Lock failed,MQ already started" in err
    assert "Traceback" not in err


@pytest.mark.store_left_damaged
@pytest.mark.spec("HARD-6", "HARD-4")
def test_a_store_of_another_segment_size_is_one_line_and_untouched(tmp_path, capsys):
    conf, store_dir = broker_conf(tmp_path, "listenPort=0", "mappedFileSizeCommitLog=8192")
    segment = store_dir / "commitlog" / "00000000000000000000"
    segment.parent.mkdir(parents=True)
    segment.write_bytes(b"\x01" * 4096)
    assert main(["broker", "-c", str(conf)]) == 2
    err = capsys.readouterr().err
    assert "StoreLoadError" in err and "is 4096 bytes but mappedFileSizeCommitLog is 8192" in err
    assert "Traceback" not in err
    assert segment.read_bytes() == b"\x01" * 4096
    assert not (store_dir / "abort").exists() and not (store_dir / "checkpoint").exists()


@pytest.mark.spec("HARD-6")
def test_a_port_in_use_leaves_no_abort_file(tmp_path, capsys):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    conf, store_dir = broker_conf(tmp_path, f"listenPort={port}")
    try:
        assert main(["broker", "-c", str(conf)]) == 2
    finally:
        taken.close()
    err = capsys.readouterr().err
    assert "Address already in use" in err and "Traceback" not in err
    assert (store_dir / "commitlog").exists() or (store_dir / "config").exists()
    assert not (store_dir / "abort").exists()
    assert main(["store", "verify", str(store_dir)]) == 0


@pytest.mark.spec("HARD-7")
@pytest.mark.parametrize("name", ["topics.json", "subscriptionGroup.json", "consumerOffset.json"])
def test_an_unreadable_config_file_without_backup_is_refused_not_overwritten(tmp_path, capsys, name):
    conf, store_dir = broker_conf(tmp_path, "listenPort=0")
    path = store_dir / "config" / name
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"topicConfigTable": {"TopicTest": \xff\xfe garbage')
    assert main(["broker", "-c", str(conf)]) == 1
    err = capsys.readouterr().err
    assert f"mqlab broker: cannot start: {path}" in err and "missing or empty" in err
    assert path.read_bytes() == b'{"topicConfigTable": {"TopicTest": \xff\xfe garbage'
    assert not (store_dir / "abort").exists()


@pytest.mark.spec("HARD-7")
def test_an_unreadable_config_file_with_a_backup_loads_the_backup(tmp_path):
    from mqlab.broker.topic.topic_config_manager import TopicConfigManager
    from mqlab.common.broker_config import BrokerConfig

    manager = TopicConfigManager(BrokerConfig(), tmp_path, lambda: 1000)
    manager.persist()
    manager.persist()  # the second persist leaves a .bak
    (tmp_path / "config" / "topics.json").write_text("{not json")
    again = TopicConfigManager(BrokerConfig(), tmp_path, lambda: 1000)
    assert again.load()
    assert "TBW102" in again.topic_config_table

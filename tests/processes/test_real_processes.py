"""`mqlab namesrv` and `mqlab broker` as real processes: clean stop, SIGKILL during SYNC_FLUSH sends."""

import os
import signal
import subprocess
import sys

import pytest

from mqlab.common.message.message_decoder import decode_message_id
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.runtime import ThreadedRuntime
from mqlab.runtime.simulated import SimulatedWorld
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.store_verifier import verify_store
from tests.broker.cluster import Client  # the raw 4.9.3-style client of the broker tests

pytestmark = pytest.mark.slow


def spawn(*args):
    return subprocess.Popen(
        [sys.executable, "-m", "mqlab", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def boot_line(proc, marker):
    line = proc.stdout.readline()
    assert marker in line, (line, proc.stderr.read() if proc.poll() is not None else "")
    return line


def broker_conf(tmp_path, namesrv_addr):
    store = tmp_path / "store"
    conf = tmp_path / "broker.conf"
    conf.write_text(
        "\n".join(
            [
                "brokerClusterName=DefaultCluster",
                "brokerName=broker-a",
                "brokerId=0",
                "listenPort=0",
                "brokerIP1=127.0.0.1",
                f"namesrvAddr={namesrv_addr}",
                f"storePathRootDir={store}",
                f"storePathCommitLog={store / 'commitlog'}",
                "flushDiskType=SYNC_FLUSH",
                "mappedFileSizeCommitLog=1048576",
                "maxHashSlotNum=1000",
                "maxIndexNum=4000",
            ]
        )
        + "\n"
    )
    return conf, store


@pytest.fixture
def namesrv(tmp_path):
    conf = tmp_path / "namesrv.properties"
    conf.write_text(f"kvConfigPath={tmp_path / 'kv.json'}\nlistenPort=0\n")
    proc = spawn("namesrv", "-c", str(conf))
    line = boot_line(proc, "The Name Server boot success")
    port = int(line.rsplit(":", 1)[1].rstrip(")\n"))
    yield f"127.0.0.1:{port}"
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=20)


def start_broker(conf):
    proc = spawn("broker", "-c", str(conf))
    line = boot_line(proc, "boot success")
    addr = line.split(", ", 1)[1].split("]", 1)[0]
    return proc, addr


def reopen(store, rt):
    config = MessageStoreConfig.under(
        store, mapped_file_size_commit_log=1048576, max_hash_slot_num=1000, max_index_num=4000
    )
    return DefaultMessageStore(config, rt)


@pytest.mark.spec("PROC-1")
def test_sigterm_leaves_a_store_that_reopens_normally(tmp_path, namesrv):
    conf, store = broker_conf(tmp_path, namesrv)
    proc, addr = start_broker(conf)
    rt = ThreadedRuntime.create("client")
    client = Client(rt, addr, namesrv)
    try:
        for i in range(20):
            assert client.send(client.message("TopicTest", f"m{i}".encode(), tags="TagA")).code == ResponseCode.SUCCESS
    finally:
        client.close()
        rt.scheduler.close()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert not (store / "abort").exists()
    world = SimulatedWorld()
    reopened = reopen(store, world.runtime("check"))
    reopened.load()
    assert reopened.recovery_report.last_exit_ok
    assert reopened.get_max_offset_in_queue("TopicTest", 0) == 20
    reopened.shutdown()
    assert verify_store(store, max_hash_slot_num=1000).ok
    assert (store / "config" / "topics.json").exists() and (store / "config" / "consumerOffset.json").exists()


@pytest.mark.spec("PROC-2")
def test_sigkill_during_sync_flush_sends_loses_no_acknowledged_message(tmp_path, namesrv):
    conf, store = broker_conf(tmp_path, namesrv)
    proc, addr = start_broker(conf)
    rt = ThreadedRuntime.create("client")
    client = Client(rt, addr, namesrv)
    acked = []
    try:
        for i in range(200):
            if i == 120:
                os.kill(proc.pid, signal.SIGKILL)
            try:
                response = client.send(client.message("TopicTest", f"payload-{i}".encode(), tags="TagA"))
            except Exception:  # the broker is gone: later sends fail
                continue
            if response.code == ResponseCode.SUCCESS:
                acked.append((f"payload-{i}".encode(), response.ext_fields["msgId"]))
    finally:
        client.close()
        rt.scheduler.close()
    proc.wait(timeout=30)
    assert len(acked) >= 100
    assert (store / "abort").exists()  # no clean shutdown
    world = SimulatedWorld()
    reopened = reopen(store, world.runtime("check"))
    reopened.load()
    assert not reopened.recovery_report.last_exit_ok
    for body, msg_id in acked:
        stored = reopened.look_message_by_offset(decode_message_id(msg_id).offset)
        assert stored is not None and stored.body == body
    reopened.shutdown()
    # and the broker process itself restarts on that store
    proc2, _ = start_broker(conf)
    proc2.send_signal(signal.SIGTERM)
    assert proc2.wait(timeout=30) == 0

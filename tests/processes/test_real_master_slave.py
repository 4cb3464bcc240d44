"""A SYNC_MASTER and its slave as ``mqlab broker`` processes on loopback TCP (docs/spec/store-ha.md)."""

import os
import signal
import time

import pytest

from mqlab.common.message.message_decoder import decode_message_id
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.runtime import ThreadedRuntime
from mqlab.runtime.simulated import SimulatedWorld
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.store_verifier import verify_store
from tests.broker.cluster import Client
from tests.processes.test_real_processes import namesrv, reopen, spawn, start_broker  # noqa: F401 (fixture)


def ha_conf(tmp_path, namesrv_addr, *, broker_id: int, role: str):
    store = tmp_path / f"store-{broker_id}"
    conf = tmp_path / f"broker-{broker_id}.conf"
    lines = [
        "brokerClusterName=DefaultCluster",
        "brokerName=broker-a",
        f"brokerId={broker_id}",
        f"brokerRole={role}",
        "listenPort=0",
        "brokerIP1=127.0.0.1",
        "brokerIP2=127.0.0.1",
        f"namesrvAddr={namesrv_addr}",
        f"storePathRootDir={store}",
        f"storePathCommitLog={store / 'commitlog'}",
        "mappedFileSizeCommitLog=1048576",
        "maxHashSlotNum=1000",
        "maxIndexNum=4000",
    ]
    conf.write_text("\n".join(lines) + "\n")
    return conf, store


@pytest.mark.slow
@pytest.mark.spec("HA-16")
def test_sigkill_of_a_sync_master_leaves_every_acknowledged_message_on_the_slave(tmp_path, namesrv):  # noqa: F811
    master_conf, _ = ha_conf(tmp_path, namesrv, broker_id=0, role="SYNC_MASTER")
    slave_conf, slave_store = ha_conf(tmp_path, namesrv, broker_id=1, role="SLAVE")
    master, master_addr = start_broker(master_conf)
    slave, _slave_addr = start_broker(slave_conf)
    rt = ThreadedRuntime.create("client")
    client = Client(rt, master_addr, namesrv)
    acked = []
    try:
        # Until the slave has connected and sent its first report (up to 10 s), the master answers 11.
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            try:
                response = client.send(client.message("TopicTest", b"probe", tags="TagA"))
            except Exception:  # connected but not yet reporting: the 3 s slave wait outlasts the 3 s send timeout
                continue
            if response.code == ResponseCode.SUCCESS:
                acked.append((b"probe", response.ext_fields["msgId"]))
                break
            assert response.code in (ResponseCode.SLAVE_NOT_AVAILABLE, ResponseCode.FLUSH_SLAVE_TIMEOUT)
            time.sleep(0.5)
        assert acked, "the slave never caught up"
        for i in range(120):
            if i == 80:
                os.kill(master.pid, signal.SIGKILL)
            try:
                response = client.send(client.message("TopicTest", f"payload-{i}".encode(), tags="TagA"))
            except Exception:  # the master is gone: later sends fail
                continue
            if response.code == ResponseCode.SUCCESS:
                acked.append((f"payload-{i}".encode(), response.ext_fields["msgId"]))
    finally:
        client.close()
        rt.scheduler.close()
        if master.poll() is None:
            master.kill()
        master.wait(timeout=30)
        slave.send_signal(signal.SIGTERM)
        slave.wait(timeout=30)
    assert len(acked) >= 60
    reopened = reopen(slave_store, SimulatedWorld().runtime("check"))
    reopened.config.broker_role = BrokerRole.SLAVE
    reopened.load()
    for body, msg_id in acked:
        stored = reopened.look_message_by_offset(decode_message_id(msg_id).offset)
        assert stored is not None and stored.body == body
    reopened.shutdown()
    assert verify_store(slave_store, max_hash_slot_num=1000).ok


def send_until_acked(client, body: bytes, seconds: float) -> str | None:
    """Send ``body`` until a SYNC_MASTER answers SUCCESS (the slave caught up and acknowledged it); its msgId."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            response = client.send(client.message("TopicTest", body, tags="TagA"))
        except Exception:  # the slave's 3 s wait outlasted the send timeout: try again
            continue
        if response.code == ResponseCode.SUCCESS:
            return response.ext_fields["msgId"]
        assert response.code in (ResponseCode.SLAVE_NOT_AVAILABLE, ResponseCode.FLUSH_SLAVE_TIMEOUT)
        time.sleep(0.5)
    return None


@pytest.mark.slow
@pytest.mark.spec("HA-16")
def test_a_master_that_comes_back_is_followed_again_by_its_slave(tmp_path, namesrv):  # noqa: F811
    master_conf, _ = ha_conf(tmp_path, namesrv, broker_id=0, role="SYNC_MASTER")
    slave_conf, slave_store = ha_conf(tmp_path, namesrv, broker_id=1, role="SLAVE")
    for conf in (master_conf, slave_conf):  # learn a restarted master's new HA address within 10 s, not 30 s
        conf.write_text(conf.read_text() + "registerNameServerPeriod=10000\n")
    master, master_addr = start_broker(master_conf)
    slave, _slave_addr = start_broker(slave_conf)
    acked = []
    rt = ThreadedRuntime.create("client")
    try:
        client = Client(rt, master_addr, namesrv)
        acked.append((b"before", send_until_acked(client, b"before", 40)))
        client.close()
        os.kill(master.pid, signal.SIGKILL)
        master.wait(timeout=30)
        master, master_addr = start_broker(master_conf)  # abnormal recovery, then a new port and a new HA port
        client = Client(rt, master_addr, namesrv)
        for body in (b"after-1", b"after-2"):
            acked.append((body, send_until_acked(client, body, 60)))
        client.close()
    finally:
        rt.scheduler.close()
        for proc in (master, slave):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
    assert all(msg_id is not None for _, msg_id in acked), acked
    reopened = reopen(slave_store, SimulatedWorld().runtime("check"))
    reopened.config.broker_role = BrokerRole.SLAVE
    reopened.load()
    for body, msg_id in acked:
        stored = reopened.look_message_by_offset(decode_message_id(msg_id).offset)
        assert stored is not None and stored.body == body
    reopened.shutdown()
    assert verify_store(slave_store, max_hash_slot_num=1000).ok

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

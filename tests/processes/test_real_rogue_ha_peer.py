"""A rogue peer on a real SYNC_MASTER's HA port (issue 22, item 2; docs/spec/store-ha.md HA-19).

A SYNC_MASTER and its slave run as ``mqlab broker`` processes on loopback TCP. A raw socket connects to the master's
HA port and sends one 8-byte report of ``2**62``; then the real slave is paused with SIGSTOP. 4.9.3 (and mqlab before
HA-19) takes that report as an acknowledgement of everything, so every later send answers SEND_OK at once although
no slave holds it. Now the rogue connection is closed and sends wait for the paused slave: FLUSH_SLAVE_TIMEOUT.
"""

import os
import signal
import socket
import struct
import time

import pytest

from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.runtime import ThreadedRuntime
from tests.broker.cluster import Client
from tests.processes.test_real_master_slave import ha_conf, send_until_acked
from tests.processes.test_real_processes import namesrv, start_broker  # noqa: F401 (fixture)

pytestmark = pytest.mark.slow


def free_port_pair() -> int:
    """A port P such that P and P + 1 were both free (the HA port is listenPort + 1)."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port >= 65535:
            continue
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 1))
        except OSError:
            continue
        return port
    raise RuntimeError("no two adjacent free ports")


def closed_by_peer(sock: socket.socket, seconds: float) -> bool:
    """Whether the other end closes ``sock`` within ``seconds`` (whatever it sends before)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            if sock.recv(65536) == b"":
                return True
        except TimeoutError:
            return False
        except ConnectionError:
            return True
    return False


@pytest.mark.spec("HA-19")
def test_a_rogue_report_does_not_acknowledge_sends_the_paused_slave_never_received(tmp_path, namesrv):  # noqa: F811
    port = free_port_pair()
    master_conf, _ = ha_conf(tmp_path, namesrv, broker_id=0, role="SYNC_MASTER")
    master_conf.write_text(master_conf.read_text().replace("listenPort=0", f"listenPort={port}"))
    slave_conf, _ = ha_conf(tmp_path, namesrv, broker_id=1, role="SLAVE")
    master, master_addr = start_broker(master_conf)
    slave, _ = start_broker(slave_conf)
    rt = ThreadedRuntime.create("client")
    client = Client(rt, master_addr, namesrv)
    rogue = None
    paused = False
    try:
        assert send_until_acked(client, b"probe", 40) is not None, "the slave never caught up"
        rogue = socket.create_connection(("127.0.0.1", port + 1), timeout=5)
        rogue.sendall(struct.pack(">q", 2**62))
        assert closed_by_peer(rogue, 10), "the master kept the rogue connection open"
        os.kill(slave.pid, signal.SIGSTOP)
        paused = True
        codes = []
        for i in range(3):
            header = client.send_header(client.message("TopicTest", f"after-{i}".encode(), tags="TagA"), 0)
            response = client.call(RequestCode.SEND_MESSAGE_V2, header, f"after-{i}".encode(), timeout=10_000)
            codes.append(response.code)
        assert codes == [ResponseCode.FLUSH_SLAVE_TIMEOUT] * 3  # the slave holds none of them: never SEND_OK
    finally:
        if rogue is not None:
            rogue.close()
        if paused:
            os.kill(slave.pid, signal.SIGCONT)
        client.close()
        rt.scheduler.close()
        for proc in (master, slave):
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)

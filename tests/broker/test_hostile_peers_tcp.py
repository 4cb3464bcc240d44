"""Hostile peers against real ``mqlab namesrv`` / ``mqlab broker`` processes over TCP (issue 22, items 3 and 4).

A raw socket that pipelines pulls and never reads must not slow other consumers (NET-20); past
``writeBufferHardLimit`` it is closed with a log line (NET-21); a connection flood while the broker may start no more
threads must not stop it from accepting (NET-22). The measurements come from ``bench.slow_reader_bench``, at a small
scale; its full run is the benchmark.
"""

from __future__ import annotations

import re
import resource
import socket
import sys
import time
from pathlib import Path

import pytest

from bench.client_bench import RawClient, _code_of, pull_frame
from bench.slow_reader_bench import GROUP, TOPIC, StalledReader, fill, real_servers, slow_reader
from mqlab.common.protocol.response_code import ResponseCode

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and sets rlimits of a process"),
]


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    with real_servers(tmp_path_factory.mktemp("hostile")) as (addr, process):
        fill(addr)
        yield addr, process


@pytest.mark.spec("NET-20")
def test_a_stalled_reader_does_not_slow_other_consumers(broker):
    addr, process = broker
    result = slow_reader(addr, consumers=6, pulls_each=10, stalled_pulls=400, timeout_s=3.0)
    assert not result.without.failures
    # Before the fix every pull timed out (3 s) while the stalled reader held the pull threads in sendall.
    assert not result.with_stalled.failures, result.with_stalled.failures[:3]
    without, with_stalled = result.without.p99(), result.with_stalled.p99()
    assert with_stalled <= max(3 * without, without + 0.25), (without, with_stalled)
    assert process.proc.poll() is None


def vm_size_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmSize for {pid}")


@pytest.mark.spec("NET-22")
def test_accepting_survives_a_flood_while_no_thread_can_start(broker):
    addr, process = broker
    host, port = addr.rsplit(":", 1)
    pid = process.proc.pid
    # Room for about two more thread stacks: a transport that starts a thread per connection fails at the third.
    resource.prlimit(pid, resource.RLIMIT_AS, (vm_size_bytes(pid) + 20 * 1024 * 1024, resource.RLIM_INFINITY))
    flood = []
    try:
        for _ in range(40):
            flood.append(socket.create_connection((host, int(port)), timeout=3))
        time.sleep(1.0)  # the broker accepts (or fails to serve) every one of them meanwhile
    finally:
        resource.prlimit(pid, resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        for sock in flood:
            sock.close()
    assert process.proc.poll() is None
    client = RawClient(addr)  # before the fix: refused, the accept thread had died
    client.sock.settimeout(5)
    try:
        assert _code_of(client.call(pull_frame(GROUP, TOPIC, 0, 0))) == ResponseCode.SUCCESS
    finally:
        client.close()


@pytest.mark.spec("NET-21")
def test_a_reader_past_the_hard_limit_is_closed_with_one_log_line(tmp_path):
    with real_servers(tmp_path, writeBufferHardLimit=1024 * 1024) as (addr, process):
        fill(addr)
        stalled = StalledReader(addr, 400)
        host, port = stalled.sock.getsockname()[:2]
        peer = f"{host}:{port}"
        try:
            assert stalled.closed_by_peer(2.0)
        finally:
            stalled.close()
        client = RawClient(addr)  # everyone else is still served
        client.sock.settimeout(5)
        try:
            assert _code_of(client.call(pull_frame(GROUP, TOPIC, 0, 0))) == ResponseCode.SUCCESS
        finally:
            client.close()
        process.stop()
        lines = [line for line in process.proc.stderr.read().splitlines() if "bytes wait to be written" in line]
    assert len(lines) == 1, lines
    found = re.search(
        r"closing connection \S+ -> (\S+): (\d+) bytes wait to be written, above the limit of (\d+)", lines[0]
    )
    assert found is not None, lines[0]
    assert found[1] == peer
    assert int(found[2]) > int(found[3]) == 1024 * 1024

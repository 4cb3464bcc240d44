"""Hostile peers against a real broker: one stalled reader among consumers, and the broker's memory over rounds.

Java: none (teaching helper). Run ``python -m bench.slow_reader_bench`` (``--quick`` for a short run). It starts
``mqlab namesrv`` and ``mqlab broker`` as processes on loopback and measures, from this process:

* **slow reader**: the pull latency of ``consumers`` ordinary consumers (each its own connection, pulling 32 messages
  of 1 KiB at a time), first alone, then while one raw socket has pipelined ``stalled_pulls`` PULL_MESSAGE requests
  and never reads an answer. RocketMQ's Netty transport never lets one channel hold a worker thread, so the p99 with
  the stalled reader should stay within 2x of the p99 without it (issue 22, item 3).
* **hard limit**: the same stalled reader against a broker whose ``writeBufferHardLimit`` is small: the broker
  closes that connection and says so in one log line naming the peer and the buffered bytes.
* **RSS over rounds**: rounds of ``rss_connections`` connections that send heartbeats and pulls for
  ``rss_round_s`` seconds, then close; the broker's resident memory after each round shows whether it levels off
  (issue 22, item 7).

``docs/spec/remoting-transport.md`` (NET-20..NET-23) states the properties these figures back.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from bench import client_bench, summary
from bench.client_bench import Process, RawClient, _code_of, pull_frame, send_frame
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.filter.filter_api import build_subscription_data
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.heartbeat_data import ConsumerData, HeartbeatData
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from mqlab.runtime import ThreadedRuntime

TOPIC = "SlowReaderTopic"
GROUP = "slow_reader_group"
BODY_SIZE = 1024
MESSAGES = 64  # in queue 0: every pull from offset 0 gets 32 messages (about 40 KiB)
TARGET_RATIO = 2.0  # p99 with the stalled reader / p99 without it


@dataclass(frozen=True, slots=True)
class Scale:
    """How much each case does."""

    name: str
    consumers: int
    pulls_each: int
    stalled_pulls: int
    rss_rounds: int
    rss_connections: int
    rss_round_s: float


FULL = Scale("full", consumers=20, pulls_each=50, stalled_pulls=400, rss_rounds=4, rss_connections=200, rss_round_s=20)
QUICK = Scale("quick", consumers=20, pulls_each=20, stalled_pulls=400, rss_rounds=3, rss_connections=200, rss_round_s=8)
SMOKE = Scale("smoke", consumers=4, pulls_each=5, stalled_pulls=100, rss_rounds=2, rss_connections=20, rss_round_s=1)


# -- servers -------------------------------------------------------------------------------------------------------
@contextmanager
def real_servers(work: Path, **broker_settings: object) -> Iterator[tuple[str, Process]]:
    """``client_bench.real_servers`` with small store files; yields the broker's address and process."""
    small = {"mappedFileSizeCommitLog": 16 * 1024 * 1024, "maxHashSlotNum": 1000, "maxIndexNum": 4000}
    with client_bench.real_servers(work, **{**small, **broker_settings}) as (_namesrv_addr, broker):
        yield client_bench.broker_address(broker), broker


def fill(addr: str, count: int = MESSAGES) -> None:
    """Put ``count`` messages of ``BODY_SIZE`` bytes in queue 0 of ``TOPIC`` and wait until a pull finds 32."""
    runtime = ThreadedRuntime.create("slow-reader-bench")
    client = RawClient(addr)
    try:
        for _ in range(count):
            answer = client.call(send_frame(runtime, TOPIC, b"x" * BODY_SIZE, 0))
            if _code_of(answer) != ResponseCode.SUCCESS:
                raise RuntimeError(f"the broker answered a send with code {_code_of(answer)}")
        deadline = time.monotonic() + 10
        while _code_of(client.call(pull_frame(GROUP, TOPIC, 0, 0))) != ResponseCode.SUCCESS:
            if time.monotonic() > deadline:
                raise RuntimeError("the messages never became pullable")
            time.sleep(0.05)
    finally:
        client.close()
        runtime.scheduler.close()


# -- the peers -----------------------------------------------------------------------------------------------------
@dataclass
class Latencies:
    """Seconds per pull of every consumer, and the pulls that got no answer within the timeout."""

    seconds: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def p99(self) -> float:
        """The 99th percentile (nearest rank); a failed pull counts as the timeout."""
        ordered = sorted(self.seconds)
        if not ordered:
            return float("inf")
        return ordered[min(len(ordered) - 1, max(0, round(0.99 * len(ordered)) - 1))]


def consumers_pull(addr: str, consumers: int, pulls_each: int, timeout_s: float = 3.0) -> Latencies:
    """``consumers`` threads, each on its own connection, pull 32 messages ``pulls_each`` times, one at a time."""
    result = Latencies()
    lock = threading.Lock()
    frame = pull_frame(GROUP, TOPIC, 0, 0)

    def consumer(index: int) -> None:
        try:
            client = RawClient(addr)
        except OSError as exc:
            with lock:
                result.failures.append(f"consumer {index}: connect failed: {exc}")
                result.seconds.extend([timeout_s] * pulls_each)
            return
        client.sock.settimeout(timeout_s)
        try:
            client.call(frame)  # warm-up: the connection and the broker's caches
            for _ in range(pulls_each):
                began = time.perf_counter()
                try:
                    code = _code_of(client.call(frame))
                except (OSError, ConnectionError) as exc:
                    with lock:
                        result.failures.append(f"consumer {index}: {type(exc).__name__}: {exc}")
                        result.seconds.append(timeout_s)
                    return
                elapsed = time.perf_counter() - began
                with lock:
                    result.seconds.append(elapsed)
                    if code != ResponseCode.SUCCESS:
                        result.failures.append(f"consumer {index}: code {code}")
        except (OSError, ConnectionError) as exc:
            with lock:
                result.failures.append(f"consumer {index}: warm-up: {type(exc).__name__}: {exc}")
                result.seconds.extend([timeout_s] * pulls_each)
        finally:
            client.close()

    threads = [threading.Thread(target=consumer, args=(i,), daemon=True) for i in range(consumers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return result


class StalledReader:
    """A raw socket that pipelines ``pulls`` PULL_MESSAGE requests and never reads an answer.

    Its receive buffer is made small before it connects, so the broker's answers fill it at once.
    """

    def __init__(self, addr: str, pulls: int):
        host, port = addr.rsplit(":", 1)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.connect((host, int(port)))
        self.frames = pull_frame(GROUP, TOPIC, 0, 0) * pulls
        self.written = 0
        self._writer = threading.Thread(target=self._write, name="stalled-reader", daemon=True)
        self._writer.start()

    def _write(self) -> None:
        try:
            # sendall: once the broker stops reading, this thread waits here (which only costs this peer)
            self.sock.sendall(self.frames)
            self.written = len(self.frames)
        except OSError:
            pass

    def closed_by_peer(self, stall_s: float, timeout_s: float = 5.0) -> bool:
        """Whether the broker closed the connection while it stalled for ``stall_s``.

        Reads only after the stall (draining what the broker wrote before it gave up) to see the end of the stream.
        """
        time.sleep(stall_s)
        self.sock.settimeout(timeout_s)
        deadline = time.monotonic() + timeout_s
        try:
            while time.monotonic() < deadline:
                if not self.sock.recv(1 << 20):
                    return True
        except (TimeoutError, OSError) as exc:
            return not isinstance(exc, TimeoutError)
        return False

    def close(self) -> None:
        """Shut the socket down (ends a sendall the broker left waiting)."""
        with suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self._writer.join(5)


@dataclass
class SlowReaderResult:
    """Both measurements of one run."""

    without: Latencies
    with_stalled: Latencies

    @property
    def ratio(self) -> float:
        """p99 with the stalled reader over p99 without it."""
        return self.with_stalled.p99() / self.without.p99()


def slow_reader(addr: str, consumers: int, pulls_each: int, stalled_pulls: int, timeout_s: float = 3.0):
    """Pull latencies without, then with, a stalled reader (open all through the second measurement)."""
    without = consumers_pull(addr, consumers, pulls_each, timeout_s)
    stalled = StalledReader(addr, stalled_pulls)
    try:
        time.sleep(0.5)  # the broker has read what it will of the pipelined pulls and answered into full buffers
        with_stalled = consumers_pull(addr, consumers, pulls_each, timeout_s)
    finally:
        stalled.close()
    return SlowReaderResult(without, with_stalled)


# -- RSS over rounds of connections --------------------------------------------------------------------------------
def rss_kib(pid: int) -> int:
    """VmRSS of a process in KiB (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def heartbeat_frame(client_id: str, group: str = GROUP) -> bytes:
    """A HEART_BEAT of one consumer of ``group`` subscribed to ``TOPIC``."""
    consumer = ConsumerData(
        group,
        ConsumeType.CONSUME_PASSIVELY,
        MessageModel.CLUSTERING,
        ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
        [build_subscription_data(TOPIC, "*", 1)],
    )
    request = RemotingCommand.create_request_command(RequestCode.HEART_BEAT, None, opaque=1)
    request.body = HeartbeatData(client_id, [], [consumer]).encode()
    return request.encode()


def _read_frame(sock: socket.socket) -> bytes:
    head = b""
    while len(head) < 4:
        chunk = sock.recv(4 - len(head))
        if not chunk:
            raise ConnectionError("the broker closed the connection")
        head += chunk
    length, parts, got = int.from_bytes(head, "big"), [], 0
    while got < length:
        chunk = sock.recv(length - got)
        if not chunk:
            raise ConnectionError("the broker closed the connection")
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def call_for_response(client: RawClient, frame: bytes) -> RemotingCommand:
    """Send ``frame`` and return its answer, reading past requests the broker sends meanwhile.

    A client reads everything: NOTIFY_CONSUMER_IDS_CHANGED comes after a heartbeat changed its group.
    """
    client.sock.sendall(frame)
    while True:
        command = RemotingCommand.decode(_read_frame(client.sock))
        if command.is_response_type():
            return command


def connection_round(addr: str, connections: int, seconds: float, round_no: int, threads: int = 10) -> int:
    """``connections`` connections send heartbeats and pulls in turn for ``seconds``, then close; returns requests.

    Connection ``i`` is a new client (a new client id each round) of consumer group ``<GROUP>_<i>``, the same
    groups every round, so what the broker keeps per group stays the same and only per-connection state comes and
    goes.
    """
    clients = [RawClient(addr) for _ in range(connections)]
    pulls = [pull_frame(f"{GROUP}_{i}", TOPIC, 0, 0) for i in range(connections)]
    beats = [heartbeat_frame(f"127.0.0.1@rss-{round_no}-{i}", f"{GROUP}_{i}") for i in range(connections)]
    done = [0] * threads
    deadline = time.monotonic() + seconds

    def drive(worker: int) -> None:
        mine = range(worker, connections, threads)
        while time.monotonic() < deadline:
            for i in mine:
                for frame in (beats[i], pulls[i]):
                    if call_for_response(clients[i], frame).code != ResponseCode.SUCCESS:
                        raise RuntimeError(f"connection {i}: the broker refused a request")
                done[worker] += 2

    workers = [threading.Thread(target=drive, args=(w,), daemon=True) for w in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    for client in clients:
        client.close()
    return sum(done)


def rss_rounds(addr: str, broker: Process, rounds: int, connections: int, seconds: float) -> list[int]:
    """The broker's RSS (KiB) before the first round and 2 s after each round."""
    figures = [rss_kib(broker.proc.pid)]
    for round_no in range(rounds):
        requests = connection_round(addr, connections, seconds, round_no)
        time.sleep(2)
        figures.append(rss_kib(broker.proc.pid))
        print(f"  round {round_no + 1}: {requests} requests, broker RSS {figures[-1] / 1024:.1f} MiB", flush=True)
    return figures


# -- report --------------------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    """Run the cases and print the report."""
    parser = argparse.ArgumentParser(prog="python -m bench.slow_reader_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer pulls and shorter rounds (about a minute)")
    parser.add_argument("--smoke", action="store_true", help="tiny counts: proves every case runs; no target judged")
    parser.add_argument("--no-rss", action="store_true", help="skip the RSS rounds")
    parser.add_argument("--dir", help="parent directory for the temporary stores (default: the system temp dir)")
    args = parser.parse_args(argv)
    scale = SMOKE if args.smoke else QUICK if args.quick else FULL
    print(f"mqlab slow-reader benchmark ({scale.name} run), {os.cpu_count()} CPUs", flush=True)
    rows: list[summary.SummaryRow] = []
    with tempfile.TemporaryDirectory(prefix="mqlab-slow-reader-", dir=args.dir) as tmp:
        work = Path(tmp)
        with real_servers(work / "a") as (addr, broker):
            fill(addr)
            result = slow_reader(addr, scale.consumers, scale.pulls_each, scale.stalled_pulls)
            print(
                f"slow reader: {scale.consumers} consumers x {scale.pulls_each} pulls; p99 without "
                f"{result.without.p99() * 1000:.1f} ms, with one stalled reader ({scale.stalled_pulls} pipelined "
                f"pulls) {result.with_stalled.p99() * 1000:.1f} ms: {result.ratio:.2f}x "
                f"(target <= {TARGET_RATIO:g}x); failed pulls {len(result.with_stalled.failures)}",
                flush=True,
            )
            met = None if scale is SMOKE else result.ratio <= TARGET_RATIO and not result.with_stalled.failures
            rows.append(
                summary.SummaryRow(
                    "slow_reader",
                    "consumers' pull p99 with a stalled reader",
                    result.with_stalled.p99() * 1000,
                    "ms",
                    result.ratio,
                    "p99 without it",
                    f"<= {TARGET_RATIO:g}x",
                    met,
                )
            )
            if not args.no_rss:
                figures = rss_rounds(addr, broker, scale.rss_rounds, scale.rss_connections, scale.rss_round_s)
                mib = " -> ".join(f"{kib / 1024:.1f}" for kib in figures)
                print(f"broker RSS (MiB) before and after each round of {scale.rss_connections} connections: {mib}")
                rows.append(
                    summary.SummaryRow("slow_reader", "broker RSS after the last round", figures[-1] / 1024, "MiB")
                )
        with real_servers(work / "b", writeBufferHardLimit=1024 * 1024) as (addr, broker):
            fill(addr)
            stalled = StalledReader(addr, scale.stalled_pulls)
            closed = stalled.closed_by_peer(3)
            stalled.close()
            broker.stop()
            logged = [line for line in broker.proc.stderr.read().splitlines() if "bytes wait to be written" in line]
            print(f"hard limit 1 MiB: stalled reader closed by the broker: {closed}; log: {logged[:1]}")
    summary.record(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())

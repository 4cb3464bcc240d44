"""Real TCP on loopback: accept, ordered bytes, thread-safe sends, closes and resets, refusals, IPv6."""

import errno
import logging
import socket
import struct
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from mqlab.remoting.protocol.remoting_command import FrameDecoder
from mqlab.runtime.network import (
    STREAM_WATER_MARK,
    NetworkClosedError,
    NetworkConnectError,
    NetworkError,
    WriteBufferWaterMark,
    join_address,
    split_address,
)
from mqlab.runtime.tcp_network import EventLoopGroup, TcpNetwork

WAIT_S = 5.0


class Endpoint:
    """Collects what the network reports; ``wait`` blocks until a condition holds (or fails the test)."""

    def __init__(self):
        self.cond = threading.Condition()
        self.accepted = []
        self.chunks = []
        self.closed = []
        self.order = []

    def on_accept(self, conn):
        with self.cond:
            self.accepted.append(conn)
            self.order.append("accept")
            self.cond.notify_all()

    def on_data(self, conn, data):
        with self.cond:
            self.chunks.append(data)
            if not self.order or self.order[-1] != "data":
                self.order.append("data")
            self.cond.notify_all()

    def on_close(self, conn):
        with self.cond:
            self.closed.append(conn)
            self.order.append("close")
            self.cond.notify_all()

    def data(self):
        with self.cond:
            return b"".join(self.chunks)

    def wait(self, predicate):
        with self.cond:
            assert self.cond.wait_for(predicate, WAIT_S), "timed out waiting"


@pytest.fixture
def net():
    network = TcpNetwork()
    yield network
    network.close()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.spec("NET-1", "NET-2")
def test_round_trip_on_an_ephemeral_port(net):
    server, client = Endpoint(), Endpoint()
    listener = net.listen("127.0.0.1:0", server)
    port = split_address(listener.address)[1]
    assert port > 0 and listener.address == f"127.0.0.1:{port}"
    conn = net.connect(listener.address, client)
    assert conn.remote_address == listener.address and conn.is_open
    conn.send(b"hello ")
    conn.send(b"world")
    server.wait(lambda: b"".join(server.chunks) == b"hello world")
    assert server.order[:2] == ["accept", "data"]
    (server_end,) = server.accepted
    assert server_end.remote_address == conn.local_address
    server_end.send(b"pong")
    client.wait(lambda: client.chunks)
    assert client.data() == b"pong"


@pytest.mark.spec("NET-1")
def test_close_is_reported_once_on_each_side(net):
    server, client = Endpoint(), Endpoint()
    listener = net.listen("127.0.0.1:0", server)
    conn = net.connect(listener.address, client)
    server.wait(lambda: server.accepted)
    conn.close()
    conn.close()
    client.wait(lambda: client.closed)
    server.wait(lambda: server.closed)
    assert len(client.closed) == 1 and len(server.closed) == 1
    assert not conn.is_open
    with pytest.raises(NetworkClosedError):
        conn.send(b"late")


@pytest.mark.spec("NET-1")
def test_connection_refused(net):
    with pytest.raises(NetworkConnectError, match=r"connect to 127\.0\.0\.1:\d+ failed: ConnectionRefusedError"):
        net.connect(f"127.0.0.1:{free_port()}", Endpoint(), timeout_ms=1000)


@pytest.mark.spec("NET-2")
def test_a_reset_by_the_peer_ends_in_on_close(net):
    raw_listener = socket.socket()
    raw_listener.bind(("127.0.0.1", 0))
    raw_listener.listen(1)
    try:
        client = Endpoint()
        conn = net.connect(f"127.0.0.1:{raw_listener.getsockname()[1]}", client)
        raw, _ = raw_listener.accept()
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        raw.close()  # linger 0: RST instead of FIN
        client.wait(lambda: client.closed)
        assert client.closed == [conn] and not conn.is_open
    finally:
        raw_listener.close()


@pytest.mark.spec("NET-2")
def test_sends_from_many_threads_never_interleave(net):
    server, client = Endpoint(), Endpoint()
    listener = net.listen("127.0.0.1:0", server)
    conn = net.connect(listener.address, client)
    frames = {}

    def send(thread):
        for i in range(50):
            payload = (b"%d-%d|" % (thread, i)) * (1 + i * 97)
            frames[(thread, i)] = payload
            conn.send(struct.pack(">i", len(payload)) + payload)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(send, range(8)))
    total = sum(4 + len(p) for p in frames.values())
    server.wait(lambda: sum(map(len, server.chunks)) == total)
    decoder = FrameDecoder(max_frame_length=64 * 1024 * 1024)
    received = decoder.feed(server.data())
    assert sorted(received) == sorted(frames.values())
    # Frames of one thread keep their order.
    by_thread = {}
    for frame in received:
        thread, i = map(int, frame.split(b"|", 1)[0].split(b"-"))
        by_thread.setdefault(thread, []).append(i)
    assert all(seq == list(range(50)) for seq in by_thread.values())


@pytest.mark.spec("NET-2")
def test_closing_a_listener_frees_its_port_for_reuse(net):
    listener = net.listen("127.0.0.1:0", Endpoint())
    address = listener.address
    conn = net.connect(address, Endpoint())
    listener.close()
    listener.close()
    with pytest.raises(NetworkConnectError):
        net.connect(address, Endpoint(), timeout_ms=1000)
    again = net.listen(address, Endpoint())  # SO_REUSEADDR: the port is free again
    assert again.address == address
    conn.close()


@pytest.mark.spec("NET-2")
def test_a_taken_port_cannot_be_listened_on(net):
    listener = net.listen("127.0.0.1:0", Endpoint())
    with pytest.raises(NetworkError, match="cannot listen on"):
        net.listen(listener.address, Endpoint())


def ipv6_loopback_available():
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.spec("NET-2")
@pytest.mark.skipif(not ipv6_loopback_available(), reason="no IPv6 loopback on this machine")
def test_ipv6_loopback(net):
    server, client = Endpoint(), Endpoint()
    listener = net.listen("[::1]:0", server)
    assert listener.address.startswith("::1:")
    conn = net.connect(listener.address, client)  # split at the last colon, as Java does
    conn.send(b"v6")
    server.wait(lambda: server.chunks)
    assert server.data() == b"v6"


# -- a peer that does not read (issue 22, item 3) ----------------------------------------------------------------------
def raw_listener():
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # inherited by the accepted socket
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)
    return sock


def read_exactly(sock, size):
    parts, got = [], 0
    sock.settimeout(WAIT_S)
    while got < size:
        chunk = sock.recv(min(1 << 20, size - got))
        assert chunk, "closed early"
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def in_thread(fn, timeout_s=WAIT_S):
    """Run ``fn``; fail (instead of hanging) when it does not return within ``timeout_s``."""
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("value", fn()), daemon=True)
    thread.start()
    thread.join(timeout_s)
    assert not thread.is_alive(), f"{fn} did not return within {timeout_s} s"
    return outcome.get("value")


@pytest.mark.spec("NET-20")
def test_send_never_waits_on_a_peer_that_does_not_read(net):
    listener = raw_listener()
    try:
        conn = net.connect(f"127.0.0.1:{listener.getsockname()[1]}", Endpoint(), water_mark=WriteBufferWaterMark())
        peer, _ = listener.accept()
        frames = [bytes([i % 251]) * 65536 for i in range(128)]  # 8 MiB, far more than the kernel buffers

        def send_all():
            for frame in frames:
                conn.send(frame)

        in_thread(send_all, timeout_s=2.0)  # a blocking send waits here until the peer reads
        assert conn.pending_bytes > 0 and not conn.is_writable
        assert read_exactly(peer, len(frames) * 65536) == b"".join(frames)
        deadline = time.monotonic() + WAIT_S
        while conn.pending_bytes and time.monotonic() < deadline:
            time.sleep(0.01)
        assert conn.pending_bytes == 0 and conn.is_writable
        peer.close()
    finally:
        listener.close()


class Replier(Endpoint):
    """Answers every byte it receives with ``reply_size`` bytes (a pull answered with messages)."""

    def __init__(self, reply_size):
        super().__init__()
        self.reply_size = reply_size
        self.requests = 0
        self.send_errors = []

    def on_data(self, conn, data):
        super().on_data(conn, data)
        for _ in data:
            with self.cond:
                self.requests += 1
            try:
                conn.send(b"r" * self.reply_size)
            except NetworkClosedError as exc:
                self.send_errors.append(str(exc))


def raw_client(address):
    host, port = split_address(address)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, port))
    return sock


@pytest.mark.spec("NET-20")
def test_an_accepted_connection_is_not_read_above_the_high_water_mark_and_is_again_below_the_low(net):
    server = Replier(reply_size=4 * 1024 * 1024)  # more than the kernel buffers of a loopback pair (about 2.7 MiB)
    listener = net.listen("127.0.0.1:0", server, water_mark=WriteBufferWaterMark(low=32 * 1024, high=64 * 1024))
    client = raw_client(listener.address)
    try:
        client.sendall(b"1")
        server.wait(lambda: server.requests == 1)
        (server_end,) = server.accepted
        deadline = time.monotonic() + WAIT_S
        while server_end.is_reading and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not server_end.is_reading and not server_end.is_writable
        client.sendall(b"2")  # pipelined while the first answer is not read
        time.sleep(0.3)
        assert server.requests == 1  # not read: the server buffers no second answer
        read_exactly(client, 4 * 1024 * 1024)  # the peer reads: the buffer drains, reading resumes
        server.wait(lambda: server.requests == 2)
        read_exactly(client, 4 * 1024 * 1024)
    finally:
        client.close()


@pytest.mark.spec("NET-21")
def test_a_connection_past_close_above_is_closed_with_one_log_line(net, caplog):
    server = Replier(reply_size=1024 * 1024)
    mark = WriteBufferWaterMark(low=32 * 1024, high=64 * 1024, close_above=256 * 1024)
    listener = net.listen("127.0.0.1:0", server, water_mark=mark)
    client = raw_client(listener.address)
    peer = join_address(*client.getsockname()[:2])
    try:
        with caplog.at_level(logging.WARNING, logger="mqlab"):
            client.sendall(b"12345")  # five requests in one chunk: 5 MiB of answers, the kernel takes about 2.7
            server.wait(lambda: server.closed)
        lines = [r.getMessage() for r in caplog.records if "bytes wait to be written" in r.getMessage()]
        assert len(lines) == 1, lines
        assert f"-> {peer}: " in lines[0] and "above the limit of 262144 bytes" in lines[0]
        assert server.send_errors and "above the limit of 262144" in server.send_errors[0]
        assert not server.accepted[0].is_open
    finally:
        client.close()


@pytest.mark.spec("NET-20")
def test_without_water_marks_a_writer_thread_waits_but_an_io_thread_never_does(net):
    listener = raw_listener()
    try:
        conn = net.connect(f"127.0.0.1:{listener.getsockname()[1]}", Endpoint())  # the stream default (HA)
        peer, _ = listener.accept()
        payload = b"s" * (4 * 1024 * 1024)
        writer = threading.Thread(target=conn.send, args=(payload,), daemon=True)
        writer.start()
        writer.join(0.5)
        assert writer.is_alive()  # waits while more than the high water mark is buffered, as a blocking socket
        assert read_exactly(peer, len(payload)) == payload
        writer.join(WAIT_S)
        assert not writer.is_alive()

        class Forwarder(Endpoint):  # its on_data runs on an I/O thread, which must never wait on a peer
            def on_data(self, _conn, data):
                conn.send(payload)
                super().on_data(_conn, data)

        forwarder = Forwarder()
        server = net.listen("127.0.0.1:0", forwarder)
        net.connect(server.address, Endpoint()).send(b"go")
        forwarder.wait(lambda: forwarder.chunks)  # returned although the raw peer reads nothing now
        assert conn.pending_bytes > 0
        peer.close()
    finally:
        listener.close()
    assert STREAM_WATER_MARK.senders_wait and not WriteBufferWaterMark().senders_wait


@pytest.mark.spec("NET-20")
def test_water_marks_are_checked():
    with pytest.raises(ValueError, match="low water mark 70000 is above the high water mark 65536"):
        WriteBufferWaterMark(low=70000, high=65536)
    with pytest.raises(ValueError, match="close threshold 1000 is below the high water mark"):
        WriteBufferWaterMark(close_above=1000)
    assert WriteBufferWaterMark.from_settings(0, 0) == WriteBufferWaterMark()
    assert WriteBufferWaterMark.from_settings(0, 1 << 20) == WriteBufferWaterMark()  # both or Netty's own
    assert WriteBufferWaterMark.from_settings(1 << 19, 1 << 20, 1 << 24) == WriteBufferWaterMark(
        1 << 19, 1 << 20, 1 << 24
    )


# -- accepting goes on (issue 22, item 4) ---------------------------------------------------------------------------
@pytest.mark.spec("NET-22")
def test_accepting_survives_a_thread_that_cannot_start(monkeypatch, caplog):
    network = TcpNetwork(group=EventLoopGroup(2, name="tcp-io-test"))  # its I/O threads start on first use
    server = Endpoint()
    listener = network.listen("127.0.0.1:0", server)
    host, port = split_address(listener.address)
    real_start = threading.Thread.start

    def start(thread):
        if threading.current_thread().name.startswith("tcp-accept"):
            raise RuntimeError("can't start new thread")
        return real_start(thread)

    try:
        with caplog.at_level(logging.WARNING, logger="mqlab"):
            monkeypatch.setattr(threading.Thread, "start", start)
            flood = [socket.create_connection((host, port)) for _ in range(5)]
            deadline = time.monotonic() + WAIT_S
            while listener.accept_failures < 5 and time.monotonic() < deadline:
                time.sleep(0.01)
            monkeypatch.setattr(threading.Thread, "start", real_start)
        assert listener.accept_failures == 5
        assert any("can't start new thread" in r.getMessage() for r in caplog.records)
        for sock in flood:
            sock.close()
        client = Endpoint()
        conn = network.connect(listener.address, client)
        conn.send(b"after the flood")
        server.wait(lambda: server.data() == b"after the flood")
    finally:
        network.close()


@pytest.mark.spec("NET-22")
def test_accepting_survives_accept_errors_and_a_failing_accept_handler(net, monkeypatch):
    class Refuses(Endpoint):
        def on_accept(self, conn):
            if not self.closed and not self.accepted:
                self.accepted.append(None)
                raise RuntimeError("handler bug")
            super().on_accept(conn)

    server = Refuses()
    real_accept = socket.socket.accept
    errors = iter([OSError(errno.EMFILE, "Too many open files")] * 3)

    def accept(sock):
        error = next(errors, None)
        if error is not None:
            raise error
        return real_accept(sock)

    monkeypatch.setattr(socket.socket, "accept", accept)
    listener = net.listen("127.0.0.1:0", server)
    first = net.connect(listener.address, Endpoint())  # waits in the backlog while accept() fails
    server.wait(lambda: server.closed)  # accepted at last, then closed: its accept handler raised
    assert listener.accept_failures == 3
    second = net.connect(listener.address, Endpoint())
    second.send(b"served")
    server.wait(lambda: server.data() == b"served")
    first.close()

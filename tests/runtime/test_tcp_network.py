"""Real TCP on loopback: accept, ordered bytes, thread-safe sends, closes and resets, refusals, IPv6."""

import socket
import struct
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from mqlab.remoting.protocol.remoting_command import FrameDecoder
from mqlab.runtime.network import NetworkClosedError, NetworkConnectError, NetworkError, split_address
from mqlab.runtime.tcp_network import TcpNetwork

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

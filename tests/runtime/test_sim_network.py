"""The simulated network: ordered seeded delivery, accept before data, closes, and fault injection."""

import pytest

from mqlab.runtime import SimulatedWorld
from mqlab.runtime.network import NetworkClosedError, NetworkConnectError, NetworkError, split_address


class Endpoint:
    """Records what a network reports, with the virtual time."""

    def __init__(self, world):
        self.world = world
        self.log = []
        self.conns = []

    def on_accept(self, conn):
        self.conns.append(conn)
        self.log.append(("accept", self.world.now_ms(), conn.remote_address))

    def on_data(self, conn, data):
        self.log.append(("data", self.world.now_ms(), data))

    def on_close(self, conn):
        self.log.append(("close", self.world.now_ms(), conn.conn_id))

    def data(self):
        return [entry[2] for entry in self.log if entry[0] == "data"]


def pair(seed=3, **network):
    world = SimulatedWorld(seed)
    for key, value in network.items():
        setattr(world.network, key, value)
    server_rt, client_rt = world.runtime("server"), world.runtime("client")
    server, client = Endpoint(world), Endpoint(world)
    listener = server_rt.network.listen("0.0.0.0:7000", server)
    conn = client_rt.network.connect(f"{server_rt.host.ip}:7000", client)
    return world, server, client, conn, listener


@pytest.mark.spec("NET-1", "NET-3")
def test_accept_comes_before_data_and_data_keeps_its_order():
    world, server, client, conn, _ = pair(latency_ms=(1, 20))
    for i in range(50):
        conn.send(b"%d" % i)
    world.run_for(100)
    assert server.log[0][0] == "accept" and server.log[0][2] == conn.local_address
    assert server.data() == [b"%d" % i for i in range(50)]
    times = [t for kind, t, _ in server.log]
    assert times == sorted(times)
    (server_end,) = server.conns
    server_end.send(b"pong")
    world.run_for(100)
    assert client.data() == [b"pong"]
    assert (server_end.local_address, server_end.remote_address) == (conn.remote_address, conn.local_address)


@pytest.mark.spec("NET-3")
def test_latencies_stay_in_the_configured_range():
    world, _server, _, conn, _ = pair(latency_ms=(5, 7))
    sent = world.now_ms()
    conn.send(b"x")
    world.run_for(50)
    deliver = world.trace.events("SimNetwork", event="deliver")[0]
    assert 5 <= deliver.time_ms - sent <= 7 and deliver.fields["latency"] == deliver.time_ms - sent


def run(seed):
    world, server, _client, conn, _ = pair(seed=seed)
    for i in range(20):
        conn.send(bytes([i]))
        world.run_for(1)
    world.run_for(50)
    return world.trace.dump(), [t for kind, t, _ in server.log]


@pytest.mark.spec("NET-3")
def test_same_seed_same_deliveries_other_seed_other_times():
    assert run(5) == run(5)
    assert run(5)[1] != run(6)[1]


@pytest.mark.spec("NET-1")
def test_close_is_reported_once_to_each_side_after_the_data():
    world, server, client, conn, _ = pair()
    conn.send(b"last words")
    conn.close()
    conn.close()  # idempotent
    world.run_for(50)
    assert [entry[0] for entry in server.log] == ["accept", "data", "close"]
    assert [entry[0] for entry in client.log] == ["close"]
    assert not conn.is_open and not server.conns[0].is_open
    with pytest.raises(NetworkClosedError):
        conn.send(b"too late")


@pytest.mark.spec("NET-1")
def test_refused_and_bad_listen_addresses():
    world = SimulatedWorld(1)
    a, b = world.runtime("a"), world.runtime("b")
    with pytest.raises(NetworkConnectError, match="refused"):
        a.network.connect(f"{b.host.ip}:7000", Endpoint(world))
    b.network.listen("0.0.0.0:7000", Endpoint(world))
    with pytest.raises(NetworkError, match="already in use"):
        b.network.listen(f"{b.host.ip}:7000", Endpoint(world))
    with pytest.raises(NetworkError, match="not an address of node b"):
        b.network.listen(f"{a.host.ip}:7001", Endpoint(world))
    ephemeral = b.network.listen("127.0.0.1:0", Endpoint(world))
    assert split_address(ephemeral.address)[1] >= 32768
    # Loopback reaches the node's own listeners.
    assert b.network.connect(f"127.0.0.1:{ephemeral.port}", Endpoint(world)).is_open


@pytest.mark.spec("NET-4")
def test_drop_probability_loses_messages_deterministically():
    def survivors(seed):
        world, server, _, conn, _ = pair(seed=seed, drop_probability=0.5)
        for i in range(40):
            conn.send(bytes([i]))
        world.run_for(50)
        return server.data(), len(world.trace.events("SimNetwork", event="drop"))

    data, dropped = survivors(9)
    assert 0 < len(data) < 40 and len(data) + dropped == 40
    assert data == sorted(data)
    assert survivors(9) == (data, dropped)


@pytest.mark.spec("NET-4")
def test_delay_adds_latency_for_everyone_or_some_nodes():
    world, server, _, conn, _ = pair(latency_ms=(1, 1))
    world.run_for(10)
    world.network.delay(100)
    began = world.now_ms()
    conn.send(b"slow")
    world.run_for(200)
    assert server.log[-1] == ("data", began + 101, b"slow")
    world.network.delay(0)
    world.network.delay(30, nodes=["server"])
    began = world.now_ms()
    conn.send(b"a bit slow")
    world.run_for(200)
    assert server.log[-1] == ("data", began + 31, b"a bit slow")


@pytest.mark.spec("NET-4")
def test_partition_drops_in_flight_and_new_messages_and_times_out_connects():
    world, server, _, conn, _ = pair(latency_ms=(5, 5))
    world.run_for(10)
    conn.send(b"in flight")
    world.network.partition(["client"], ["server"])
    conn.send(b"after the cut")
    world.run_for(20)
    assert server.data() == []
    assert [e.fields["reason"] for e in world.trace.events("SimNetwork", event="drop")] == ["partition"] * 2
    began = world.now_ms()
    with pytest.raises(NetworkConnectError, match="timed out after 700 ms \\(partition\\)"):
        world.runtime("client").network.connect(
            f"{world.runtime('server').host.ip}:7000", Endpoint(world), timeout_ms=700
        )
    assert world.now_ms() - began == 700
    world.network.heal()
    conn.send(b"healed")
    world.run_for(20)
    assert server.data() == [b"healed"]  # the connection survived, as TCP's does


@pytest.mark.spec("NET-4")
def test_kill_closes_peers_refuses_connects_and_restart_allows_listening_again():
    world, server, client, _conn, _ = pair()
    world.run_for(10)
    world.network.kill("server")
    world.run_for(10)
    assert [entry[0] for entry in client.log] == ["close"]
    assert server.log[-1][0] == "accept"  # a dead node hears nothing
    server_rt = world.runtime("server")
    with pytest.raises(NetworkConnectError, match="refused"):
        world.runtime("client").network.connect(f"{server_rt.host.ip}:7000", Endpoint(world))
    with pytest.raises(NetworkError, match="is down"):
        server_rt.network.listen("0.0.0.0:7000", Endpoint(world))
    world.network.restart("server")
    again = Endpoint(world)
    server_rt.network.listen("0.0.0.0:7000", again)
    world.runtime("client").network.connect(f"{server_rt.host.ip}:7000", Endpoint(world)).send(b"hi")
    world.run_for(10)
    assert again.data() == [b"hi"]
    assert [e.event for e in world.trace.events("SimNetwork", node="server")][:1] == ["listen"]


@pytest.mark.spec("NET-1")
def test_closing_the_listener_before_the_accept_resets_the_connection():
    world, server, client, conn, listener = pair()
    listener.close()
    conn.send(b"lost")
    world.run_for(20)
    assert server.log == []
    assert [entry[0] for entry in client.log] == ["close"]

"""The simulated network: connections between the nodes of a ``SimulatedWorld``, with seeded latency and faults.

Java: none (teaching infrastructure, in the spirit of the in-memory networks of deterministic simulators).

Each node's runtime has a view of the one ``SimNetwork`` of its world (``runtime.network``); the world itself exposes
it as ``world.network`` for fault injection. Connecting to ``"ip:port"`` where a node of the world listens creates a
pair of connection ends at once (connecting takes no virtual time); the listener learns of it, through
``on_accept``, one latency later and before any of the data.

Every ``send`` is one message, delivered as an event after a latency drawn from the network's own random stream
(``random.Random("<seed>:network")``, ``latency_ms`` inclusive range, 1–3 ms by default). Messages on one direction
of a connection never overtake each other: a message is delivered no earlier than the one sent before it. So the
same seed and the same sends give the same delivery order and times, and every delivery or drop is in the trace
under the component ``SimNetwork``.

Faults:

* ``drop_probability``: each message is lost with this probability (drawn at send time).
* ``delay(extra_ms, nodes=None)``: add latency to every message (or only to messages to or from ``nodes``).
* ``partition(nodes_a, nodes_b)`` / ``heal()``: messages across the cut are dropped when they arrive, and a connect
  across it times out after its ``timeout_ms`` of virtual time. Connections survive a healed partition, as TCP
  connections do.
* ``kill(node)``: the node's listeners and connections vanish without telling the node; each peer learns of the
  close one latency later (after the data already under way); connects to the node are refused.
  ``restart(node)`` lets it listen and connect again (the application must start its servers again).

Close notices follow the data of their direction and are never lost (a simplification: a real peer would need a
timeout to notice a close lost in a partition).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from mqlab.runtime.network import (
    ConnectionHandler,
    ListenerHandler,
    NetworkClosedError,
    NetworkConnectError,
    NetworkError,
    join_address,
    split_address,
)

if TYPE_CHECKING:
    from mqlab.runtime.simulated import SimulatedWorld

COMPONENT = "SimNetwork"
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}
WILDCARD_HOSTS = {"", "0.0.0.0", "::"}
# First port handed out for port 0 and for the local end of outgoing connections (Linux's ephemeral range).
EPHEMERAL_PORT_START = 32768


class SimConnection:
    """One end of a simulated connection."""

    def __init__(
        self, network: SimNetwork, conn_id: int, node: str, local: str, remote: str, handler: ConnectionHandler
    ):
        self.network = network
        self.conn_id = conn_id
        self.node = node
        self.local_address = local
        self.remote_address = remote
        self.handler = handler
        self.peer: SimConnection = self  # set right after the pair is made
        self._open = True
        # Delivery time of the last message sent from this end: the next one may not arrive earlier.
        self._last_arrival_ms = 0

    @property
    def is_open(self) -> bool:
        """Whether this end can still send and receive."""
        return self._open

    def send(self, data: bytes) -> None:
        """Send one message to the peer (delivered after a seeded latency, or dropped by a fault).

        Raises:
            NetworkClosedError: this end is closed.
        """
        if not self._open:
            raise NetworkClosedError(f"connection {self.local_address} -> {self.remote_address} is closed")
        self.network._transmit(self, bytes(data))

    def close(self) -> None:
        """Close this end: its own handler hears ``on_close`` now, the peer after the data already sent."""
        if not self._open:
            return
        self._open = False
        self.network._trace(self.node, "close", conn=self.conn_id, local=self.local_address, remote=self.remote_address)
        self.network.world.schedule(0, lambda: self.handler.on_close(self), name="SimNetwork-close")
        self.network._send_close_notice(self)

    def __repr__(self) -> str:
        state = "open" if self._open else "closed"
        return f"SimConnection#{self.conn_id}({self.node} {self.local_address} -> {self.remote_address}, {state})"


class SimListener:
    """A listening port of one node."""

    def __init__(self, network: SimNetwork, node: str, address: str, port: int, handler: ListenerHandler):
        self.network = network
        self.node = node
        self.address = address
        self.port = port
        self.handler = handler
        self.closed = False

    def close(self) -> None:
        """Stop accepting; the port is free again at once."""
        if self.closed:
            return
        self.closed = True
        self.network._listeners.pop((self.node, self.port), None)
        self.network._trace(self.node, "unlisten", address=self.address)

    def __repr__(self) -> str:
        return f"SimListener({self.node} {self.address})"


class SimNodeNetwork:
    """One node's view of the world's network (what its ``runtime.network`` is)."""

    def __init__(self, network: SimNetwork, node: str):
        self.network = network
        self.node = node

    def listen(
        self, address: str, handler: ListenerHandler, *, backlog: int = 1024, water_mark: object = None
    ) -> SimListener:
        """Listen on ``"host:port"`` of this node (host: wildcard, loopback or the node's IP; port 0: ephemeral).

        ``backlog`` and ``water_mark`` have no effect: a simulated connection has no socket buffers.

        Raises:
            NetworkError: the node is down, the host is not this node's, or the port is taken.
        """
        return self.network._listen(self.node, address, handler)

    def connect(
        self, address: str, handler: ConnectionHandler, *, timeout_ms: int = 3000, water_mark: object = None
    ) -> SimConnection:
        """Connect from this node to ``"ip:port"`` (``water_mark`` has no effect: no socket buffers here).

        Raises:
            NetworkConnectError: refused at once (nobody listens, or the node is down), or timed out after
                ``timeout_ms`` of virtual time (no node has that IP, or a partition is in the way).
        """
        return self.network._connect(self.node, address, handler, timeout_ms)


class SimNetwork:
    """The network of a simulated world.

    Args:
        world: the world whose clock and event queue carry the messages.
        latency_ms: inclusive range of the latency drawn for each message.
        drop_probability: probability that a message is lost.
    """

    def __init__(self, world: SimulatedWorld, *, latency_ms: tuple[int, int] = (1, 3), drop_probability: float = 0.0):
        self.world = world
        self.random = random.Random(f"{world.seed}:network")
        self.latency_ms = latency_ms
        self.drop_probability = drop_probability
        self.extra_delay_ms = 0
        self._node_delay_ms: dict[str, int] = {}
        self._ips: dict[str, str] = {}
        self._nodes_by_ip: dict[str, str] = {}
        self._listeners: dict[tuple[str, int], SimListener] = {}
        self._ends: list[SimConnection] = []
        self._dead: set[str] = set()
        self._cuts: set[frozenset[str]] = set()
        self._next_port: dict[str, int] = {}
        self._conn_ids = itertools.count(1)
        self.delivered = 0
        self.dropped = 0

    # -- nodes -------------------------------------------------------------------------------------------------
    def attach(self, node: str, ip: str) -> SimNodeNetwork:
        """Register ``node`` at ``ip`` and return its view of the network."""
        self._ips[node] = ip
        self._nodes_by_ip.setdefault(ip, node)
        return SimNodeNetwork(self, node)

    def connections(self, node: str | None = None) -> list[SimConnection]:
        """The open connection ends (of one node, if given), oldest first."""
        return [end for end in self._ends if end.is_open and (node is None or end.node == node)]

    def listeners(self, node: str | None = None) -> list[SimListener]:
        """The open listeners (of one node, if given)."""
        return [lst for lst in self._listeners.values() if node is None or lst.node == node]

    # -- fault injection ---------------------------------------------------------------------------------------
    def delay(self, extra_ms: int, nodes: Iterable[str] | None = None) -> None:
        """Add ``extra_ms`` to the latency of every message (or of messages to or from ``nodes``); 0 removes it."""
        if nodes is None:
            self.extra_delay_ms = extra_ms
        else:
            for node in nodes:
                self._node_delay_ms[node] = extra_ms
        self._trace("world", "delay", extra_ms=extra_ms, nodes=",".join(nodes) if nodes is not None else "*")

    def partition(self, nodes_a: Iterable[str], nodes_b: Iterable[str]) -> None:
        """Cut every node of ``nodes_a`` off from every node of ``nodes_b`` (both directions)."""
        side_a, side_b = list(nodes_a), list(nodes_b)
        for a in side_a:
            for b in side_b:
                if a != b:
                    self._cuts.add(frozenset((a, b)))
        self._trace("world", "partition", a=",".join(side_a), b=",".join(side_b))

    def heal(self) -> None:
        """Remove every partition."""
        self._cuts.clear()
        self._trace("world", "heal")

    def is_cut(self, node_a: str, node_b: str) -> bool:
        """Whether a partition separates the two nodes."""
        return frozenset((node_a, node_b)) in self._cuts

    def kill(self, node: str) -> None:
        """Crash ``node``'s networking: its listeners and connections vanish; peers learn of the closes."""
        self._dead.add(node)
        self._trace(node, "kill")
        for listener in self.listeners(node):
            listener.close()
        for end in self.connections(node):
            end._open = False  # a dead process hears nothing
            self._send_close_notice(end)

    def restart(self, node: str) -> None:
        """Let a killed node listen and connect again."""
        self._dead.discard(node)
        self._trace(node, "restart")

    def is_alive(self, node: str) -> bool:
        """Whether ``node`` has not been killed (or has been restarted)."""
        return node not in self._dead

    # -- listening and connecting ------------------------------------------------------------------------------
    def _ephemeral_port(self, node: str) -> int:
        port = self._next_port.get(node, EPHEMERAL_PORT_START)
        while (node, port) in self._listeners:
            port += 1
        self._next_port[node] = port + 1
        return port

    def _listen(self, node: str, address: str, handler: ListenerHandler) -> SimListener:
        host, port = split_address(address)
        ip = self._ips[node]
        if node in self._dead:
            raise NetworkError(f"cannot listen on {address}: node {node} is down")
        if host not in WILDCARD_HOSTS and host not in LOOPBACK_HOSTS and host != ip:
            raise NetworkError(f"cannot listen on {address}: {host} is not an address of node {node} ({ip})")
        if port == 0:
            port = self._ephemeral_port(node)
        elif (node, port) in self._listeners:
            raise NetworkError(f"cannot listen on {address}: address already in use on node {node}")
        listener = SimListener(self, node, join_address(host, port), port, handler)
        self._listeners[(node, port)] = listener
        self._trace(node, "listen", address=listener.address)
        return listener

    def _connect(self, node: str, address: str, handler: ConnectionHandler, timeout_ms: int) -> SimConnection:
        host, port = split_address(address)
        if node in self._dead:
            raise NetworkConnectError(f"connect to {address} failed: node {node} is down")
        target = node if host in LOOPBACK_HOSTS else self._nodes_by_ip.get(host)
        if target is None or self.is_cut(node, target):
            # Nothing answers: the connect attempt waits out its timeout, as a real SYN into the void does.
            reason = "partition" if target is not None else "no such host"
            self._trace(node, "connect_timeout", to=address, reason=reason, timeout_ms=timeout_ms)
            self.world.run_for(timeout_ms)
            raise NetworkConnectError(f"connect to {address} timed out after {timeout_ms} ms ({reason})")
        listener = self._listeners.get((target, port))
        if target in self._dead or listener is None:
            self._trace(node, "refused", to=address)
            raise NetworkConnectError(f"connect to {address} refused")
        conn_id = next(self._conn_ids)
        self._ends = [end for end in self._ends if end.is_open]
        local = join_address(self._ips[node], self._ephemeral_port(node))
        client = SimConnection(self, conn_id, node, local, address, handler)
        server = SimConnection(self, conn_id, target, join_address(self._ips[target], port), local, listener.handler)
        client.peer, server.peer = server, client
        self._ends += [client, server]
        self._trace(node, "connect", conn=conn_id, local=local, remote=address)
        self._after_latency(client, lambda: self._accept(listener, server))
        return client

    def _accept(self, listener: SimListener, server: SimConnection) -> None:
        if listener.closed or server.node in self._dead or not server.is_open:
            self._trace(server.node, "reset", conn=server.conn_id, remote=server.remote_address)
            if server.is_open:  # never accepted, so nobody on this side hears of it; the client does, later
                server._open = False
                self._send_close_notice(server)
            return
        self._trace(
            server.node, "accept", conn=server.conn_id, local=server.local_address, remote=server.remote_address
        )
        listener.handler.on_accept(server)

    # -- moving bytes ------------------------------------------------------------------------------------------
    def _latency(self, src: str, dst: str) -> int:
        low, high = self.latency_ms
        extra = self.extra_delay_ms + max(self._node_delay_ms.get(src, 0), self._node_delay_ms.get(dst, 0))
        return self.random.randint(low, high) + extra

    def _after_latency(self, sender: SimConnection, fn: Callable[[], Any]) -> None:
        now = self.world.now_ms()
        arrival = max(now + self._latency(sender.node, sender.peer.node), sender._last_arrival_ms)
        sender._last_arrival_ms = arrival
        self.world.schedule(arrival - now, fn, name="SimNetwork-deliver")

    def _transmit(self, sender: SimConnection, data: bytes) -> None:
        if self.drop_probability and self.random.random() < self.drop_probability:
            self.dropped += 1
            self._trace(
                sender.node, "drop", conn=sender.conn_id, to=sender.remote_address, bytes=len(data), reason="loss"
            )
            return
        sent_ms = self.world.now_ms()
        self._after_latency(sender, lambda: self._deliver(sender, data, sent_ms))

    def _deliver(self, sender: SimConnection, data: bytes, sent_ms: int) -> None:
        receiver = sender.peer
        reason = None
        if receiver.node in self._dead:
            reason = "killed"
        elif self.is_cut(sender.node, receiver.node):
            reason = "partition"
        elif not receiver.is_open:
            reason = "closed"
        fields = {"conn": receiver.conn_id, "from": sender.local_address, "bytes": len(data)}
        if reason is not None:
            self.dropped += 1
            self._trace(receiver.node, "drop", **fields, reason=reason)
            return
        self.delivered += 1
        self._trace(receiver.node, "deliver", **fields, latency=self.world.now_ms() - sent_ms)
        receiver.handler.on_data(receiver, data)

    def _send_close_notice(self, sender: SimConnection) -> None:
        def notice() -> None:
            receiver = sender.peer
            if receiver.is_open and receiver.node not in self._dead:
                receiver._open = False
                self._trace(receiver.node, "closed_by_peer", conn=receiver.conn_id, remote=receiver.remote_address)
                receiver.handler.on_close(receiver)

        self._after_latency(sender, notice)

    def _trace(self, node: str, event: str, **fields: Any) -> None:
        self.world.trace.record(self.world.now_ms(), node, COMPONENT, event, **fields)

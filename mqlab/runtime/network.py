"""The network a node sees: listen on an address, connect to one, send bytes, learn of data and closes.

Java: none (stands in for Netty's channels and the JDK's sockets). RocketMQ's remoting layer opens sockets through
Netty; mqlab's remoting layer asks ``runtime.network`` instead, so the same ``NettyRemotingServer`` and
``NettyRemotingClient`` run on real TCP (``TcpNetwork``, threaded runtime) and on the deterministic in-process
network of a simulation (``SimNetwork``), where a seed fixes every delivery time.

The model is a byte stream per connection, reported in chunks:

* ``listen(address, handler)`` returns a ``Listener``; each accepted connection is announced by
  ``handler.on_accept(conn)`` before any of its data.
* ``connect(address, handler)`` returns an open ``Connection`` or raises ``NetworkConnectError``.
* ``conn.send(data)`` queues bytes for the peer (thread-safe); the peer's handler gets them, in order, through
  ``on_data(conn, data)``. Chunk boundaries are not preserved by TCP, so a reader must reassemble frames itself
  (the remoting layer's ``FrameDecoder`` does).
* ``conn.close()`` is idempotent; each side's handler gets ``on_close(conn)`` exactly once, whoever closed it
  (a reset by the peer also ends in ``on_close``).

Addresses are ``"host:port"`` strings, split at the **last** colon as Java's ``RemotingHelper#string2SocketAddress``
does, so an IPv6 address may be written bare (``::1:9876``) or in brackets (``[::1]:9876``).
"""

from __future__ import annotations

from typing import Protocol


class NetworkError(ConnectionError):
    """Something went wrong on the network (the message says what and where)."""


class NetworkConnectError(NetworkError):
    """A connection could not be made: refused, unreachable or timed out."""


class NetworkClosedError(NetworkError):
    """Bytes were sent on a connection that is already closed."""


class Connection(Protocol):
    """One end of an open (or closed) connection; the remoting layer uses it as its Netty ``Channel``."""

    local_address: str
    remote_address: str

    @property
    def is_open(self) -> bool:
        """Whether the connection can still carry data (Netty: ``Channel#isActive``)."""
        ...

    def send(self, data: bytes) -> None:
        """Queue ``data`` for the peer, all of it, in order.

        Raises:
            NetworkClosedError: the connection is closed.
        """
        ...

    def close(self) -> None:
        """Close this end (again is harmless); the peer learns of it after the data already sent."""
        ...


class ConnectionHandler(Protocol):
    """What a connection reports to its owner."""

    def on_data(self, conn: Connection, data: bytes) -> None:
        """Some bytes arrived, in order (a chunk may hold part of a frame, or several)."""
        ...

    def on_close(self, conn: Connection) -> None:
        """The connection closed (either side, or a reset); called once per end."""
        ...


class ListenerHandler(ConnectionHandler, Protocol):
    """What a listening socket reports: new connections, then their data and closes."""

    def on_accept(self, conn: Connection) -> None:
        """A peer connected; called before any ``on_data`` of ``conn``."""
        ...


class Listener(Protocol):
    """A listening socket."""

    address: str

    def close(self) -> None:
        """Stop accepting (connections already accepted stay open)."""
        ...


class Network(Protocol):
    """A node's network: ``TcpNetwork`` in the threaded runtime, a node's view of ``SimNetwork`` in a simulation."""

    def listen(self, address: str, handler: ListenerHandler, *, backlog: int = 1024) -> Listener:
        """Listen on ``"host:port"`` (port 0: any free port, see ``Listener.address``).

        Raises:
            NetworkError: the address cannot be bound (in use, not this node's).
        """
        ...

    def connect(self, address: str, handler: ConnectionHandler, *, timeout_ms: int = 3000) -> Connection:
        """Open a connection to ``"host:port"``; the returned connection reports to ``handler``.

        Raises:
            NetworkConnectError: refused, unreachable, or not established within ``timeout_ms``.
        """
        ...


class NoNetwork:
    """The network of a runtime built without one: every use raises ``NetworkError``."""

    def listen(self, address: str, handler: ListenerHandler, *, backlog: int = 1024) -> Listener:
        """Always fails."""
        raise NetworkError(f"this runtime has no network: cannot listen on {address}")

    def connect(self, address: str, handler: ConnectionHandler, *, timeout_ms: int = 3000) -> Connection:
        """Always fails."""
        raise NetworkConnectError(f"this runtime has no network: cannot connect to {address}")


def split_address(address: str) -> tuple[str, int]:
    """``"host:port"`` → ``(host, port)``, split at the last colon; brackets around an IPv6 host are removed.

    Raises:
        ValueError: no colon, or a port that is not a number in 0..65535.
    """
    host, sep, port_text = address.rpartition(":")
    if not sep or not port_text.isdigit():
        raise ValueError(f"address {address!r} is not host:port")
    port = int(port_text)
    if port > 65535:
        raise ValueError(f"port {port} of {address!r} is out of range")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


def join_address(host: str, port: int) -> str:
    """``(host, port)`` → ``"host:port"``, written as Java prints socket addresses (an IPv6 host without brackets)."""
    return f"{host}:{port}"

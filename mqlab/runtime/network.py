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

How much a connection may buffer for a peer that reads slowly is a ``WriteBufferWaterMark`` passed to ``listen`` or
``connect`` (Netty's ``WRITE_BUFFER_WATER_MARK`` channel option); the simulated network has no socket buffers and
accepts it without effect.

Addresses are ``"host:port"`` strings, split at the **last** colon as Java's ``RemotingHelper#string2SocketAddress``
does, so an IPv6 address may be written bare (``::1:9876``) or in brackets (``[::1]:9876``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

# Netty's WriteBufferWaterMark.DEFAULT: a channel stops being writable above 64 KiB and is writable again below 32 KiB.
NETTY_DEFAULT_LOW_WATER_MARK = 32 * 1024
NETTY_DEFAULT_HIGH_WATER_MARK = 64 * 1024


class NetworkError(ConnectionError):
    """Something went wrong on the network (the message says what and where)."""


class NetworkConnectError(NetworkError):
    """A connection could not be made: refused, unreachable or timed out."""


class NetworkClosedError(NetworkError):
    """Bytes were sent on a connection that is already closed."""


@dataclass(frozen=True, slots=True)
class WriteBufferWaterMark:
    """Bounds of a connection's outbound buffer, and what happens at them.

    Java: io.netty.channel.WriteBufferWaterMark (the ``WRITE_BUFFER_WATER_MARK`` option ``NettyRemotingServer#start``
    sets from ``writeBufferLowWaterMark`` / ``writeBufferHighWaterMark``), plus two mqlab fields.

    Args:
        low: once the buffered bytes fall to this, the connection is writable again (Netty: 32 KiB).
        high: above this, the connection is not writable (Netty: 64 KiB): an accepted connection stops being read
            until the buffer falls to ``low``, so a peer that does not read cannot pipeline more requests.
        close_above: above this many buffered bytes the connection is closed, with a log line naming the peer and
            the count (0: never; 4.9.3's Netty buffers without bound).
        senders_wait: a thread that is not an I/O thread waits in ``send`` while the connection is not writable,
            as a blocking socket's writer would. For a thread that writes to one peer only (the HA write service);
            the remoting layer leaves it off, so its threads never wait on a peer.

    Raises:
        ValueError: a negative bound, ``low`` above ``high``, or ``close_above`` below ``high``.
    """

    low: int = NETTY_DEFAULT_LOW_WATER_MARK
    high: int = NETTY_DEFAULT_HIGH_WATER_MARK
    close_above: int = 0
    senders_wait: bool = False

    def __post_init__(self) -> None:
        if self.low < 0 or self.high <= 0 or self.close_above < 0:
            raise ValueError(f"write buffer water marks must be positive: {self}")
        if self.low > self.high:
            raise ValueError(f"write buffer low water mark {self.low} is above the high water mark {self.high}")
        if self.close_above and self.close_above < self.high:
            raise ValueError(
                f"write buffer close threshold {self.close_above} is below the high water mark {self.high}"
            )

    @classmethod
    def from_settings(cls, low: int, high: int, close_above: int = 0) -> WriteBufferWaterMark:
        """The water marks a remoting server or client configures: Netty's own when either setting is 0 or less.

        Java: NettyRemotingServer#start applies ``writeBufferLowWaterMark`` / ``writeBufferHighWaterMark`` only when
        both are positive; 4.9.3's defaults are 0 (``com.rocketmq.remoting.write.buffer.low.water.mark`` /
        ``...high.water.mark`` system properties), so Netty's 32 KiB / 64 KiB apply.

        Raises:
            ValueError: both set, with ``low`` above ``high`` (Netty refuses it too), or ``close_above`` below high.
        """
        if low <= 0 or high <= 0:
            low, high = NETTY_DEFAULT_LOW_WATER_MARK, NETTY_DEFAULT_HIGH_WATER_MARK
        return cls(low, high, close_above=max(0, close_above))


# A connection opened without water marks behaves like a blocking socket for its writers (the HA service relies on
# that): a writer waits while more than 64 KiB are buffered; nothing is ever closed for being slow.
STREAM_WATER_MARK = WriteBufferWaterMark(senders_wait=True)


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

    def listen(
        self,
        address: str,
        handler: ListenerHandler,
        *,
        backlog: int = 1024,
        water_mark: WriteBufferWaterMark = STREAM_WATER_MARK,
    ) -> Listener:
        """Listen on ``"host:port"`` (port 0: any free port, see ``Listener.address``).

        ``water_mark`` bounds the outbound buffer of every accepted connection.

        Raises:
            NetworkError: the address cannot be bound (in use, not this node's).
        """
        ...

    def connect(
        self,
        address: str,
        handler: ConnectionHandler,
        *,
        timeout_ms: int = 3000,
        water_mark: WriteBufferWaterMark = STREAM_WATER_MARK,
    ) -> Connection:
        """Open a connection to ``"host:port"``; the returned connection reports to ``handler``.

        ``water_mark`` bounds its outbound buffer (a connection that was connected is always read: only the
        accepting side stops reading a peer that does not read).

        Raises:
            NetworkConnectError: refused, unreachable, or not established within ``timeout_ms``.
        """
        ...


class NoNetwork:
    """The network of a runtime built without one: every use raises ``NetworkError``."""

    def listen(self, address: str, handler: ListenerHandler, *, backlog: int = 1024, **_: object) -> Listener:
        """Always fails."""
        raise NetworkError(f"this runtime has no network: cannot listen on {address}")

    def connect(self, address: str, handler: ConnectionHandler, *, timeout_ms: int = 3000, **_: object) -> Connection:
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

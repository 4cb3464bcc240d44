"""Real TCP for the threaded runtime: one accept thread per listener, one reader thread per connection.

Java: none (stands in for Netty's NIO event loops). Netty multiplexes many channels over a few selector threads;
mqlab keeps the model a learner can follow with a debugger: a listener has a thread that accepts, a connection has
a thread that reads and hands each chunk to its handler (``on_data``) on that thread. Sends go straight to the
socket under a per-connection lock, so any thread may send and frames never interleave.

Options follow ``NettyRemotingServer#start`` and ``NettyRemotingClient#start``: ``SO_REUSEADDR`` on listeners,
``TCP_NODELAY`` on every connection, keep-alive off. IPv4 and IPv6 both work (``getaddrinfo`` picks the family).

Closing is idempotent and always reported once: ``close()`` shuts the socket down, which wakes the reader thread;
that thread closes the socket and calls ``on_close``. A peer's close and a reset (``ECONNRESET``) end the same way.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import socket
import threading
import time
import traceback

from mqlab.runtime.network import (
    ConnectionHandler,
    ListenerHandler,
    NetworkClosedError,
    NetworkConnectError,
    NetworkError,
    join_address,
    split_address,
)

# Bytes asked of recv() at a time; a 16 MiB frame arrives as many chunks, which the frame decoder joins. Kept under
# glibc's mmap threshold (128 KiB, see keep_large_buffers_returnable) so the buffers recv() makes come from the heap.
READ_CHUNK = 64 * 1024
M_MMAP_THRESHOLD = -3  # mallopt's parameter number (glibc malloc.h)
_MMAP_THRESHOLD_BYTES = 128 * 1024
# How often a blocked accept() looks up to see whether its listener was closed.
ACCEPT_POLL_S = 0.2
# How long close() waits for the accept thread to release the port.
CLOSE_JOIN_S = 2.0


@functools.cache
def keep_large_buffers_returnable() -> bool:
    """Pin glibc's mmap threshold at its 128 KiB default, once per process (a no-op elsewhere).

    glibc raises the threshold each time a large mapped block is freed, up to 32 MiB; from then on buffers of a
    connection that abandoned a large frame come from per-thread heaps, whose pages stay with the process after the
    connection closed (measured: 10 connections x 12 MiB, three times, left about 100-150 MiB resident with every
    buffer freed). With the threshold pinned, such buffers are mappings of their own and go back to the system when
    freed (HARD-8). Java's heap has the same question answered by its garbage collector.

    Returns:
        Whether the threshold was set.
    """
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(M_MMAP_THRESHOLD, _MMAP_THRESHOLD_BYTES))
    except (OSError, AttributeError):
        return False


def _sockaddr_to_address(sockaddr) -> str:
    return join_address(sockaddr[0], sockaddr[1])


class TcpConnection:
    """One TCP connection; its reader thread reports data and the close to ``handler``."""

    def __init__(self, sock: socket.socket, handler: ConnectionHandler, network: TcpNetwork):
        self._sock = sock
        self._handler = handler
        self._network = network
        self.local_address = _sockaddr_to_address(sock.getsockname())
        self.remote_address = _sockaddr_to_address(sock.getpeername())
        self._send_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._open = True
        self._finished = False
        self._reader: threading.Thread | None = None

    @property
    def is_open(self) -> bool:
        """Whether neither side has closed it yet (as far as this end knows)."""
        return self._open

    def send(self, data: bytes) -> None:
        """Write all of ``data`` (blocking while the socket buffer is full); thread-safe.

        Raises:
            NetworkClosedError: the connection is closed or the write failed (the connection is then closed).
        """
        if not self._open:
            raise NetworkClosedError(f"connection {self.local_address} -> {self.remote_address} is closed")
        with self._send_lock:
            try:
                self._sock.sendall(data)
            except OSError as exc:
                self.close()
                raise NetworkClosedError(
                    f"send to {self.remote_address} failed: {exc.__class__.__name__}: {exc}"
                ) from exc

    def close(self) -> None:
        """Shut the socket down; the reader thread then closes it and reports ``on_close`` (once)."""
        with self._state_lock:
            if not self._open:
                return
            self._open = False
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        if self._reader is None:
            self._finish()

    def start_reader(self) -> None:
        """Start the thread that reads and reports (after the owner knows the connection)."""
        self._reader = threading.Thread(target=self._read_loop, name=f"tcp-reader-{self.remote_address}", daemon=True)
        self._reader.start()

    def _read_loop(self) -> None:
        try:
            while True:
                try:
                    data = self._sock.recv(READ_CHUNK)
                except OSError:
                    break  # reset by the peer, or shut down by close()
                if not data:
                    break  # orderly close
                try:
                    self._handler.on_data(self, data)
                except Exception:  # a handler bug must not leave a half-dead connection behind
                    traceback.print_exc()
                    break
        finally:
            self._finish()

    def _finish(self) -> None:
        with self._state_lock:
            self._open = False
            if self._finished:
                return
            self._finished = True
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)  # fails a sendall blocked on a full buffer
        with self._send_lock:  # no send is using the descriptor while it is closed
            self._sock.close()
        self._network._forget(self)
        try:
            self._handler.on_close(self)
        except Exception:  # the close already happened; a failing handler cannot undo it
            traceback.print_exc()

    def __repr__(self) -> str:
        state = "open" if self._open else "closed"
        return f"TcpConnection({self.local_address} -> {self.remote_address}, {state})"


class TcpListener:
    """A listening socket and its accept thread."""

    def __init__(self, sock: socket.socket, handler: ListenerHandler, network: TcpNetwork):
        self._sock = sock
        self._handler = handler
        self._network = network
        self.address = _sockaddr_to_address(sock.getsockname())
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._accept_loop, name=f"tcp-accept-{self.address}", daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        """The bound port (the real one when 0 was asked)."""
        return split_address(self.address)[1]

    def _accept_loop(self) -> None:
        try:
            while not self._closed.is_set():
                try:
                    conn_sock, _ = self._sock.accept()
                except TimeoutError:
                    continue
                except OSError:
                    if self._closed.is_set():
                        break
                    time.sleep(ACCEPT_POLL_S)  # e.g. out of descriptors: try again later, as Netty does
                    continue
                self._serve(conn_sock)
        finally:
            self._sock.close()

    def _serve(self, conn_sock: socket.socket) -> None:
        try:
            _configure(conn_sock)
            conn = TcpConnection(conn_sock, self._handler, self._network)
        except OSError:
            conn_sock.close()  # the peer went away between accept and getpeername
            return
        self._network._remember(conn)
        try:
            self._handler.on_accept(conn)
        except Exception:
            traceback.print_exc()
            conn.close()
        conn.start_reader()

    def close(self) -> None:
        """Stop accepting and release the port (waits briefly for the accept thread)."""
        if self._closed.is_set():
            return
        self._closed.set()
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)  # wakes a blocked accept() at once on Linux
        self._network._forget(self)
        if threading.current_thread() is not self._thread:
            self._thread.join(CLOSE_JOIN_S)

    def __repr__(self) -> str:
        return f"TcpListener({self.address})"


def _configure(sock: socket.socket) -> None:
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 0)


class TcpNetwork:
    """The threaded runtime's network: real sockets, callbacks on per-socket threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: set[object] = set()

    def listen(self, address: str, handler: ListenerHandler, *, backlog: int = 1024) -> TcpListener:
        """Bind and listen on ``"host:port"`` with ``SO_REUSEADDR``; accepted connections go to ``handler``.

        Raises:
            NetworkError: the address cannot be resolved or bound.
        """
        keep_large_buffers_returnable()  # a server process receives whatever its peers send
        host, port = split_address(address)
        try:
            family, kind, proto, _, sockaddr = socket.getaddrinfo(
                host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
            )[0]
            sock = socket.socket(family, kind, proto)
        except OSError as exc:
            raise NetworkError(f"cannot listen on {address}: {exc}") from exc
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(sockaddr)
            sock.listen(backlog)
            sock.settimeout(ACCEPT_POLL_S)
        except OSError as exc:
            sock.close()
            raise NetworkError(f"cannot listen on {address}: {exc}") from exc
        listener = TcpListener(sock, handler, self)
        self._remember(listener)
        return listener

    def connect(self, address: str, handler: ConnectionHandler, *, timeout_ms: int = 3000) -> TcpConnection:
        """Connect to ``"host:port"`` within ``timeout_ms``; the connection's reader thread reports to ``handler``.

        Raises:
            NetworkConnectError: refused, unresolvable, unreachable or timed out.
        """
        try:
            host, port = split_address(address)
            sock = socket.create_connection((host, port), timeout=max(1, timeout_ms) / 1000)
        except (OSError, ValueError) as exc:
            raise NetworkConnectError(f"connect to {address} failed: {exc.__class__.__name__}: {exc}") from exc
        try:
            _configure(sock)
            conn = TcpConnection(sock, handler, self)
        except OSError as exc:
            sock.close()
            raise NetworkConnectError(f"connect to {address} failed: {exc}") from exc
        self._remember(conn)
        conn.start_reader()
        return conn

    def close(self) -> None:
        """Close every listener and connection this network still has open (for tests and shutdown)."""
        with self._lock:
            items = list(self._open)
        for item in items:
            item.close()  # type: ignore[attr-defined]

    def _remember(self, item: object) -> None:
        with self._lock:
            self._open.add(item)

    def _forget(self, item: object) -> None:
        with self._lock:
            self._open.discard(item)

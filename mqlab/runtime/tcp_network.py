"""Real TCP for the threaded runtime: a few I/O threads own every socket, as Netty's event loops do.

Java: none (stands in for Netty's NIO transport: ``NioEventLoopGroup``, ``NioSocketChannel`` and its
``ChannelOutboundBuffer``). Every connection belongs to one ``EventLoop`` of a small process-wide group
(``IO_THREADS`` threads, like a Netty worker group): that thread selects on the socket, reads it and hands each chunk
to the handler (``on_data``), writes what is buffered when the socket can take more, and reports the close
(``on_close``). So a thread that serves many connections never waits on one peer's socket:

* ``send`` never blocks the caller: it writes what the kernel takes at once and buffers the rest for the I/O thread
  (frames from different threads never interleave, a per-connection lock orders them).
* A connection whose buffer holds more than the high water mark is not writable; an **accepted** one is then not read
  until the buffer falls to the low water mark, so a peer that pipelines requests and never reads its answers cannot
  make the server buffer without bound. Above ``close_above`` the connection is closed with one log line naming the
  peer and the buffered byte count (``WriteBufferWaterMark``).
* A listener has one accept thread; a failure while taking one connection (out of descriptors, out of memory, a
  handler that raises) is logged, that connection is dropped, and accepting goes on.

Handlers therefore run on an I/O thread and must not wait for anything that comes over the network: the remoting
layer hands requests and callbacks to executors, as Netty's pipeline does (see the remoting-transport spec page).

Options follow ``NettyRemotingServer#start`` and ``NettyRemotingClient#start``: ``SO_REUSEADDR`` on listeners,
``TCP_NODELAY`` on every connection, keep-alive off. IPv4 and IPv6 both work (``getaddrinfo`` picks the family).

Closing is idempotent and always reported once: ``close()`` marks the connection closed and hands the rest to its I/O
thread, which writes what the kernel takes of the buffer at once, closes the socket and calls ``on_close``. A peer's
close and a reset (``ECONNRESET``) end the same way.
"""

from __future__ import annotations

import collections
import contextlib
import ctypes
import ctypes.util
import functools
import itertools
import selectors
import socket
import threading
import time
from collections.abc import Callable

from mqlab.common.constant.logger_name import REMOTING_LOGGER_NAME, get_logger
from mqlab.runtime.network import (
    STREAM_WATER_MARK,
    ConnectionHandler,
    ListenerHandler,
    NetworkClosedError,
    NetworkConnectError,
    NetworkError,
    WriteBufferWaterMark,
    join_address,
    split_address,
)

LOG = get_logger(REMOTING_LOGGER_NAME)

# I/O threads of the process-wide group (NettyServerConfig#serverSelectorThreads is 3 in 4.9.3).
IO_THREADS = 3
# Bytes asked of recv() at a time; a 16 MiB frame arrives as many chunks, which the frame decoder joins. Kept under
# glibc's mmap threshold (128 KiB, see keep_large_buffers_returnable) so the buffers recv() makes come from the heap.
READ_CHUNK = 64 * 1024
M_MMAP_THRESHOLD = -3  # mallopt's parameter number (glibc malloc.h)
_MMAP_THRESHOLD_BYTES = 128 * 1024
# How often a blocked accept() looks up to see whether its listener was closed, and the pause after a failed accept.
ACCEPT_POLL_S = 0.2
# How long close() waits for the accept thread to release the port.
CLOSE_JOIN_S = 2.0

_current_loop = threading.local()


def on_io_thread() -> bool:
    """Whether the calling thread is an I/O thread (which must never wait on a peer)."""
    return getattr(_current_loop, "loop", None) is not None


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


class EventLoop:
    """One I/O thread: a selector over its connections' sockets, and tasks handed to it by other threads.

    Java: none (Netty's ``NioEventLoop``). Only this thread touches its selector; other threads ask through
    ``call_soon``, which wakes the select with a byte on a socket pair.

    Raises:
        NetworkError: the thread or its wake-up sockets cannot be made (e.g. the process may start no more threads).
    """

    def __init__(self, name: str):
        self.name = name
        self.selector = selectors.DefaultSelector()
        self._tasks: collections.deque[Callable[[], None]] = collections.deque()
        self._lock = threading.Lock()
        self._woken = False
        try:
            self._wake_r, self._wake_w = socket.socketpair()
            self._wake_r.setblocking(False)
            self._wake_w.setblocking(False)
            self.selector.register(self._wake_r, selectors.EVENT_READ, None)
            self._thread = threading.Thread(target=self._run, name=name, daemon=True)
            self._thread.start()
        except (OSError, RuntimeError) as exc:
            self.selector.close()
            raise NetworkError(f"cannot start I/O thread {name}: {exc}") from exc

    def in_loop(self) -> bool:
        """Whether the caller is this loop's thread."""
        return threading.current_thread() is self._thread

    def call_soon(self, task: Callable[[], None]) -> None:
        """Run ``task`` on this loop's thread, after the tasks handed over before it."""
        with self._lock:
            self._tasks.append(task)
            if self._woken:
                return
            self._woken = True
        with contextlib.suppress(BlockingIOError):  # full: a wake-up is already pending
            self._wake_w.send(b"\0")

    def _run(self) -> None:
        _current_loop.loop = self
        while True:
            try:
                self._run_once()
            except Exception:  # e.g. select() itself failing: log, breathe, go on serving
                LOG.exception("I/O thread %s: unexpected error, going on", self.name)
                time.sleep(ACCEPT_POLL_S)

    def _run_once(self) -> None:
        for key, mask in self.selector.select():
            if key.data is None:
                with contextlib.suppress(BlockingIOError):
                    while self._wake_r.recv(4096):
                        pass
                continue
            try:
                key.data(mask)
            except Exception:  # one connection's failure must not skip the others' events or the tasks
                LOG.exception("I/O thread %s: handling %s failed, going on", self.name, key.fileobj)
        with self._lock:
            tasks = list(self._tasks)
            self._tasks.clear()
            self._woken = False
        for task in tasks:
            try:
                task()
            except Exception:
                LOG.exception("I/O thread %s: a task failed, going on", self.name)


class EventLoopGroup:
    """A fixed number of ``EventLoop`` threads, started when first needed; connections are spread round-robin.

    Java: none (Netty's ``NioEventLoopGroup``).
    """

    def __init__(self, size: int = IO_THREADS, name: str = "tcp-io"):
        if size < 1:
            raise ValueError(f"an event loop group needs at least one thread, got {size}")
        self.size = size
        self.name = name
        self._loops: list[EventLoop] = []
        self._next = itertools.count()
        self._lock = threading.Lock()

    def next(self) -> EventLoop:
        """The loop for a new connection or listener.

        Raises:
            NetworkError: a loop that was needed could not be started.
        """
        index = next(self._next) % self.size
        with self._lock:
            while len(self._loops) <= index:
                self._loops.append(EventLoop(f"{self.name}-{len(self._loops)}"))
            return self._loops[index]


_SHARED_GROUP: EventLoopGroup | None = None
_SHARED_LOCK = threading.Lock()


def shared_group() -> EventLoopGroup:
    """The process-wide I/O threads every ``TcpNetwork`` uses unless given its own group."""
    global _SHARED_GROUP
    with _SHARED_LOCK:
        if _SHARED_GROUP is None:
            _SHARED_GROUP = EventLoopGroup()
        return _SHARED_GROUP


class TcpConnection:
    """One TCP connection, owned by one I/O thread; ``send`` buffers what the socket cannot take at once.

    Args:
        sock: the connected socket (made non-blocking here).
        handler: told of data and the close, on the I/O thread.
        network: the network that keeps track of open connections.
        loop: the I/O thread that owns the socket.
        water_mark: bounds of the outbound buffer.
        accepted: whether a listener accepted it (only those stop being read above the high water mark).
    """

    def __init__(
        self,
        sock: socket.socket,
        handler: ConnectionHandler,
        network: TcpNetwork,
        loop: EventLoop,
        water_mark: WriteBufferWaterMark,
        *,
        accepted: bool,
    ):
        self.local_address = _sockaddr_to_address(sock.getsockname())
        self.remote_address = _sockaddr_to_address(sock.getpeername())
        sock.setblocking(False)
        self._sock = sock
        self._handler = handler
        self._network = network
        self._loop = loop
        self.water_mark = water_mark
        self._pauses_reading = accepted
        self._lock = threading.Lock()
        self._writability = threading.Condition(self._lock)
        self._outbound: collections.deque[memoryview] = collections.deque()
        self.pending_bytes = 0
        self._writable = True
        self._open = True
        self._finished = False
        self._events = 0  # what the selector watches for now (loop thread only)

    @property
    def is_open(self) -> bool:
        """Whether neither side has closed it yet (as far as this end knows)."""
        return self._open

    @property
    def is_writable(self) -> bool:
        """Whether the buffer has not passed the high water mark since it last fell to the low one (Netty's name)."""
        return self._writable

    @property
    def is_reading(self) -> bool:
        """Whether the I/O thread reads this connection now (false while an accepted one is not writable)."""
        return self._open and not (self._pauses_reading and not self._writable)

    def send(self, data: bytes) -> None:
        """Queue all of ``data`` for the peer, in order; thread-safe, and it never waits on the socket.

        What the kernel takes at once is written here; the rest waits in the connection's buffer for its I/O thread.
        Only with ``water_mark.senders_wait`` does a thread that is not an I/O thread wait while the connection is
        not writable.

        Raises:
            NetworkClosedError: the connection is closed, the write failed, or the buffer passed
                ``water_mark.close_above`` (the connection is then closed).
        """
        if not isinstance(data, bytes):
            data = bytes(data)
        failure: OSError | None = None
        overflow = 0
        newly_pending = False
        with self._lock:
            if not self._open:
                raise NetworkClosedError(f"connection {self.local_address} -> {self.remote_address} is closed")
            sent = 0
            if not self._outbound:
                try:
                    sent = self._sock.send(data)
                except (BlockingIOError, InterruptedError):
                    sent = 0
                except OSError as exc:
                    failure = exc
            if failure is None and sent < len(data):
                newly_pending = not self._outbound
                self._outbound.append(memoryview(data)[sent:])
                self.pending_bytes += len(data) - sent
                if self._writable and self.pending_bytes > self.water_mark.high:
                    self._writable = False
                    newly_pending = True  # the selector must stop reading an accepted connection
                limit = self.water_mark.close_above
                if limit and self.pending_bytes > limit:
                    overflow = self.pending_bytes
        if failure is not None:
            self.close()
            raise NetworkClosedError(
                f"send to {self.remote_address} failed: {failure.__class__.__name__}: {failure}"
            ) from failure
        if overflow:
            self._close_for_overflow(overflow)
        if newly_pending:
            self._call_on_loop(self._update_interest)
        if self.water_mark.senders_wait and not on_io_thread():
            with self._lock:
                self._writability.wait_for(lambda: self._writable or not self._open)
                if not self._open:
                    raise NetworkClosedError(f"connection to {self.remote_address} closed while data waited to go")

    def _close_for_overflow(self, buffered: int) -> None:
        LOG.warning(
            "closing connection %s -> %s: %d bytes wait to be written, above the limit of %d bytes "
            "(the peer does not read what it asked for)",
            self.local_address,
            self.remote_address,
            buffered,
            self.water_mark.close_above,
        )
        self.close()
        raise NetworkClosedError(
            f"connection to {self.remote_address} closed: {buffered} bytes buffered, "
            f"above the limit of {self.water_mark.close_above}"
        )

    def close(self) -> None:
        """Mark it closed; its I/O thread then writes what it can, closes the socket and reports ``on_close`` once."""
        with self._lock:
            if not self._open:
                return
            self._open = False
            self._writability.notify_all()
        self._loop.call_soon(self._finish)  # also when called on the loop: on_close comes after the current callback

    # -- on the I/O thread ---------------------------------------------------------------------------------------
    def _call_on_loop(self, task: Callable[[], None]) -> None:
        if self._loop.in_loop():
            task()
        else:
            self._loop.call_soon(task)

    def _start(self, on_accept: Callable[[TcpConnection], None] | None) -> None:
        """Announce an accepted connection, then start reading it (on the I/O thread, before any of its data)."""
        if on_accept is not None:
            try:
                on_accept(self)
            except Exception:
                LOG.exception("dropping connection from %s: its accept handler failed", self.remote_address)
                self.close()
                return
        self._update_interest()

    def _update_interest(self) -> None:
        if self._finished:
            return
        with self._lock:
            wanted = 0
            if self._open:
                if self.is_reading:
                    wanted |= selectors.EVENT_READ
                if self._outbound:
                    wanted |= selectors.EVENT_WRITE
        if wanted == self._events:
            return
        selector = self._loop.selector
        try:
            if self._events == 0:
                selector.register(self._sock, wanted, self._on_ready)
            elif wanted == 0:
                selector.unregister(self._sock)
            else:
                selector.modify(self._sock, wanted, self._on_ready)
        except (OSError, ValueError, KeyError) as exc:
            LOG.warning(
                "connection %s -> %s: cannot watch its socket (%s); closing",
                self.local_address,
                self.remote_address,
                exc,
            )
            self._events = 0
            self._finish()
            return
        self._events = wanted

    def _on_ready(self, mask: int) -> None:
        if mask & selectors.EVENT_WRITE:
            self._flush()
        if mask & selectors.EVENT_READ and self._open and not self._finished:
            self._read()

    def _read(self) -> None:
        try:
            data = self._sock.recv(READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._finish()  # reset by the peer
            return
        if not data:
            self._finish()  # orderly close
            return
        try:
            self._handler.on_data(self, data)
        except Exception:  # a handler bug must not leave a half-dead connection behind
            LOG.exception("closing connection from %s: its data handler failed", self.remote_address)
            self._finish()

    def _write_buffered(self) -> OSError | None:
        """Write what the socket takes now; the lock is held. Returns the error that ended the connection, if any."""
        while self._outbound:
            head = self._outbound[0]
            try:
                sent = self._sock.send(head)
            except (BlockingIOError, InterruptedError):
                return None
            except OSError as exc:
                return exc
            self.pending_bytes -= sent
            if sent < len(head):
                self._outbound[0] = head[sent:]
                return None
            self._outbound.popleft()
        return None

    def _flush(self) -> None:
        with self._lock:
            failure = self._write_buffered()
            if not self._writable and self.pending_bytes <= self.water_mark.low:
                self._writable = True
                self._writability.notify_all()
        if failure is not None:
            self._finish()
            return
        self._update_interest()

    def _finish(self) -> None:
        with self._lock:
            self._open = False
            if self._finished:
                return
            self._finished = True
            self._write_buffered()  # what the kernel takes now still reaches the peer before the close
            self._outbound.clear()
            self.pending_bytes = 0
            self._writability.notify_all()
        if self._events:
            with contextlib.suppress(KeyError, ValueError, OSError):
                self._loop.selector.unregister(self._sock)
            self._events = 0
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._network._forget(self)
        try:
            self._handler.on_close(self)
        except Exception:  # the close already happened; a failing handler cannot undo it
            LOG.exception("the close handler of connection %s -> %s failed", self.local_address, self.remote_address)

    def __repr__(self) -> str:
        state = "open" if self._open else "closed"
        return f"TcpConnection({self.local_address} -> {self.remote_address}, {state})"


class TcpListener:
    """A listening socket and its accept thread (one per listener, none per connection)."""

    def __init__(
        self, sock: socket.socket, handler: ListenerHandler, network: TcpNetwork, water_mark: WriteBufferWaterMark
    ):
        self._sock = sock
        self._handler = handler
        self._network = network
        self.water_mark = water_mark
        self.address = _sockaddr_to_address(sock.getsockname())
        self.accept_failures = 0  # failed accepts and dropped connections since the start (for tests and logs)
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._accept_loop, name=f"tcp-accept-{self.address}", daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        """The bound port (the real one when 0 was asked)."""
        return split_address(self.address)[1]

    def _accept_loop(self) -> None:
        failing = 0
        try:
            while not self._closed.is_set():
                try:
                    conn_sock, _ = self._sock.accept()
                except TimeoutError:
                    continue
                except Exception as exc:  # EMFILE, ENOBUFS, MemoryError...: wait a little and go on, as Netty does
                    if self._closed.is_set():
                        break
                    failing += 1
                    self.accept_failures += 1
                    if failing == 1:
                        LOG.warning("accept on %s failed: %s: %s; retrying", self.address, type(exc).__name__, exc)
                    time.sleep(ACCEPT_POLL_S)
                    continue
                if failing:
                    LOG.warning("accepting on %s again after %d failed attempts", self.address, failing)
                    failing = 0
                self._serve(conn_sock)
        finally:
            self._sock.close()

    def _serve(self, conn_sock: socket.socket) -> None:
        """Hand one accepted socket to an I/O thread; any failure drops this connection only."""
        try:
            _configure(conn_sock)
            loop = self._network.group.next()
            conn = TcpConnection(conn_sock, self._handler, self._network, loop, self.water_mark, accepted=True)
            self._network._remember(conn)
            loop.call_soon(functools.partial(conn._start, self._handler.on_accept))
        except Exception as exc:  # the peer left before getpeername, no memory, no I/O thread...
            self.accept_failures += 1
            LOG.warning("dropping a connection accepted on %s: %s: %s", self.address, type(exc).__name__, exc)
            with contextlib.suppress(OSError):
                conn_sock.close()

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
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 0)


class TcpNetwork:
    """The threaded runtime's network: real sockets, callbacks on a few shared I/O threads.

    Args:
        group: the I/O threads (default: the process-wide ``shared_group()``).
    """

    def __init__(self, group: EventLoopGroup | None = None) -> None:
        self._group = group
        self._lock = threading.Lock()
        self._open: set[object] = set()

    @property
    def group(self) -> EventLoopGroup:
        """The I/O threads of this network's connections."""
        if self._group is None:
            self._group = shared_group()
        return self._group

    def listen(
        self,
        address: str,
        handler: ListenerHandler,
        *,
        backlog: int = 1024,
        water_mark: WriteBufferWaterMark = STREAM_WATER_MARK,
    ) -> TcpListener:
        """Bind and listen on ``"host:port"`` with ``SO_REUSEADDR``; accepted connections go to ``handler``.

        Raises:
            NetworkError: the address cannot be resolved or bound, or the accept thread cannot start.
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
            listener = TcpListener(sock, handler, self, water_mark)
        except (OSError, RuntimeError) as exc:
            sock.close()
            raise NetworkError(f"cannot listen on {address}: {exc}") from exc
        self._remember(listener)
        return listener

    def connect(
        self,
        address: str,
        handler: ConnectionHandler,
        *,
        timeout_ms: int = 3000,
        water_mark: WriteBufferWaterMark = STREAM_WATER_MARK,
    ) -> TcpConnection:
        """Connect to ``"host:port"`` within ``timeout_ms`` (the caller waits); an I/O thread then reads it.

        Raises:
            NetworkConnectError: refused, unresolvable, unreachable or timed out, or no I/O thread can start.
        """
        try:
            host, port = split_address(address)
            sock = socket.create_connection((host, port), timeout=max(1, timeout_ms) / 1000)
        except (OSError, ValueError) as exc:
            raise NetworkConnectError(f"connect to {address} failed: {exc.__class__.__name__}: {exc}") from exc
        try:
            _configure(sock)
            loop = self.group.next()
            conn = TcpConnection(sock, handler, self, loop, water_mark, accepted=False)
        except (OSError, NetworkError) as exc:
            sock.close()
            raise NetworkConnectError(f"connect to {address} failed: {exc}") from exc
        self._remember(conn)
        loop.call_soon(functools.partial(conn._start, None))
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

"""The calling side of remoting: producers, consumers and brokers send requests with it.

Java: org.apache.rocketmq.remoting.netty.NettyRemotingClient (rocketmq-all-4.9.3)
Promoted inner class: ChannelWrapper (``channel_wrapper``)
Left out: TLS, Netty's worker thread group (the network's I/O threads stand in), socket buffer sizes.

Each connection gets the configured write-buffer water marks (``WriteBufferWaterMark.from_settings``); a client's
connections are always read, whatever their buffer holds (NET-20).

One connection per address, made on first use and kept in ``channel_tables`` while it works. With ``addr=None`` a
request goes to a name server: the one chosen before while its connection works, otherwise the next of the list
round-robin (from a random start), trying each once before giving up (``RemotingConnectException``).
A sync request that times out closes its connection (``clientCloseSocketIfTimeout``, default true), so the next
request connects afresh.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from mqlab.remoting.common.remoting_helper import parse_channel_remote_addr
from mqlab.remoting.exception.remoting_connect_exception import RemotingConnectException
from mqlab.remoting.exception.remoting_send_request_exception import RemotingSendRequestException
from mqlab.remoting.exception.remoting_timeout_exception import RemotingTimeoutException
from mqlab.remoting.exception.remoting_too_much_request_exception import RemotingTooMuchRequestException
from mqlab.remoting.netty.channel_wrapper import ChannelWrapper
from mqlab.remoting.netty.netty_event_type import NettyEventType
from mqlab.remoting.netty.netty_remoting_abstract import NettyRemotingAbstract, ProcessorPair
from mqlab.runtime.network import NetworkError, WriteBufferWaterMark

if TYPE_CHECKING:
    from mqlab.remoting.channel_event_listener import ChannelEventListener
    from mqlab.remoting.netty.netty_client_config import NettyClientConfig
    from mqlab.remoting.netty.netty_request_processor import NettyRequestProcessor
    from mqlab.remoting.protocol.remoting_command import RemotingCommand
    from mqlab.runtime.network import Connection
    from mqlab.runtime.runtime import Runtime
    from mqlab.runtime.scheduler import Executor, TimerHandle

# Java: NettyRemotingClient.LOCK_TIMEOUT_MILLIS (waits for the channel-table and name-server locks)
LOCK_TIMEOUT_MILLIS = 3000
DEFAULT_PUBLIC_THREADS = 4
SCAN_INITIAL_DELAY_MS = 3000
SCAN_PERIOD_MS = 1000


def init_value_index(rng: Any) -> int:
    """Where the name-server round-robin starts: a random number in 0..998. Java: NettyRemotingClient#initValueIndex."""
    return rng.randrange(999)


def _java_list(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


class NettyRemotingClient(NettyRemotingAbstract):
    """A remoting client on the runtime's network.

    Args:
        netty_client_config: connect timeout, permits, idle time, close-on-timeout.
        runtime: clock, scheduler, network, trace, random (the round-robin start and the shuffle of name servers).
        channel_event_listener: told of connects, closes, idle and failed connections.
    """

    def __init__(
        self,
        netty_client_config: NettyClientConfig,
        runtime: Runtime,
        channel_event_listener: ChannelEventListener | None = None,
    ):
        super().__init__(
            runtime,
            netty_client_config.client_oneway_semaphore_value,
            netty_client_config.client_async_semaphore_value,
            channel_event_listener,
        )
        self.netty_client_config = netty_client_config
        self.channel_max_idle_time_seconds = netty_client_config.client_channel_max_idle_time_seconds
        self.channel_tables: dict[str, ChannelWrapper] = {}
        # Re-entrant: in a simulation a nested event on the same thread may need the table while it is held.
        self._lock_channel_tables = threading.RLock()
        self.namesrv_addr_list: list[str] | None = None
        self.namesrv_addr_choosed: str | None = None
        self.namesrv_index = init_value_index(runtime.random)
        self._namesrv_channel_lock = threading.RLock()
        threads = netty_client_config.client_callback_executor_threads
        self.public_executor: Executor = runtime.scheduler.new_executor(
            "NettyClientPublicExecutor", threads if threads > 0 else DEFAULT_PUBLIC_THREADS
        )
        self.callback_executor: Executor | None = None
        self._timer: TimerHandle | None = None

    # -- life cycle ------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the response-table scan and (with a listener) the event executor. Java: NettyRemotingClient#start.

        Raises:
            ValueError: the write-buffer settings contradict each other (checked here, before any connection).
        """
        self.write_buffer_water_mark()
        self._timer = self.runtime.scheduler.schedule_at_fixed_rate(
            SCAN_INITIAL_DELAY_MS, SCAN_PERIOD_MS, self.scan_response_table, name="ClientHouseKeepingService"
        )
        if self.channel_event_listener is not None:
            self.netty_event_executor.start()
        self._trace("start")

    def write_buffer_water_mark(self) -> WriteBufferWaterMark:
        """The bounds of each connection's outbound buffer, from the configuration.

        Java: NettyRemotingClient#start (``WRITE_BUFFER_WATER_MARK`` when both marks are positive); the hard limit is
        mqlab's.

        Raises:
            ValueError: the low water mark is above the high one, or the hard limit is below the high one.
        """
        config = self.netty_client_config
        return WriteBufferWaterMark.from_settings(
            config.write_buffer_low_water_mark, config.write_buffer_high_water_mark, config.write_buffer_hard_limit
        )

    def shutdown(self) -> None:
        """Close every connection and stop the scan and the executors. Java: NettyRemotingClient#shutdown."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        with self._lock_channel_tables:
            wrappers = list(self.channel_tables.items())
        for addr, wrapper in wrappers:
            self.close_channel(wrapper.get_channel(), addr)
        with self._lock_channel_tables:
            self.channel_tables.clear()
        self.netty_event_executor.shutdown()
        self.public_executor.shutdown()
        self._trace("shutdown")

    # -- connections -----------------------------------------------------------------------------------------
    def _acquire(self, lock: threading.RLock) -> bool:
        return lock.acquire(timeout=LOCK_TIMEOUT_MILLIS / 1000)

    def close_channel(self, channel: Connection | None, addr: str | None = None) -> None:
        """Close a connection and drop it from the table.

        Java: NettyRemotingClient#closeChannel(String, Channel) when ``addr`` is given (the entry is removed only
        if it still holds this channel; the channel is closed in any case) and NettyRemotingClient#closeChannel(Channel)
        without it (the entry is found by channel; only a channel found in the table is closed).
        """
        if channel is None:
            return
        if not self._acquire(self._lock_channel_tables):
            self._trace("lock_timeout", what="closeChannel")
            return
        try:
            if addr is not None:
                previous = self.channel_tables.get(addr)
                if previous is not None and previous.get_channel() is channel:
                    del self.channel_tables[addr]
                found = True
            else:
                key = next((k for k, w in self.channel_tables.items() if w.get_channel() is channel), None)
                if key is not None:
                    del self.channel_tables[key]
                found = key is not None
        finally:
            self._lock_channel_tables.release()
        if found:
            channel.close()

    def _get_and_create_channel(self, addr: str | None) -> Connection | None:
        """Java: NettyRemotingClient#getAndCreateChannel."""
        if addr is None:
            return self._get_and_create_nameserver_channel()
        wrapper = self.channel_tables.get(addr)
        if wrapper is not None and wrapper.is_ok():
            return wrapper.get_channel()
        return self._create_channel(addr)

    def _usable(self, addr: str | None) -> Connection | None:
        wrapper = self.channel_tables.get(addr) if addr is not None else None
        return wrapper.get_channel() if wrapper is not None and wrapper.is_ok() else None

    def _get_and_create_nameserver_channel(self) -> Connection | None:
        """Keep the chosen name server while its connection works; else try the others round-robin.

        Java: NettyRemotingClient#getAndCreateNameserverChannel

        Raises:
            RemotingConnectException: every name server of the list failed to connect.
        """
        channel = self._usable(self.namesrv_addr_choosed)
        if channel is not None:
            return channel
        addr_list = self.namesrv_addr_list
        if not self._acquire(self._namesrv_channel_lock):
            self._trace("lock_timeout", what="getAndCreateNameserverChannel")
            return None
        try:
            channel = self._usable(self.namesrv_addr_choosed)
            if channel is not None:
                return channel
            if not addr_list:
                return None
            for _ in range(len(addr_list)):
                self.namesrv_index += 1
                new_addr = addr_list[abs(self.namesrv_index) % len(addr_list)]
                self._trace("namesrv_chosen", old=self.namesrv_addr_choosed, new=new_addr, index=self.namesrv_index)
                self.namesrv_addr_choosed = new_addr
                channel = self._create_channel(new_addr)
                if channel is not None:
                    return channel
            raise RemotingConnectException(_java_list(addr_list))
        finally:
            self._namesrv_channel_lock.release()

    def _create_channel(self, addr: str) -> Connection | None:
        """Connect to ``addr`` (waiting at most ``connectTimeoutMillis``); ``None`` when that fails.

        Java: NettyRemotingClient#createChannel. Java starts the connect under the table lock and waits for it
        outside; mqlab's connect returns only when done, so it runs outside the lock and a connection that lost a
        race with another thread's is closed again.
        """
        channel = self._usable(addr)
        if channel is not None:
            return channel
        self._trace("connect", addr=addr)
        try:
            config = self.netty_client_config
            conn = self.runtime.network.connect(
                addr, self, timeout_ms=config.connect_timeout_millis, water_mark=self.write_buffer_water_mark()
            )
        except (NetworkError, ValueError) as exc:
            self._trace("connect_failed", addr=addr, error=str(exc))
            return None
        if not self._acquire(self._lock_channel_tables):
            conn.close()
            self._trace("lock_timeout", what="createChannel")
            return None
        try:
            winner = self._usable(addr)
            if winner is None:
                self.channel_tables[addr] = ChannelWrapper(conn)
        finally:
            self._lock_channel_tables.release()
        if winner is not None:
            conn.close()
            return winner
        self._context(conn)
        self._put_event_if_listening(NettyEventType.CONNECT, addr, conn)
        return conn if conn.is_open else None

    def update_name_server_address_list(self, addrs: list[str]) -> None:
        """Take a new list of name servers (shuffled) if it differs from the current one.

        Java: NettyRemotingClient#updateNameServerAddressList (the chosen one is kept if it is still listed)
        """
        old = self.namesrv_addr_list
        if not addrs:
            return
        update = old is None or len(addrs) != len(old) or any(a not in old for a in addrs)
        if not update:
            return
        shuffled = list(addrs)
        self.runtime.random.shuffle(shuffled)
        self._trace("namesrv_list", new=",".join(shuffled), old=",".join(old or []))
        self.namesrv_addr_list = shuffled
        if self.namesrv_addr_choosed not in shuffled:
            self.namesrv_addr_choosed = None

    def get_name_server_address_list(self) -> list[str] | None:
        """Java: NettyRemotingClient#getNameServerAddressList."""
        return self.namesrv_addr_list

    def is_channel_writable(self, addr: str) -> bool:
        """Java: NettyRemotingClient#isChannelWritable (always true here: no water marks)."""
        wrapper = self.channel_tables.get(addr)
        return wrapper.is_writable() if wrapper is not None and wrapper.is_ok() else True

    # -- requests --------------------------------------------------------------------------------------------
    def invoke_sync(self, addr: str | None, request: RemotingCommand, timeout_millis: int) -> RemotingCommand:
        """Send and wait; ``addr=None`` means a name server. Java: NettyRemotingClient#invokeSync.

        Raises:
            RemotingConnectException: no connection to ``addr``.
            RemotingSendRequestException: the request could not be written (the connection is closed).
            RemotingTimeoutException: no response in time (the connection is closed if so configured).
        """
        begin = self.runtime.now_ms()
        channel = self._get_and_create_channel(addr)
        if channel is None or not channel.is_open:
            self.close_channel(channel, addr)
            raise RemotingConnectException(addr if addr is not None else "null")
        try:
            self.do_before_rpc_hooks(addr, request)
            cost = self.runtime.now_ms() - begin
            if timeout_millis < cost:
                raise RemotingTimeoutException(f"invokeSync call the addr[{addr}] timeout")
            response = self.invoke_sync_impl(channel, request, timeout_millis - cost)
            self.do_after_rpc_hooks(parse_channel_remote_addr(channel), request, response)
            return response
        except RemotingSendRequestException:
            self.close_channel(channel, addr)
            raise
        except RemotingTimeoutException:
            if self.netty_client_config.client_close_socket_if_timeout:
                self.close_channel(channel, addr)
            raise

    def invoke_async(self, addr: str | None, request: RemotingCommand, timeout_millis: int, invoke_callback) -> None:
        """Send; ``invoke_callback`` gets the ``ResponseFuture`` once it is over. Java: NettyRemotingClient#invokeAsync.

        Raises:
            RemotingConnectException: no connection to ``addr``.
            RemotingTooMuchRequestException: connecting used up the timeout, or no async permit was free.
            RemotingTimeoutException: no async permit within the timeout.
        """
        begin = self.runtime.now_ms()
        channel = self._get_and_create_channel(addr)
        if channel is None or not channel.is_open:
            self.close_channel(channel, addr)
            raise RemotingConnectException(addr if addr is not None else "null")
        try:
            self.do_before_rpc_hooks(addr, request)
            cost = self.runtime.now_ms() - begin
            if timeout_millis < cost:
                raise RemotingTooMuchRequestException(f"invokeAsync call the addr[{addr}] timeout")
            self.invoke_async_impl(channel, request, timeout_millis - cost, invoke_callback)
        except RemotingSendRequestException:
            self.close_channel(channel, addr)
            raise

    def invoke_oneway(self, addr: str | None, request: RemotingCommand, timeout_millis: int) -> None:
        """Send without waiting for anything. Java: NettyRemotingClient#invokeOneway.

        Raises:
            RemotingConnectException: no connection to ``addr``.
            RemotingTooMuchRequestException / RemotingTimeoutException: no oneway permit.
        """
        channel = self._get_and_create_channel(addr)
        if channel is None or not channel.is_open:
            self.close_channel(channel, addr)
            raise RemotingConnectException(addr if addr is not None else "null")
        try:
            self.do_before_rpc_hooks(addr, request)
            self.invoke_oneway_impl(channel, request, timeout_millis)
        except RemotingSendRequestException:
            self.close_channel(channel, addr)
            raise

    # -- processors for server-initiated requests --------------------------------------------------------------
    def register_processor(
        self, request_code: int, processor: NettyRequestProcessor, executor: Executor | None = None
    ) -> None:
        """Handle requests the server sends (e.g. CHECK_TRANSACTION_STATE) on ``executor`` (default: the public one).

        Java: NettyRemotingClient#registerProcessor
        """
        self.processor_table[int(request_code)] = ProcessorPair(processor, executor or self.public_executor)

    def get_callback_executor(self) -> Executor | None:
        """The executor set with ``set_callback_executor``, else the public one. Java: #getCallbackExecutor."""
        return self.callback_executor if self.callback_executor is not None else self.public_executor

    def set_callback_executor(self, callback_executor: Executor) -> None:
        """Java: NettyRemotingClient#setCallbackExecutor."""
        self.callback_executor = callback_executor

    # -- the network's callbacks (Java: NettyConnectManageHandler) -----------------------------------------
    def on_close(self, conn: Connection) -> None:
        """A connection closed: drop it, fail its pending requests at once, tell the listener.

        Java: NettyConnectManageHandler#close. Java fails fast only when the client closes the channel itself
        (including after a read error such as a reset); after an orderly close by the peer its requests wait for
        their timeout. mqlab's network reports both alike, so mqlab fails fast after every close.
        """
        self._forget_context(conn)
        remote = parse_channel_remote_addr(conn)
        self.close_channel(conn)
        failed = self.fail_fast(conn)
        self._trace("close", remote=remote, failed_requests=failed)
        self._put_event_if_listening(NettyEventType.CLOSE, remote, conn)

    def on_channel_idle(self, channel: Connection) -> None:
        """Close a connection quiet for ``clientChannelMaxIdleTimeSeconds``. Java: #userEventTriggered (ALL_IDLE)."""
        self.close_channel(channel)
        self._put_event_if_listening(NettyEventType.IDLE, parse_channel_remote_addr(channel), channel)

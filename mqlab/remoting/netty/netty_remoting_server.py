"""The listening side of remoting: name servers and brokers answer requests with it.

Java: org.apache.rocketmq.remoting.netty.NettyRemotingServer (rocketmq-all-4.9.3)
Left out: TLS and its handshake handler, epoll, Netty's codec thread group (decoding happens on the connection's
I/O callback; processors still run on their executors), socket buffer sizes.

Every accepted connection gets the configured write-buffer water marks (``WriteBufferWaterMark.from_settings``):
above the high mark it is not read until its buffer falls to the low one, and above ``writeBufferHardLimit`` it is
closed (NET-20, NET-21).

``start()`` listens on ``listen_port`` of the runtime's network (0: any free port, see ``local_listen_port()``),
starts the event executor when there is a listener, and scans the response table every second after 3 s.
Each accepted connection gets its own decoder; requests are dispatched by ``NettyRemotingAbstract``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.remoting.common.remoting_helper import parse_channel_remote_addr
from mqlab.remoting.netty.netty_event_type import NettyEventType
from mqlab.remoting.netty.netty_remoting_abstract import NettyRemotingAbstract, ProcessorPair
from mqlab.runtime.network import WriteBufferWaterMark, join_address, split_address

if TYPE_CHECKING:
    from mqlab.remoting.channel_event_listener import ChannelEventListener
    from mqlab.remoting.netty.netty_request_processor import NettyRequestProcessor
    from mqlab.remoting.netty.netty_server_config import NettyServerConfig
    from mqlab.remoting.protocol.remoting_command import RemotingCommand
    from mqlab.runtime.network import Connection, Listener
    from mqlab.runtime.runtime import Runtime
    from mqlab.runtime.scheduler import Executor, TimerHandle

# Java: the public executor has 4 threads when serverCallbackExecutorThreads is 0 or less.
DEFAULT_PUBLIC_THREADS = 4
# Java: the "ServerHouseKeepingService" timer scans the response table after 3 s, then every second.
SCAN_INITIAL_DELAY_MS = 3000
SCAN_PERIOD_MS = 1000


class NettyRemotingServer(NettyRemotingAbstract):
    """A remoting server on the runtime's network.

    Args:
        netty_server_config: port, thread counts, permits, idle time.
        runtime: clock, scheduler, network, trace.
        channel_event_listener: told of connects, closes, idle and failed connections.
        listen_host: the address to bind; Java binds the wildcard address (``0.0.0.0``); tests bind loopback.
        answer_unhandled_requests: when a processor returns ``None`` for a request that is not oneway, answer
            REQUEST_CODE_NOT_SUPPORTED instead of nothing. 4.9.3 sends nothing (the caller waits for its timeout);
            mqlab's name server turns this on so an unknown request fails at once.
    """

    def __init__(
        self,
        netty_server_config: NettyServerConfig,
        runtime: Runtime,
        channel_event_listener: ChannelEventListener | None = None,
        *,
        listen_host: str = "0.0.0.0",
        answer_unhandled_requests: bool = False,
    ):
        super().__init__(
            runtime,
            netty_server_config.server_oneway_semaphore_value,
            netty_server_config.server_async_semaphore_value,
            channel_event_listener,
        )
        self.netty_server_config = netty_server_config
        self.listen_host = listen_host
        self.answer_unhandled_requests = answer_unhandled_requests
        self.channel_max_idle_time_seconds = netty_server_config.server_channel_max_idle_time_seconds
        threads = netty_server_config.server_callback_executor_threads
        self.public_executor: Executor = runtime.scheduler.new_executor(
            "NettyServerPublicExecutor", threads if threads > 0 else DEFAULT_PUBLIC_THREADS
        )
        self.port = 0
        self._listener: Listener | None = None
        self._timer: TimerHandle | None = None

    # -- life cycle ------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Listen, start the event executor (if anyone listens for events) and the response-table scan.

        Java: NettyRemotingServer#start

        Raises:
            NetworkError: the port cannot be bound.
        """
        address = join_address(self.listen_host, self.netty_server_config.listen_port)
        config = self.netty_server_config
        self._listener = self.runtime.network.listen(
            address, self, backlog=config.server_socket_backlog, water_mark=self.write_buffer_water_mark()
        )
        self.port = split_address(self._listener.address)[1]
        if self.channel_event_listener is not None:
            self.netty_event_executor.start()
        self._timer = self.runtime.scheduler.schedule_at_fixed_rate(
            SCAN_INITIAL_DELAY_MS, SCAN_PERIOD_MS, self.scan_response_table, name="ServerHouseKeepingService"
        )
        self._trace("start", address=self._listener.address)

    def write_buffer_water_mark(self) -> WriteBufferWaterMark:
        """The bounds of each accepted connection's outbound buffer, from the configuration.

        Java: NettyRemotingServer#start (``WRITE_BUFFER_WATER_MARK`` when both marks are positive); the hard limit is
        mqlab's.

        Raises:
            ValueError: the low water mark is above the high one, or the hard limit is below the high one.
        """
        config = self.netty_server_config
        return WriteBufferWaterMark.from_settings(
            config.write_buffer_low_water_mark, config.write_buffer_high_water_mark, config.write_buffer_hard_limit
        )

    def shutdown(self) -> None:
        """Stop the scan, stop listening, close every connection, stop the executors.

        Java: NettyRemotingServer#shutdown
        """
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._listener is not None:
            self._listener.close()
        for channel in self.channels():
            channel.close()
        self.netty_event_executor.shutdown()
        self.public_executor.shutdown()
        self._trace("shutdown", port=self.port)

    def local_listen_port(self) -> int:
        """The port actually listened on (the ephemeral one when 0 was configured). Java: #localListenPort."""
        return self.port

    # -- processors ------------------------------------------------------------------------------------------
    def register_processor(
        self, request_code: int, processor: NettyRequestProcessor, executor: Executor | None = None
    ) -> None:
        """Handle ``request_code`` with ``processor`` on ``executor`` (default: the public executor).

        Java: NettyRemotingServer#registerProcessor
        """
        self.processor_table[int(request_code)] = ProcessorPair(processor, executor or self.public_executor)

    def register_default_processor(self, processor: NettyRequestProcessor, executor: Executor | None = None) -> None:
        """Handle every code without its own processor. Java: NettyRemotingServer#registerDefaultProcessor.

        Java keeps the executor as given; mqlab runs the processor inline (on the connection's I/O callback) when
        ``executor`` is ``None``, where Java would fail.
        """
        self.default_request_processor = ProcessorPair(processor, executor)

    def get_processor_pair(self, request_code: int) -> ProcessorPair | None:
        """Java: NettyRemotingServer#getProcessorPair."""
        return self.processor_table.get(int(request_code))

    def get_callback_executor(self) -> Executor | None:
        """Async callbacks of server-initiated requests run on the public executor. Java: #getCallbackExecutor."""
        return self.public_executor

    # -- server-initiated requests ---------------------------------------------------------------------------
    def invoke_sync(self, channel: Connection, request: RemotingCommand, timeout_millis: int) -> RemotingCommand:
        """Ask a connected client and wait (e.g. the broker's CHECK_TRANSACTION_STATE). Java: #invokeSync."""
        return self.invoke_sync_impl(channel, request, timeout_millis)

    def invoke_async(self, channel: Connection, request: RemotingCommand, timeout_millis: int, invoke_callback) -> None:
        """Ask a connected client; the callback gets the outcome. Java: NettyRemotingServer#invokeAsync."""
        self.invoke_async_impl(channel, request, timeout_millis, invoke_callback)

    def invoke_oneway(self, channel: Connection, request: RemotingCommand, timeout_millis: int) -> None:
        """Tell a connected client (e.g. NOTIFY_CONSUMER_IDS_CHANGED). Java: NettyRemotingServer#invokeOneway."""
        self.invoke_oneway_impl(channel, request, timeout_millis)

    # -- the network's callbacks (Java: NettyConnectManageHandler) -----------------------------------------
    def on_accept(self, conn: Connection) -> None:
        """A client connected: give it a decoder, tell the listener. Java: NettyConnectManageHandler#channelActive."""
        self._context(conn)
        remote = parse_channel_remote_addr(conn)
        self._trace("accept", remote=remote)
        self._put_event_if_listening(NettyEventType.CONNECT, remote, conn)

    def on_close(self, conn: Connection) -> None:
        """A connection closed (either side). Java: NettyConnectManageHandler#channelInactive."""
        self._forget_context(conn)
        remote = parse_channel_remote_addr(conn)
        self._trace("close", remote=remote)
        self._put_event_if_listening(NettyEventType.CLOSE, remote, conn)

    def on_channel_idle(self, channel: Connection) -> None:
        """Close a connection that was quiet for ``serverChannelMaxIdleTimeSeconds``.

        Java: NettyConnectManageHandler#userEventTriggered (ALL_IDLE)
        """
        channel.close()
        self._put_event_if_listening(NettyEventType.IDLE, parse_channel_remote_addr(channel), channel)

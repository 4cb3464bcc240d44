"""The name server: a remoting server, the route tables, the KV config and the inactive-broker scan.

Java: org.apache.rocketmq.namesrv.NamesrvController (rocketmq-all-4.9.3)

``initialize`` loads the KV config, creates the remoting server with ``DefaultRequestProcessor`` as its default
processor and schedules ``scanNotActiveBroker`` every 10 s after 5 s; ``start`` opens the port (9876 by default).
Unknown request codes are answered with REQUEST_CODE_NOT_SUPPORTED (4.9.3 sends nothing; see the name server spec).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.namesrv.kvconfig.kv_config_manager import KVConfigManager
from mqlab.namesrv.processor.default_request_processor import DefaultRequestProcessor
from mqlab.namesrv.routeinfo.broker_housekeeping_service import BrokerHousekeepingService
from mqlab.namesrv.routeinfo.route_info_manager import RouteInfoManager
from mqlab.remoting.netty.netty_remoting_server import NettyRemotingServer

if TYPE_CHECKING:
    from mqlab.common.namesrv.namesrv_config import NamesrvConfig
    from mqlab.remoting.netty.netty_server_config import NettyServerConfig
    from mqlab.runtime.runtime import Runtime
    from mqlab.runtime.scheduler import TimerHandle

SCAN_INITIAL_DELAY_MS = 5000
SCAN_PERIOD_MS = 10_000


class NamesrvController:
    """One name server.

    Args:
        namesrv_config: KV config path, order-message switch.
        netty_server_config: listen port (9876 for ``mqlab namesrv``; 0 = any free port).
        runtime: clock, scheduler, network, trace.
        listen_host: bind address (Java binds every interface; tests bind loopback).
    """

    def __init__(
        self,
        namesrv_config: NamesrvConfig,
        netty_server_config: NettyServerConfig,
        runtime: Runtime,
        *,
        listen_host: str = "0.0.0.0",
    ):
        self.namesrv_config = namesrv_config
        self.netty_server_config = netty_server_config
        self.runtime = runtime
        self.listen_host = listen_host
        self.kv_config_manager = KVConfigManager(namesrv_config.kv_config_path)
        self.route_info_manager = RouteInfoManager(
            runtime.now_ms,
            close_channel=lambda channel: channel.close() if channel is not None else None,
            trace=lambda event, **fields: runtime.trace_event("RouteInfoManager", event, **fields),
        )
        self.broker_housekeeping_service = BrokerHousekeepingService(self.route_info_manager)
        self.remoting_server: NettyRemotingServer | None = None
        self._timers: list[TimerHandle] = []

    def initialize(self) -> bool:
        """Load KV config, build the server and its processor, schedule the scan. Java: NamesrvController#initialize."""
        self.kv_config_manager.load()
        self.remoting_server = NettyRemotingServer(
            self.netty_server_config,
            self.runtime,
            self.broker_housekeeping_service,
            listen_host=self.listen_host,
            answer_unhandled_requests=True,
        )
        executor = self.runtime.scheduler.new_executor(
            "RemotingExecutorThread_", max(self.netty_server_config.server_worker_threads, 1)
        )
        processor = DefaultRequestProcessor(self.route_info_manager, self.kv_config_manager, self.namesrv_config)
        self.remoting_server.register_default_processor(processor, executor)
        self._timers.append(
            self.runtime.scheduler.schedule_at_fixed_rate(
                SCAN_INITIAL_DELAY_MS,
                SCAN_PERIOD_MS,
                self.route_info_manager.scan_not_active_broker,
                name="scanNotActiveBroker",
            )
        )
        return True

    def start(self) -> None:
        """Open the port. Java: NamesrvController#start."""
        assert self.remoting_server is not None, "initialize() first"
        self.remoting_server.start()
        self.runtime.trace_event("NamesrvController", "start", port=self.listen_port)

    def shutdown(self) -> None:
        """Stop the timers and the server. Java: NamesrvController#shutdown."""
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        if self.remoting_server is not None:
            self.remoting_server.shutdown()
        self.runtime.trace_event("NamesrvController", "shutdown")

    @property
    def listen_port(self) -> int:
        """The port actually listened on."""
        assert self.remoting_server is not None
        return self.remoting_server.local_listen_port()

    @property
    def address(self) -> str:
        """``ip:port`` clients should use (the runtime's IP when bound to every interface)."""
        host = self.runtime.host.ip if self.listen_host in ("0.0.0.0", "::") else self.listen_host
        return f"{host}:{self.listen_port}"

"""A name server and a client on either runtime: simulated world or real threads and loopback TCP."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from mqlab.common import util_all
from mqlab.common.data_version import DataVersion
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.namesrv.namesrv_config import NamesrvConfig
from mqlab.common.protocol.body.register_broker_body import RegisterBrokerBody
from mqlab.common.protocol.body.topic_config_serialize_wrapper import TopicConfigSerializeWrapper
from mqlab.common.protocol.header.namesrv import headers as h
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.topic_config import TopicConfig
from mqlab.namesrv.kvconfig.kv_config_manager import KVConfigManager
from mqlab.namesrv.processor.default_request_processor import DefaultRequestProcessor
from mqlab.namesrv.routeinfo.route_info_manager import RouteInfoManager
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.remoting.netty.netty_remoting_client import NettyRemotingClient
from mqlab.remoting.netty.netty_remoting_server import NettyRemotingServer
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.remoting.protocol.remoting_command import RemotingCommand, RequestIdGenerator
from mqlab.runtime import SimulatedWorld, ThreadedRuntime
from mqlab.runtime.runtime import Runtime

SIM_PORT = 9876
BROKER_ADDR = "10.0.0.9:10911"  # only a value inside the registration, never dialled


class Recorder:
    """A ChannelEventListener and RPCHook that writes everything down."""

    def __init__(self):
        self.events: list[tuple[str, str]] = []
        self.hooks: list[tuple[str, Any, int, Any]] = []
        self._lock = threading.Lock()

    def _add(self, kind: str, remote: str) -> None:
        with self._lock:
            self.events.append((kind, remote))

    def on_channel_connect(self, remote_addr, channel):
        self._add("CONNECT", remote_addr)

    def on_channel_close(self, remote_addr, channel):
        self._add("CLOSE", remote_addr)

    def on_channel_exception(self, remote_addr, channel):
        self._add("EXCEPTION", remote_addr)

    def on_channel_idle(self, remote_addr, channel):
        self._add("IDLE", remote_addr)

    def kinds(self) -> list[str]:
        with self._lock:
            return [kind for kind, _ in self.events]

    def do_before_request(self, remote_addr, request):
        self.hooks.append(("before", remote_addr, request.code, request.is_oneway_rpc()))

    def do_after_response(self, remote_addr, request, response):
        self.hooks.append(("after", remote_addr, request.code, None if response is None else response.code))


class Processor:
    """A configurable processor: echo, reject, raise, answer nothing."""

    def __init__(self, mode: str = "echo"):
        self.mode = mode
        self.seen: list[RemotingCommand] = []

    def process_request(self, ctx, request):
        self.seen.append(request)
        if self.mode == "raise":
            raise ValueError("boom")
        if self.mode == "none":
            return None
        if self.mode == "sink":  # answers with the body's size, not the body
            return RemotingCommand.create_response_command(0, str(len(request.body or b"")))
        response = RemotingCommand.create_response_command(0, None)
        response.body = request.body
        return response

    def reject_request(self):
        if self.mode == "reject-raises":
            raise RuntimeError("cannot tell")
        return self.mode == "reject"


def topic(name: str, queues: int = 4) -> TopicConfig:
    return TopicConfig(name, queues, queues, 6)


def register_broker_request(opaque: int, *topics: str) -> RemotingCommand:
    table = JavaHashMap()
    for name in topics:
        table[name] = topic(name)
    body = RegisterBrokerBody(TopicConfigSerializeWrapper(table, DataVersion(1_650_000_000_000, 1))).encode(False)
    header = h.RegisterBrokerRequestHeader(
        "broker-a", BROKER_ADDR, "DefaultCluster", "10.0.0.9:10912", 0, False, util_all.crc32(body)
    )
    request = RemotingCommand.create_request_command(RequestCode.REGISTER_BROKER, header, opaque=opaque)
    request.body = body
    return request


class Harness:
    """One name server (``DefaultRequestProcessor`` as default processor) and one client.

    ``kind`` is ``"sim"`` (a seeded world: nodes ``namesrv`` at 10.0.0.1 and ``client`` at 10.0.0.2, port 9876) or
    ``"tcp"`` (threaded runtimes, 127.0.0.1, an ephemeral port).
    """

    def __init__(
        self,
        kind: str,
        tmp_path: Path,
        *,
        seed: int = 1,
        server_config: NettyServerConfig | None = None,
        client_config: NettyClientConfig | None = None,
        server_listener: Any = None,
        client_listener: Any = None,
        answer_unhandled_requests: bool = False,
    ):
        self.kind = kind
        self.tmp_path = tmp_path
        tmp_path.mkdir(parents=True, exist_ok=True)
        self.world: SimulatedWorld | None = None
        self._runtimes: list[Runtime] = []
        if kind == "sim":
            self.world = SimulatedWorld(seed)
            self.server_rt = self.world.runtime("namesrv")
            self.client_rt = self.world.runtime("client")
            self.host = self.server_rt.host.ip
            port = SIM_PORT
        else:
            self.server_rt = ThreadedRuntime.create("namesrv", seed=seed)
            self.client_rt = ThreadedRuntime.create("client", seed=seed)
            self.host = "127.0.0.1"
            port = 0
        self._runtimes += [self.server_rt, self.client_rt]
        config = server_config or NettyServerConfig(listen_port=port)
        config.listen_port = port
        self.server = NettyRemotingServer(
            config,
            self.server_rt,
            server_listener,
            listen_host="0.0.0.0" if kind == "sim" else "127.0.0.1",
            answer_unhandled_requests=answer_unhandled_requests,
        )
        self.route_info_manager = RouteInfoManager(self.server_rt.now_ms)
        namesrv_config = NamesrvConfig(kv_config_path=str(tmp_path / "kvConfig.json"))
        self.kv = KVConfigManager(namesrv_config.kv_config_path)
        self.namesrv_processor = DefaultRequestProcessor(self.route_info_manager, self.kv, namesrv_config)
        # One thread keeps requests of one connection in order on real threads too (NamesrvController uses 8).
        self.remoting_executor = self.server_rt.scheduler.new_executor("RemotingExecutorThread", 1)
        self.server.register_default_processor(self.namesrv_processor, self.remoting_executor)
        self.server.start()
        self.client = NettyRemotingClient(client_config or NettyClientConfig(), self.client_rt, client_listener)
        self.client.start()
        self._clients = [self.client]

    @property
    def addr(self) -> str:
        return f"{self.host}:{self.server.local_listen_port()}"

    def opaque(self, runtime: Runtime | None = None) -> int:
        runtime = runtime or self.client_rt
        return runtime.singleton(RequestIdGenerator, RequestIdGenerator).next()

    def request(self, code: int, header: Any = None, body: bytes | None = None) -> RemotingCommand:
        request = RemotingCommand.create_request_command(code, header, opaque=self.opaque())
        request.body = body
        return request

    def now(self) -> int:
        return self.client_rt.now_ms()

    def future(self, runtime: Runtime | None = None):
        return (runtime or self.client_rt).scheduler.new_future()

    def wait_until(self, predicate, timeout_ms: int = 5000) -> bool:
        """Let time pass (virtual or real) until ``predicate()`` holds."""
        return self.client_rt.scheduler.wait_until(predicate, timeout_ms)

    def extra_runtime(self, node: str) -> Runtime:
        if self.world is not None:
            return self.world.runtime(node)
        runtime = ThreadedRuntime.create(node, seed=7)
        self._runtimes.append(runtime)
        return runtime

    def new_client(self, node: str, config: NettyClientConfig | None = None, listener: Any = None):
        runtime = self.extra_runtime(node)
        client = NettyRemotingClient(config or NettyClientConfig(), runtime, listener)
        client.start()
        self._clients.append(client)
        return client, runtime

    def close(self) -> None:
        for client in self._clients:
            client.shutdown()
        self.server.shutdown()
        self.remoting_executor.shutdown()
        for runtime in self._runtimes:
            if not runtime.simulated:
                runtime.network.close()  # type: ignore[attr-defined]
                runtime.scheduler.close()  # type: ignore[attr-defined]

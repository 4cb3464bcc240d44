"""A name server, a broker and raw clients, on a simulated world or on real threads and loopback TCP.

The clients speak exactly as a 4.x Java client does: typed headers in ``extFields``, fastjson bodies, the
properties string of ``Message`` with UNIQ_KEY and WAIT. Nothing here is library code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mqlab.broker.broker_controller import BrokerController
from mqlab.common.broker_config import BrokerConfig
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.filter.filter_api import build_subscription_data
from mqlab.common.message.message import Message
from mqlab.common.message.message_batch import MessageBatch
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.message_decoder import message_properties2string
from mqlab.common.namesrv.namesrv_config import NamesrvConfig
from mqlab.common.protocol.header import broker_headers as bh
from mqlab.common.protocol.header.namesrv import headers as nh
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.heartbeat_data import ConsumerData, HeartbeatData, ProducerData
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.sysflag.pull_sys_flag import build_sys_flag
from mqlab.namesrv.kvconfig.kv_config_manager import KVConfigManager
from mqlab.namesrv.processor.default_request_processor import DefaultRequestProcessor
from mqlab.namesrv.routeinfo.broker_housekeeping_service import BrokerHousekeepingService
from mqlab.namesrv.routeinfo.route_info_manager import RouteInfoManager
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.remoting.netty.netty_remoting_client import NettyRemotingClient
from mqlab.remoting.netty.netty_remoting_server import NettyRemotingServer
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.remoting.protocol.remoting_command import RemotingCommand, RequestIdGenerator
from mqlab.runtime import SimulatedWorld, ThreadedRuntime
from mqlab.runtime.runtime import Runtime
from mqlab.store.config.message_store_config import MessageStoreConfig

NAMESRV_IP, BROKER_IP, CLIENT_IP = "10.0.0.1", "10.0.0.2", "10.0.0.3"
SIM_BROKER_PORT = 10911
SIM_NAMESRV_PORT = 9876


class NameServer:
    """A name server built from its parts (route tables, KV config, the default processor, the 10 s scan, the
    connection listener that drops a broker whose connection closes)."""

    def __init__(self, runtime: Runtime, tmp_path: Path, port: int, listen_host: str):
        self.runtime = runtime
        self.route_info_manager = RouteInfoManager(
            runtime.now_ms,
            close_channel=lambda channel: channel.close() if channel is not None else None,
            trace=lambda event, **fields: runtime.trace_event("RouteInfoManager", event, **fields),
        )
        config = NamesrvConfig(kv_config_path=str(tmp_path / "kvConfig.json"))
        self.kv_config_manager = KVConfigManager(config.kv_config_path)
        self.server = NettyRemotingServer(
            NettyServerConfig(listen_port=port),
            runtime,
            BrokerHousekeepingService(self.route_info_manager),
            listen_host=listen_host,
            answer_unhandled_requests=True,
        )
        self.executor = runtime.scheduler.new_executor("RemotingExecutorThread_", 1)
        processor = DefaultRequestProcessor(self.route_info_manager, self.kv_config_manager, config)
        self.server.register_default_processor(processor, self.executor)
        self.server.start()
        self.scan = runtime.scheduler.schedule_at_fixed_rate(
            5000, 10_000, self.route_info_manager.scan_not_active_broker, name="scanNotActiveBroker"
        )

    def close(self) -> None:
        self.scan.cancel()
        self.server.shutdown()
        self.executor.shutdown()


class Client:
    """A raw remoting client that builds requests the way a Java 4.9.3 client does."""

    def __init__(self, runtime: Runtime, broker_addr: str, namesrv_addr: str):
        self.runtime = runtime
        self.broker_addr = broker_addr
        self.namesrv_addr = namesrv_addr
        self.remoting = NettyRemotingClient(NettyClientConfig(), runtime)
        self.remoting.start()
        self.id_setter = MessageClientIDSetter.for_runtime(runtime)
        self.client_id = f"{runtime.host.ip}@{runtime.node}"
        self.notices: list[tuple[int, str | None]] = []  # (time, group) of NOTIFY_CONSUMER_IDS_CHANGED

        client = self

        class NotifyProcessor:
            def process_request(self, ctx, request):
                group = (request.ext_fields or {}).get("consumerGroup")
                client.notices.append((client.runtime.now_ms(), group))
                return None

            def reject_request(self):
                return False

        self.remoting.register_processor(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, NotifyProcessor())

    def opaque(self) -> int:
        return self.runtime.singleton(RequestIdGenerator, RequestIdGenerator).next()

    def request(self, code: int, header: Any = None, body: bytes | None = None) -> RemotingCommand:
        request = RemotingCommand.create_request_command(code, header, opaque=self.opaque())
        request.body = body
        return request

    def call(self, code: int, header: Any = None, body: bytes | None = None, timeout: int = 3000, addr=None):
        return self.remoting.invoke_sync(addr or self.broker_addr, self.request(code, header, body), timeout)

    def route(self, topic: str):
        return self.call(
            RequestCode.GET_ROUTEINFO_BY_TOPIC, nh.GetRouteInfoRequestHeader(topic), addr=self.namesrv_addr
        )

    # -- producer ----------------------------------------------------------------------------------------------
    def message(self, topic: str, body: bytes, tags: str | None = None, keys: str | None = None) -> Message:
        msg = Message(topic, tags, keys, body)
        self.id_setter.set_uniq_id(msg)
        return msg

    def send_header(self, msg: Message, queue_id: int, **fields: Any) -> bh.SendMessageRequestHeaderV2:
        v1 = bh.SendMessageRequestHeader(
            producer_group="PG",
            topic=msg.topic,
            default_topic="TBW102",
            default_topic_queue_nums=4,
            queue_id=queue_id,
            sys_flag=0,
            born_timestamp=self.runtime.now_ms(),
            flag=msg.flag,
            properties=message_properties2string(msg.properties),
            reconsume_times=0,
            unit_mode=False,
            batch=False,
        )
        for name, value in fields.items():
            setattr(v1, name, value)
        return bh.create_send_message_request_header_v2(v1)

    def send(self, msg: Message, queue_id: int = 0, **fields: Any) -> RemotingCommand:
        return self.call(RequestCode.SEND_MESSAGE_V2, self.send_header(msg, queue_id, **fields), msg.body)

    def send_batch(self, messages: list[Message], queue_id: int = 0) -> RemotingCommand:
        batch = MessageBatch.generate_from_list(messages)
        header = self.send_header(batch, queue_id, batch=True)
        return self.call(RequestCode.SEND_BATCH_MESSAGE, header, batch.encode())

    # -- consumer ----------------------------------------------------------------------------------------------
    def heartbeat(self, group: str | None = None, topics: dict[str, str] | None = None, producer: str | None = None):
        consumers = []
        if group is not None:
            subs = [build_subscription_data(t, e, 1) for t, e in (topics or {}).items()]
            consumers.append(
                ConsumerData(
                    group,
                    ConsumeType.CONSUME_PASSIVELY,
                    MessageModel.CLUSTERING,
                    ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
                    subs,
                )
            )
        producers = [ProducerData(producer)] if producer else []
        body = HeartbeatData(self.client_id, producers, consumers).encode()
        return self.call(RequestCode.HEART_BEAT, body=body)

    def pull_header(self, group, topic, queue_id, offset, *, suspend=True, commit_offset=0, max_nums=32, **extra):
        sys_flag = build_sys_flag(commit_offset > 0, suspend, "subscription" in extra, False)
        return bh.PullMessageRequestHeader(
            consumer_group=group,
            topic=topic,
            queue_id=queue_id,
            queue_offset=offset,
            max_msg_nums=max_nums,
            sys_flag=sys_flag,
            commit_offset=commit_offset,
            suspend_timeout_millis=15_000,
            subscription=extra.get("subscription"),
            sub_version=extra.get("sub_version", 0),
            expression_type=extra.get("expression_type", "TAG"),
        )

    def pull(self, group, topic, queue_id, offset, *, timeout=30_000, **kwargs) -> RemotingCommand:
        return self.call(
            RequestCode.PULL_MESSAGE, self.pull_header(group, topic, queue_id, offset, **kwargs), timeout=timeout
        )

    def pull_async(self, group, topic, queue_id, offset, *, timeout=30_000, **kwargs):
        future = self.runtime.scheduler.new_future()
        request = self.request(RequestCode.PULL_MESSAGE, self.pull_header(group, topic, queue_id, offset, **kwargs))
        arrived: list[int] = []

        def done(response_future):
            arrived.append(self.runtime.now_ms())
            future.set_result(response_future.response_command)

        self.remoting.invoke_async(self.broker_addr, request, timeout, done)
        return future, arrived

    def close(self) -> None:
        self.remoting.shutdown()


class Cluster:
    """One name server, one broker (``broker-a``) and clients; ``kind`` is ``"sim"`` or ``"tcp"``."""

    def __init__(
        self,
        tmp_path: Path,
        kind: str = "sim",
        *,
        seed: int = 7,
        broker: dict[str, Any] | None = None,
        store: dict[str, Any] | None = None,
        server: dict[str, Any] | None = None,
        start: bool = True,
    ):
        self.kind = kind
        self.tmp_path = tmp_path
        self.world: SimulatedWorld | None = None
        self._runtimes: list[Runtime] = []
        if kind == "sim":
            self.world = SimulatedWorld(seed)
            self.ns_rt = self.world.runtime("namesrv", ip=NAMESRV_IP)
            self.broker_rt = self.world.runtime("broker-a", ip=BROKER_IP)
            host, ns_port, broker_port, listen_host = BROKER_IP, SIM_NAMESRV_PORT, SIM_BROKER_PORT, "0.0.0.0"
        else:
            self.ns_rt = ThreadedRuntime.create("namesrv", seed=seed)
            self.broker_rt = ThreadedRuntime.create("broker-a", seed=seed)
            self._runtimes += [self.ns_rt, self.broker_rt]
            host, ns_port, broker_port, listen_host = "127.0.0.1", 0, 0, "127.0.0.1"
        self.namesrv = NameServer(self.ns_rt, tmp_path, ns_port, listen_host)
        ns_host = NAMESRV_IP if kind == "sim" else "127.0.0.1"
        self.namesrv_addr = f"{ns_host}:{self.namesrv.server.local_listen_port()}"
        broker_settings = {"broker_ip1": host, "broker_ip2": host, "namesrv_addr": self.namesrv_addr}
        broker_settings.update(broker or {})
        store_settings: dict[str, Any] = {
            "mapped_file_size_commit_log": 64 * 1024,
            "mapped_file_size_consume_queue": 20 * 100,
        }
        store_settings.update(store or {})
        self.broker_config = BrokerConfig(**broker_settings)
        self.store_settings = store_settings
        self.listen_host = listen_host
        self.controller = BrokerController(
            self.broker_config,
            NettyServerConfig(listen_port=broker_port, **(server or {})),
            NettyClientConfig(),
            MessageStoreConfig.under(str(tmp_path / "store"), **store_settings),
            self.broker_rt,
            listen_host=listen_host,
        )
        assert self.controller.initialize()
        self.clients: list[Client] = []
        if start:
            self.start()

    def start(self) -> None:
        self.controller.start()

    @property
    def broker_addr(self) -> str:
        return self.controller.get_broker_addr()

    def client(self, node: str = "client", ip: str = CLIENT_IP) -> Client:
        if self.world is not None:
            runtime = self.world.runtime(node, ip=ip)
        else:
            runtime = ThreadedRuntime.create(node, seed=3)
            self._runtimes.append(runtime)
        client = Client(runtime, self.broker_addr, self.namesrv_addr)
        self.clients.append(client)
        return client

    def run_for(self, ms: int) -> None:
        if self.world is not None:
            self.world.run_for(ms)
        else:
            self.broker_rt.scheduler.sleep(ms)

    def now(self) -> int:
        return self.broker_rt.now_ms()

    def wait_until(self, predicate, timeout_ms: int = 5000) -> bool:
        """Let time pass (virtual or real) until ``predicate()`` holds."""
        return self.broker_rt.scheduler.wait_until(predicate, timeout_ms)

    def close(self, *, shutdown_broker: bool = True) -> None:
        self.closed = True
        for client in self.clients:
            client.close()
        if shutdown_broker:
            self.controller.shutdown()
        self.namesrv.close()
        for runtime in self._runtimes:
            runtime.network.close()  # type: ignore[attr-defined]
            runtime.scheduler.close()  # type: ignore[attr-defined]

"""A name server, one or more brokers and client nodes, on one simulated world or on real threads and loopback TCP.

Builders for the client tests (producer now, consumers later): ``ClientCluster(tmp_path, brokers=("broker-a",
"broker-b"))`` starts everything, ``cluster.producer("PG")`` gives a started DefaultMQProducer on its own node,
``cluster.stored(broker, topic)`` reads back what a broker's store holds. Nothing here is library code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mqlab.broker.broker_controller import BrokerController
from mqlab.client.common.thread_local_index import ThreadLocalIndex
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.client.producer.send_result import SendResult
from mqlab.common.broker_config import BrokerConfig
from mqlab.common.message.message_ext import MessageExt
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.namesrv.namesrv_config import NamesrvConfig
from mqlab.common.protocol.request_code import RequestCode
from mqlab.namesrv.namesrv_controller import NamesrvController
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from mqlab.runtime import SimulatedWorld, ThreadedRuntime
from mqlab.runtime.runtime import Runtime
from mqlab.store.config.message_store_config import MessageStoreConfig
from tests.client.client_fakes import StartAt

NAMESRV_IP = "10.0.0.1"
# broker-a → 10.0.0.11, broker-b → 10.0.0.12, ...; client nodes from 10.0.0.51
BROKER_IP_BASE = 10
CLIENT_IP_BASE = 50
SIM_NAMESRV_PORT = 9876
SIM_BROKER_PORT = 10911


class Callback:
    """A SendCallback that records what it heard, and when."""

    def __init__(self, runtime: Runtime):
        self.runtime = runtime
        self.results: list[SendResult] = []
        self.errors: list[BaseException] = []
        self.times: list[int] = []

    def on_success(self, send_result: SendResult) -> None:
        self.results.append(send_result)
        self.times.append(self.runtime.now_ms())

    def on_exception(self, e: BaseException) -> None:
        self.errors.append(e)
        self.times.append(self.runtime.now_ms())

    @property
    def done(self) -> bool:
        return bool(self.results or self.errors)


class FaultySend:
    """A broker-side fault in place of the send processor: answer ``code`` (after storing, if ``store``).

    ``then(ctx)`` runs after the real processor (e.g. to kill the broker before it can answer); returning None
    from it means "no answer at all".
    """

    def __init__(self, inner: Any, code: int | None, *, store: bool = True, remark: str | None = None, then=None):
        self.inner, self.code, self.store, self.remark, self.then = inner, code, store, remark, then
        self.requests = 0

    def process_request(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        self.requests += 1
        response = self.inner.process_request(ctx, request) if self.store else None
        if self.then is not None:
            return self.then(ctx, response)
        if self.code is None:
            return response
        if response is None:
            response = RemotingCommand.create_response_command(self.code, self.remark)
        else:
            response.code, response.remark = self.code, self.remark
        return response

    def reject_request(self) -> bool:
        return False


class ClientCluster:
    """A name server and brokers (all masters of one cluster) plus client nodes; ``kind`` is ``"sim"`` or ``"tcp"``.

    Args:
        tmp_path: where the stores and the name server's KV file live.
        brokers: broker names, each a master (id 0) on its own node.
        seed: the simulated world's seed.
        broker: extra BrokerConfig fields for every broker.
        store: extra MessageStoreConfig fields for every broker.
    """

    def __init__(
        self,
        tmp_path: Path,
        kind: str = "sim",
        *,
        brokers: tuple[str, ...] = ("broker-a",),
        seed: int = 7,
        broker: dict[str, Any] | None = None,
        store: dict[str, Any] | None = None,
    ):
        self.kind = kind
        self.tmp_path = tmp_path
        self.world: SimulatedWorld | None = SimulatedWorld(seed) if kind == "sim" else None
        self._threaded: list[Runtime] = []
        self.producers: list[DefaultMQProducer] = []
        self.ns_rt = self._runtime("namesrv", NAMESRV_IP)
        listen_host = "0.0.0.0" if self.world is not None else "127.0.0.1"
        self.namesrv = NamesrvController(
            NamesrvConfig(kv_config_path=str(tmp_path / "namesrv" / "kvConfig.json")),
            NettyServerConfig(listen_port=SIM_NAMESRV_PORT if self.world is not None else 0),
            self.ns_rt,
            listen_host=listen_host,
        )
        self.namesrv.initialize()
        self.namesrv.start()
        self.namesrv_addr = self.namesrv.address
        self.brokers: dict[str, BrokerController] = {}
        for index, name in enumerate(brokers, start=1):
            ip = f"10.0.0.{BROKER_IP_BASE + index}" if self.world is not None else "127.0.0.1"
            runtime = self._runtime(name, ip)
            settings: dict[str, Any] = {
                "broker_name": name,
                "broker_ip1": ip,
                "broker_ip2": ip,
                "namesrv_addr": self.namesrv_addr,
            }
            settings.update(broker or {})
            store_settings: dict[str, Any] = {
                "mapped_file_size_commit_log": 256 * 1024,
                "mapped_file_size_consume_queue": 20 * 100,
            }
            store_settings.update(store or {})
            controller = BrokerController(
                BrokerConfig(**settings),
                NettyServerConfig(listen_port=SIM_BROKER_PORT if self.world is not None else 0),
                NettyClientConfig(),
                MessageStoreConfig.under(str(tmp_path / name), **store_settings),
                runtime,
                listen_host=listen_host,
            )
            assert controller.initialize()
            controller.start()
            self.brokers[name] = controller
        self._clients = 0
        self.closed = False

    def _runtime(self, node: str, ip: str) -> Runtime:
        if self.world is not None:
            return self.world.runtime(node, ip=ip)
        runtime = ThreadedRuntime.create(node, seed=3)
        self._threaded.append(runtime)
        return runtime

    # -- clients ---------------------------------------------------------------------------------------------
    def client_runtime(self, node: str | None = None) -> Runtime:
        """A new client node (``client-1``, ``client-2`` ... unless named)."""
        self._clients += 1
        return self._runtime(node or f"client-{self._clients}", f"10.0.0.{CLIENT_IP_BASE + self._clients}")

    def producer(
        self, group: str = "PG", *, runtime: Runtime | None = None, start: bool = True, **settings: Any
    ) -> DefaultMQProducer:
        """A DefaultMQProducer of ``group`` pointed at the name server (started unless ``start=False``)."""
        producer = DefaultMQProducer(
            group, runtime or self.client_runtime(), namesrv_addr=self.namesrv_addr, **settings
        )
        if start:
            producer.start()
        self.producers.append(producer)
        return producer

    def make_topic(self, topic: str, queues: int = 4) -> None:
        """Create ``topic`` with ``queues`` queues on every broker (UPDATE_AND_CREATE_TOPIC via an admin producer)."""
        admin = self.producer(f"ADMIN_{topic.replace('%', '_')}", runtime=self.client_runtime(f"admin-{topic}"))
        admin.create_topic("TBW102", topic, queues)
        admin.shutdown()
        self.producers.remove(admin)
        self.run_for(50)  # the brokers' oneway registrations reach the name server

    def fault_send(self, broker_name: str, code: int | None, **kwargs: Any) -> FaultySend:
        """Put a FaultySend in front of ``broker_name``'s SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE processor."""
        controller = self.brokers[broker_name]
        server = controller.remoting_server
        assert server is not None
        inner = server.processor_table[int(RequestCode.SEND_MESSAGE_V2)].processor
        fault = FaultySend(inner, code, **kwargs)
        for request_code in (RequestCode.SEND_MESSAGE_V2, RequestCode.SEND_BATCH_MESSAGE):
            server.register_processor(request_code, fault, controller.send_message_executor)
        return fault

    @staticmethod
    def force_next_queue(producer: DefaultMQProducer, topic: str, position: int) -> MessageQueue:
        """Make the next round-robin pick of ``topic`` the queue at ``position`` of its publish list."""
        info = producer.default_mq_producer_impl.topic_publish_info_table[topic]
        size = len(info.message_queue_list)
        info.send_which_queue = ThreadLocalIndex(StartAt(position + size - 1))  # first draw + 1 = position + size
        return info.message_queue_list[position]

    # -- looking at the brokers ------------------------------------------------------------------------------
    def broker_addr(self, name: str) -> str:
        return self.brokers[name].get_broker_addr()

    def stored(self, broker_name: str, topic: str) -> list[MessageExt]:
        """Every message of ``topic`` in the broker's store, queue by queue (bodies as stored)."""
        self.run_for(50)  # let the reput service dispatch what was just written
        store = self.brokers[broker_name].message_store
        config = self.brokers[broker_name].topic_config_manager.select_topic_config(topic)
        if config is None:
            return []
        found: list[MessageExt] = []
        for queue_id in range(config.write_queue_nums):
            for offset in range(
                store.get_min_offset_in_queue(topic, queue_id), store.get_max_offset_in_queue(topic, queue_id)
            ):
                phy = store.get_commit_log_offset_in_queue(topic, queue_id, offset)
                msg = store.look_message_by_offset(phy)
                if msg is not None:
                    found.append(msg)
        return found

    # -- time ------------------------------------------------------------------------------------------------
    def now(self) -> int:
        return self.ns_rt.now_ms()

    def run_for(self, ms: int) -> None:
        if self.world is not None:
            self.world.run_for(ms)
        else:
            self.ns_rt.scheduler.sleep(ms)

    def wait_until(self, predicate, timeout_ms: int = 5000) -> bool:
        """Let time pass (virtual or real) until ``predicate()`` holds."""
        return self.ns_rt.scheduler.wait_until(predicate, timeout_ms)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for producer in self.producers:
            producer.shutdown()
        for controller in self.brokers.values():
            controller.shutdown()
        self.namesrv.shutdown()
        for runtime in self._threaded:
            runtime.network.close()  # type: ignore[attr-defined]
            runtime.scheduler.close()  # type: ignore[attr-defined]

"""A name server and N brokers in one process, simulated (deterministic) or real (threads, loopback TCP).

Java: none (mqlab's embedded cluster; RocketMQ tests use a similar in-JVM setup). It is what the quickstart, the
notebooks and many tests start: ``Cluster.simulated(root)`` puts every node on one ``SimulatedWorld`` (virtual
clock, seeded network with faults); ``Cluster.real(root)`` runs them on real threads with TCP on 127.0.0.1 and real
files. The same ``NamesrvController`` and ``BrokerController`` run in both.

Node names and addresses in a simulation: ``namesrv`` at 10.0.0.1:9876, brokers ``broker-a``, ``broker-b``... at
10.0.1.1:10911, 10.0.1.2:10911... ; clients get addresses from 10.0.2.1 on (``client_runtime``).

With ``slaves=N`` each broker name also gets N slaves (``brokerRole=SLAVE``, ``brokerId`` 1..N), named
``broker-a-s1``... at 10.0.1.101, 10.0.1.102... (broker-b's at 10.0.1.111...), and every broker runs replication
(docs/spec/store-ha.md); the masters' role comes from ``store_settings`` (``broker_role``, ASYNC_MASTER by default).
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqlab.broker.broker_controller import BrokerController
from mqlab.common.broker_config import BrokerConfig
from mqlab.common.namesrv.namesrv_config import NamesrvConfig
from mqlab.common.owned_directory import CLUSTER_LAYOUT, remove_directory
from mqlab.namesrv.namesrv_controller import NamesrvController
from mqlab.remoting.netty.netty_client_config import NettyClientConfig
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.runtime import SimulatedWorld, ThreadedRuntime
from mqlab.runtime.runtime import Runtime
from mqlab.runtime.trace import Trace
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.crash import simulate_crash
from mqlab.store.store_verifier import VerifyReport, verify_store

SIM_NAMESRV_IP = "10.0.0.1"
SIM_NAMESRV_PORT = 9876
SIM_BROKER_PORT = 10911
# Segments small enough for a laptop and a notebook; every size is a broker.conf setting and can be overridden.
DEFAULT_STORE_SETTINGS: dict[str, Any] = {
    "mapped_file_size_commit_log": 64 * 1024 * 1024,
    "max_hash_slot_num": 50_000,
    "max_index_num": 200_000,
}


@dataclass
class BrokerNode:
    """One broker of the cluster and the things needed to restart it."""

    name: str
    runtime: Runtime
    controller: BrokerController
    store_root: Path
    settings: dict[str, Any] = field(default_factory=dict)
    broker_id: int = 0


class Cluster:
    """Namesrv + brokers; build with ``simulated`` or ``real``, then ``start()`` and ``shutdown()``."""

    def __init__(
        self,
        root: str | Path,
        *,
        world: SimulatedWorld | None,
        brokers: int,
        cluster_name: str,
        store_settings: dict[str, Any] | None,
        broker_settings: dict[str, Any] | None,
        trace: Trace | None = None,
        slaves: int = 0,
    ):
        self.root = Path(root)
        self.world = world
        self.cluster_name = cluster_name
        self.store_settings = {**DEFAULT_STORE_SETTINGS, **(store_settings or {})}
        self.broker_settings = dict(broker_settings or {})
        self.trace = trace if trace is not None else (world.trace if world is not None else Trace())
        self._client_count = 0
        self._runtimes: list[Runtime] = []
        self.namesrv = self._make_namesrv()
        self.slaves = slaves
        self.brokers: list[BrokerNode] = [self._make_broker(i) for i in range(brokers)]
        self.brokers += [self._make_broker(i, slave=j) for i in range(brokers) for j in range(1, slaves + 1)]

    # -- construction ----------------------------------------------------------------------------------------
    @classmethod
    def simulated(
        cls,
        root: str | Path,
        *,
        brokers: int = 1,
        seed: int = 0,
        world: SimulatedWorld | None = None,
        cluster_name: str = "DefaultCluster",
        store_settings: dict[str, Any] | None = None,
        broker_settings: dict[str, Any] | None = None,
        slaves: int = 0,
    ) -> Cluster:
        """Every node on one simulated world (created from ``seed`` unless given)."""
        return cls(
            root,
            world=world if world is not None else SimulatedWorld(seed),
            brokers=brokers,
            cluster_name=cluster_name,
            store_settings=store_settings,
            broker_settings=broker_settings,
            slaves=slaves,
        )

    @classmethod
    def real(
        cls,
        root: str | Path,
        *,
        brokers: int = 1,
        cluster_name: str = "DefaultCluster",
        store_settings: dict[str, Any] | None = None,
        broker_settings: dict[str, Any] | None = None,
        slaves: int = 0,
    ) -> Cluster:
        """Real threads and TCP on 127.0.0.1 (ports chosen by the system), one shared trace."""
        return cls(
            root,
            world=None,
            brokers=brokers,
            cluster_name=cluster_name,
            store_settings=store_settings,
            broker_settings=broker_settings,
            slaves=slaves,
        )

    def _runtime(self, node: str, ip: str) -> Runtime:
        if self.world is not None:
            return self.world.runtime(node, ip=ip)
        runtime = ThreadedRuntime.create(node, trace=self.trace)
        self._runtimes.append(runtime)
        return runtime

    @property
    def simulated_mode(self) -> bool:
        """Whether the cluster runs on a simulated world."""
        return self.world is not None

    def _host(self) -> str:
        return "0.0.0.0" if self.simulated_mode else "127.0.0.1"

    def _make_namesrv(self) -> NamesrvController:
        runtime = self._runtime("namesrv", SIM_NAMESRV_IP)
        port = SIM_NAMESRV_PORT if self.simulated_mode else 0
        config = NamesrvConfig(kv_config_path=str(self.root / "namesrv" / "kvConfig.json"))
        return NamesrvController(config, NettyServerConfig(listen_port=port), runtime, listen_host=self._host())

    def _make_broker(self, index: int, *, slave: int = 0) -> BrokerNode:
        broker_name = f"broker-{string.ascii_lowercase[index]}"
        name = f"{broker_name}-s{slave}" if slave else broker_name
        ip = f"10.0.1.{100 + index * 10 + slave}" if slave else f"10.0.1.{index + 1}"
        runtime = self._runtime(name, ip)
        store_root = self.root / name / "store"
        settings = dict(self.store_settings)
        if self.slaves:
            # Java forces haListenPort to listenPort + 1; with port 0 (real mode) the HA port is any free one too.
            settings["ha_listen_port"] = SIM_BROKER_PORT + 1 if self.simulated_mode else 0
        if slave:
            settings["broker_role"] = BrokerRole.SLAVE
        store_config = MessageStoreConfig.under(store_root, **settings)
        broker_config = BrokerConfig(broker_name=broker_name)
        broker_config.broker_id = slave
        broker_config.broker_cluster_name = self.cluster_name
        broker_config.broker_ip1 = ip if self.simulated_mode else "127.0.0.1"
        broker_config.broker_ip2 = broker_config.broker_ip1
        for key, value in self.broker_settings.items():
            setattr(broker_config, key, value)
        port = SIM_BROKER_PORT if self.simulated_mode else 0
        controller = BrokerController(
            broker_config,
            NettyServerConfig(listen_port=port),
            NettyClientConfig(),
            store_config,
            runtime,
            listen_host=self._host(),
            enable_ha=self.slaves > 0,
        )
        return BrokerNode(name, runtime, controller, store_root, broker_id=slave)

    # -- life cycle ------------------------------------------------------------------------------------------
    def start(self) -> Cluster:
        """Start the name server, then each broker (registering with it); returns ``self``."""
        self.namesrv.initialize()
        self.namesrv.start()
        for node in self.brokers:
            node.controller.broker_config.namesrv_addr = self.namesrv_addr
            if not node.controller.initialize():
                raise RuntimeError(f"broker {node.name} failed to initialize (see its store's recovery report)")
            node.controller.start()
        return self

    def shutdown(self) -> None:
        """Clean shutdown of every broker, then the name server (stores reopen with normal recovery)."""
        for node in self.brokers:
            node.controller.shutdown()
        self.namesrv.shutdown()
        for runtime in self._runtimes:
            runtime.scheduler.close()  # type: ignore[attr-defined]

    @property
    def namesrv_addr(self) -> str:
        """``ip:port`` of the name server, as clients set it (``namesrvAddr``)."""
        host = SIM_NAMESRV_IP if self.simulated_mode else "127.0.0.1"
        return f"{host}:{self.namesrv.listen_port}"

    def broker(self, name: str = "broker-a") -> BrokerController:
        """A broker's controller by name."""
        for node in self.brokers:
            if node.name == name:
                return node.controller
        raise KeyError(name)

    def client_runtime(self, name: str | None = None, *, ip: str | None = None, pid: int | None = None) -> Runtime:
        """A runtime for a client process (producer or consumer) on this cluster's world or threads."""
        self._client_count += 1
        name = name or f"client-{self._client_count}"
        if self.world is not None:
            return self.world.runtime(name, ip=ip or f"10.0.2.{self._client_count}", pid=pid)
        runtime = ThreadedRuntime.create(name, trace=self.trace)
        self._runtimes.append(runtime)
        return runtime

    def wait_until(self, predicate: Callable[[], bool], timeout_ms: int) -> bool:
        """Wait until ``predicate()`` holds, at most ``timeout_ms``; returns whether it holds.

        Simulated: virtual time, running events meanwhile. Real: the name server runtime's clock.
        """
        return self.namesrv.runtime.scheduler.wait_until(predicate, timeout_ms)

    def verify_stores(self) -> dict[str, VerifyReport]:
        """Each broker's store checked by the store verifier (what ``mqlab store verify`` runs), by broker name.

        Best called after ``shutdown()``: a running broker may be writing while the files are read.
        """
        slots = int(self.store_settings.get("max_hash_slot_num", MessageStoreConfig().max_hash_slot_num))
        return {node.name: verify_store(node.store_root, max_hash_slot_num=slots) for node in self.brokers}

    # -- faults (simulated) ----------------------------------------------------------------------------------
    def kill_broker(self, name: str) -> None:
        """Cut a broker off the simulated network (its process "dies"; nothing is flushed or unregistered)."""
        if self.world is None:
            raise RuntimeError("kill_broker works on a simulated cluster; kill the process for a real one")
        self.world.network.kill(name)
        for node in self.brokers:
            if node.name == name:
                for timer in node.controller._timers:  # the dead process's timers die with it
                    timer.cancel()

    def crash_broker(self, name: str, *, power_loss: bool = False) -> None:
        """A broker process dies (simulated): off the network, every service stopped without a final flush.

        The store stays on disk with its ``abort`` file, as after ``kill -9``; with ``power_loss`` the bytes not yet
        flushed are lost too, as when the machine loses power. ``restart_broker`` starts a new process on it.
        """
        if self.world is None:
            raise RuntimeError("crash_broker works on a simulated cluster; kill the process for a real one")
        controller = self.broker(name)
        self.world.network.kill(name)
        if controller.message_store.ha_service is not None:
            controller.message_store.ha_service.shutdown()  # its threads die with the process
        for timer in controller._timers:
            timer.cancel()
        controller.broker_fast_failure.shutdown()
        controller.pull_request_hold_service.shutdown()
        controller.client_housekeeping_service.shutdown()
        if controller.transactional_message_check_service is not None:
            controller.transactional_message_check_service.shutdown()
        if controller.remoting_server is not None:
            controller.remoting_server.shutdown()
        controller.broker_outer_api.shutdown()
        simulate_crash(controller.message_store, lose_unflushed=power_loss)

    def restart_broker(
        self, name: str, *, before_start: Callable[[BrokerNode], None] | None = None
    ) -> BrokerController:
        """A new broker process on a crashed broker's node and store, with the same configuration.

        Its store recovers abnormally (the ``abort`` file is there); ``before_start(node)`` sees the recovered
        broker before it serves or registers. Returns the new controller (``broker(name)`` returns it from now on).

        Raises:
            RuntimeError: not a simulated cluster, or the store failed to load.
        """
        if self.world is None:
            raise RuntimeError("restart_broker works on a simulated cluster; start the process again for a real one")
        node = next(n for n in self.brokers if n.name == name)
        old = node.controller
        self.world.network.restart(name)
        controller = BrokerController(
            old.broker_config,
            NettyServerConfig(listen_port=SIM_BROKER_PORT),
            NettyClientConfig(),
            old.message_store_config,
            node.runtime,
            listen_host=self._host(),
            enable_ha=old.enable_ha,
        )
        node.controller = controller
        if not controller.initialize():
            raise RuntimeError(f"broker {name} failed to recover after a crash")
        if before_start is not None:
            before_start(node)
        controller.start()
        return controller

    def remove_files(self) -> None:
        """Delete the cluster's directory (stores and name server config), and only if nothing else is in it.

        Raises:
            ForeignDirectoryError: the directory holds something a cluster does not write (HARD-11); nothing was
                deleted.
        """
        advice = "move it out of the cluster's directory first"
        remove_directory(self.root, layout=CLUSTER_LAYOUT, advice=advice)

"""Workloads over the simulated cluster, and the harness that runs one seed of one under a fault schedule.

Java: none (teaching helper). A ``WorkloadSpec`` names the brokers (each SYNC_FLUSH or ASYNC_FLUSH, and with
``roles`` a master, SYNC_MASTER or ASYNC_MASTER, with one slave per broker name), the consumer groups (clustering
or broadcasting, concurrent or orderly listeners, listeners that fail some messages a number of times, listeners
that take time) and the sends (sync, batch, async, oneway, delayed, ordered by key). ``run_seed``
builds a ``Cluster.simulated`` from the seed, starts every consumer before the first send, sends for the send phase
while the nemesis applies its windows, undoes every fault, lets the cluster settle for the quiet phase, reads each
group's ``%DLQ%`` topic and returns the ``History`` with the checker's ``Verdict``.

Everything is real mqlab code (producers, push consumers, brokers, stores, name server); the harness only records
what the listeners and the brokers' ConsumerOffsetManager saw, and plays the nemesis's part (killing processes,
cutting links, filling the disk). In a master/slave workload it also reads, at the end, which messages each slave's
store holds (``History.replicas``).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqlab.chaos import broken as broken_variants
from mqlab.chaos.history import CommitRecord, DeliveryRecord, DlqRecord, FaultRecord, History, SendRecord
from mqlab.chaos.nemesis import FaultWindow, plan_faults
from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.consumer.listener.consume_orderly_status import ConsumeOrderlyStatus
from mqlab.client.exception.mq_broker_exception import MQBrokerException
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.client.producer.local_transaction_state import LocalTransactionState
from mqlab.client.producer.send_status import SendStatus
from mqlab.client.producer.transaction_mq_producer import TransactionMQProducer
from mqlab.cluster import BrokerNode, Cluster
from mqlab.common.message.message import Message
from mqlab.common.namesrv.namesrv_config import NamesrvConfig
from mqlab.common.owned_directory import CHAOS_LAYOUT, claim_directory
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.service_state import ServiceState
from mqlab.namesrv.namesrv_controller import NamesrvController
from mqlab.remoting.netty.netty_server_config import NettyServerConfig
from mqlab.runtime import SimulatedWorld
from mqlab.runtime.seeded_random import seeded_random
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.config.flush_disk_type import FlushDiskType

TOPIC = "ChaosTopic"
WARMUP_TOPIC = "ChaosWarmup"  # one message replicated before the first send (see ChaosRun._warm_up_replication)
# Small files: a run writes a few hundred records; index files of a few KiB instead of hundreds of MiB.
STORE_SETTINGS: dict[str, Any] = {
    "mapped_file_size_commit_log": 1 << 20,
    "mapped_file_size_consume_queue": 6000,
    "max_hash_slot_num": 64,
    "max_index_num": 256,
}
SETTLE_MS = 3000  # consumers rebalance before the first send
MIN_QUIET_MS = 5000  # after the faults: at least one offset persist round, so late commits are seen


@dataclass(frozen=True, slots=True)
class GroupSpec:
    """One consumer group: its model, listener kind, failure behaviour and number of instances.

    A message numbered ``n`` with ``n % fail_every == 0`` fails its first ``fail_times`` deliveries (more than
    ``max_reconsume_times`` sends it to ``%DLQ%``); every third message takes ``slow_ms`` in the listener. With
    ``pull_interval_ms`` each queue is pulled at most that often (``pullInterval``), so messages wait on the broker.
    """

    name: str
    instances: int = 1
    broadcasting: bool = False
    orderly: bool = False
    fail_every: int = 0
    fail_times: int = 0
    max_reconsume_times: int = 2
    slow_ms: int = 0
    pull_interval_ms: int = 0


@dataclass(frozen=True, slots=True)
class WorkloadSpec:
    """Brokers, groups and sends of one workload (times in virtual ms)."""

    name: str
    description: str
    brokers: tuple[str, ...]  # flush type of broker-a, broker-b ...
    groups: tuple[GroupSpec, ...]
    roles: tuple[str, ...] = ()  # master role of broker-a, broker-b ...; non-empty: one slave per broker name
    messages: int = 24
    send_modes: tuple[str, ...] = ("sync",)
    delayed_every: int = 0
    order_keys: int = 0
    queues: int = 4
    send_phase_ms: int = 12_000
    # At most; the run ends earlier once every acknowledged message is settled. After a name-server loss a group's
    # replacement instance may need two heartbeat and rebalance rounds (30 s, 20 s) before it pulls again.
    quiet_ms: int = 120_000
    # Transactional sends (TransactionMQProducer): message n commits when n % 3 == 0, rolls back when n % 3 == 1,
    # and answers UNKNOW when n % 3 == 2, which the broker's check later resolves as a commit.
    transactions: bool = False


WORKLOADS: dict[str, WorkloadSpec] = {
    spec.name: spec
    for spec in (
        WorkloadSpec(
            "clustering",
            "two brokers (SYNC_FLUSH and ASYNC_FLUSH), two clustering groups with concurrent listeners, one failing "
            "some messages into %RETRY% and %DLQ%; sync, batch, async and oneway sends, some delayed",
            brokers=("SYNC_FLUSH", "ASYNC_FLUSH"),
            groups=(
                GroupSpec("GroupA", instances=2, fail_every=5, fail_times=1),
                GroupSpec("GroupB", instances=1, fail_every=7, fail_times=3),
            ),
            send_modes=("sync", "sync", "batch", "async", "oneway"),
            delayed_every=6,
            quiet_ms=120_000,  # GroupB's messages wait 10 s and 30 s before their retries, then go to %DLQ%
        ),
        WorkloadSpec(
            "orderly",
            "one SYNC_FLUSH broker, a clustering group with an orderly listener that suspends some messages once; "
            "sends ordered by key into queues",
            brokers=("SYNC_FLUSH",),
            groups=(GroupSpec("GroupOrderly", instances=2, orderly=True, fail_every=4, fail_times=1),),
            order_keys=4,  # a crashed member's queue locks expire on the broker after 60 s: within the quiet phase
        ),
        WorkloadSpec(
            "broadcasting",
            "one SYNC_FLUSH broker, a broadcasting group of two instances and a clustering group",
            brokers=("SYNC_FLUSH",),
            groups=(
                GroupSpec("GroupBroadcast", instances=2, broadcasting=True),
                GroupSpec("GroupA", instances=1, fail_every=6, fail_times=1),
            ),
            send_modes=("sync", "async"),
        ),
        WorkloadSpec(
            "slow-consumer",
            "one SYNC_FLUSH broker, a clustering group whose listener takes 300 ms for every third message",
            brokers=("SYNC_FLUSH",),
            groups=(GroupSpec("GroupSlow", instances=1, slow_ms=300),),
            messages=18,
        ),
        WorkloadSpec(
            "sync-master",
            "broker-a a SYNC_MASTER (ASYNC_FLUSH) with one slave; a clustering group of two instances that reads "
            "from the slave while the master is down (each queue pulled every 3 s); sync, batch and async sends",
            brokers=("ASYNC_FLUSH",),
            roles=("SYNC_MASTER",),
            groups=(GroupSpec("GroupHA", instances=2, pull_interval_ms=3000),),
            send_modes=("sync", "sync", "batch", "async"),
        ),
        WorkloadSpec(
            "async-master",
            "broker-a an ASYNC_MASTER (ASYNC_FLUSH) with one slave; a clustering group of two instances that reads "
            "from the slave while the master is down (each queue pulled every 3 s); sync, batch and async sends",
            brokers=("ASYNC_FLUSH",),
            roles=("ASYNC_MASTER",),
            groups=(GroupSpec("GroupHA", instances=2, pull_interval_ms=3000),),
            send_modes=("sync", "sync", "batch", "async"),
        ),
        WorkloadSpec(
            "transactions",
            "one SYNC_FLUSH broker, a clustering group; a transactional producer that commits a third of its "
            "messages, rolls back a third and leaves a third UNKNOW for the broker's check to commit",
            brokers=("SYNC_FLUSH",),
            groups=(GroupSpec("GroupTx", instances=1),),
            messages=18,
            transactions=True,
            quiet_ms=180_000,  # an UNKNOW or a commit the full disk refused waits for the check (every 60 s)
        ),
    )
}
# A SYNC_MASTER may wait slaveTimeout (3 s, also the client's default send timeout) for its slave: a longer client
# timeout lets the producer see FLUSH_SLAVE_TIMEOUT rather than time out first.
HA_SEND_TIMEOUT_MS = 10_000
_DECISION = (LocalTransactionState.COMMIT_MESSAGE, LocalTransactionState.ROLLBACK_MESSAGE, LocalTransactionState.UNKNOW)
REPLICATED_STATUSES = ("FLUSH_SLAVE_TIMEOUT", "SLAVE_NOT_AVAILABLE")  # stored on the master, not (yet) on a slave


class _Callback:
    """A SendCallback recording an async send's outcome into the history."""

    def __init__(self, run: ChaosRun, key: str):
        self.run, self.key = run, key

    def on_success(self, send_result: Any) -> None:
        self.run._record_send(self.key, "async", send_result, None)

    def on_exception(self, e: BaseException) -> None:
        self.run._record_send(self.key, "async", None, e)


@dataclass
class _Instance:
    name: str
    group: GroupSpec
    consumer: DefaultMQPushConsumer
    alive: bool = True


@dataclass
class ChaosRun:
    """One seed of one workload under one fault profile (see the module docstring); ``execute()`` runs it."""

    seed: int
    workload: WorkloadSpec
    faults: str
    root: Path
    max_faults: int = 3
    history: History = field(init=False)
    windows: list[FaultWindow] = field(init=False)

    def __post_init__(self) -> None:
        self.history = History(self.seed, self.workload.name, self.faults)
        self.world = SimulatedWorld(self.seed)
        self.rng = seeded_random(f"{self.seed}:workload")
        self.cluster = Cluster.simulated(
            self.root,
            brokers=len(self.workload.brokers),
            world=self.world,
            store_settings=STORE_SETTINGS,
            slaves=1 if self.workload.roles else 0,
        )
        self.masters = [n for n in self.cluster.brokers if n.broker_id == 0]
        # broker name -> its slave's node name
        self.slave_of = {n.controller.broker_config.broker_name: n.name for n in self.cluster.brokers if n.broker_id}
        self.history.slaves = dict(sorted(self.slave_of.items()))
        for node, flush in zip(self.masters, self.workload.brokers, strict=True):
            self.history.flush_types[node.name] = flush
            if node.name in self.slave_of:
                self._node(self.slave_of[node.name]).controller.message_store_config.flush_disk_type = FlushDiskType[
                    flush
                ]
            node.controller.message_store_config.flush_disk_type = FlushDiskType[flush]
        for node, role in zip(self.masters, self.workload.roles, strict=False):
            node.controller.message_store_config.broker_role = BrokerRole[role]
            self.history.roles[node.name] = role
        for group in self.workload.groups:
            self.history.groups[group.name] = {
                "broadcasting": group.broadcasting,
                "orderly": group.orderly,
                "max_reconsume_times": group.max_reconsume_times,
            }
        self.instances: list[_Instance] = []
        self._instance_count: dict[str, int] = {}
        self._down_brokers: set[str] = set()
        self._lost_machines: set[str] = set()  # masters lost for good (never restarted during the run)
        consumer_names = [
            f"{g.name}-{i}" for g in self.workload.groups if not g.broadcasting for i in range(1, g.instances + 1)
        ]
        nodes = ["namesrv", "producer", *(n.name for n in self.cluster.brokers), *consumer_names]
        self.windows = plan_faults(
            self.seed,
            self.faults,
            brokers=[n.name for n in self.masters],
            consumers=consumer_names,
            nodes=nodes,
            duration_ms=self.workload.send_phase_ms,
            max_faults=self.max_faults,
            pairs=sorted(self.slave_of.items()),
        )

    # -- recording -------------------------------------------------------------------------------------------
    def _record_send(self, key: str, mode: str, result: Any, error: BaseException | None, delay: int = 0) -> None:
        keys = key.split(",")
        if error is not None:
            outcome = "failed" if isinstance(error, MQBrokerException) else "unknown"
            detail = type(error).__name__
            broker = queue_id = offset = None
        else:
            outcome = "ok" if result.send_status is SendStatus.SEND_OK else "unknown"
            detail = result.send_status.name
            broker, queue_id = result.message_queue.broker_name, result.message_queue.queue_id
            offset = result.queue_offset
        for index, one in enumerate(keys):
            self.history.sends.append(
                SendRecord(
                    self.history.next_seq(),
                    self.world.now_ms(),
                    one,
                    mode,
                    outcome,
                    broker,
                    queue_id,
                    None if offset is None or delay else offset + index,
                    delay,
                    detail,
                )
            )

    def _hook_commits(self, node: BrokerNode) -> None:
        """Record every offset a broker's ConsumerOffsetManager accepts (the harness's only broker-side probe)."""
        manager = node.controller.consumer_offset_manager
        original = manager.commit_offset
        # a slave's commits (made while its master is down) count for its broker name
        history, world, broker = self.history, self.world, node.controller.broker_config.broker_name
        on_slave = node.name if node.broker_id else ""

        def commit_offset(client_host: str, group: str, topic: str, queue_id: int, offset: int) -> None:
            original(client_host, group, topic, queue_id, offset)
            history.commits.append(
                CommitRecord(history.next_seq(), world.now_ms(), group, topic, broker, queue_id, offset, on_slave)
            )

        manager.commit_offset = commit_offset  # type: ignore[method-assign]

    def _fault(self, fault: str, action: str, target: str, bytes_behind: int = 0) -> None:
        self.history.faults_applied.append(
            FaultRecord(self.history.next_seq(), self.world.now_ms(), fault, action, target, bytes_behind)
        )
        self.world.trace.record(self.world.now_ms(), "nemesis", "Nemesis", f"{fault}:{action}", target=target)

    # -- consumers -------------------------------------------------------------------------------------------
    def _listener(self, instance_name: str, group: GroupSpec) -> Any:
        history, world = self.history, self.world

        def fails(msg: Any) -> bool:
            number = int(msg.body.decode()[1:])
            return bool(group.fail_every) and number % group.fail_every == 0 and msg.reconsume_times < group.fail_times

        def consume(msgs: list[Any], context: Any) -> Any:
            instance = self._instance(instance_name)
            if instance is None or not instance.alive:
                return None  # a dead process runs no code (mqlab's consumer treats None as a failure)
            begin = [history.next_seq() for _ in msgs]
            if group.slow_ms and any(int(m.body.decode()[1:]) % 3 == 0 for m in msgs):
                world.run_for(group.slow_ms)  # the listener's work takes virtual time; other events run meanwhile
                if not instance.alive:
                    return None  # the process died while the listener worked
            failed = any(fails(m) for m in msgs)
            mq = context.message_queue
            for seq, msg in zip(begin, msgs, strict=True):
                history.deliveries.append(
                    DeliveryRecord(
                        seq,
                        history.next_seq(),
                        world.now_ms(),
                        group.name,
                        instance_name,
                        msg.body.decode(),
                        mq.topic,
                        mq.broker_name,
                        mq.queue_id,
                        msg.queue_offset,
                        msg.reconsume_times,
                        "failure" if failed else "success",
                        group.orderly,
                    )
                )
            if group.orderly:
                return ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT if failed else ConsumeOrderlyStatus.SUCCESS
            return ConsumeConcurrentlyStatus.RECONSUME_LATER if failed else ConsumeConcurrentlyStatus.CONSUME_SUCCESS

        return consume

    def _instance(self, name: str) -> _Instance | None:
        return next((i for i in self.instances if i.name == name), None)

    def start_consumer(self, group: GroupSpec) -> _Instance:
        """A new instance of ``group`` on its own node (``<group>-<n>``), started."""
        number = self._instance_count.get(group.name, 0) + 1
        self._instance_count[group.name] = number
        name = f"{group.name}-{number}"
        runtime = self.cluster.client_runtime(name)
        settings: dict[str, Any] = {"max_reconsume_times": group.max_reconsume_times}
        if group.pull_interval_ms:
            settings["pull_interval"] = group.pull_interval_ms
        if group.broadcasting:
            settings["message_model"] = MessageModel.BROADCASTING
        consumer = DefaultMQPushConsumer(
            group.name,
            runtime,
            namesrv_addr=self.cluster.namesrv_addr,
            local_offset_store_dir=self.root / "offsets" / name,
            **settings,
        )
        consumer.subscribe(TOPIC, "*")
        consumer.register_message_listener(self._listener(name, group), orderly=group.orderly)
        instance = _Instance(name, group, consumer, alive=False)
        self.instances.append(instance)
        try:
            consumer.start()
        finally:
            # start() can raise with the consumer already RUNNING: an unreachable name server makes the route
            # update after MQClientInstance#start throw (Java: IllegalStateException), and the client's threads,
            # not daemons in Java, go on pulling and consuming. Such an instance is alive; one that failed earlier
            # runs nothing.
            instance.alive = consumer.default_mq_push_consumer_impl.service_state is ServiceState.RUNNING
        return instance

    def crash_consumer(self, name: str) -> None:
        """The process dies: nothing it holds in memory (offsets, cached messages) reaches a broker."""
        instance = self._instance(name)
        if instance is None or not instance.alive:
            return
        instance.alive = False
        self.world.network.kill(name)
        instance.consumer.shutdown()  # its network is gone: the final persist and unregister go nowhere

    def leave_consumer(self, name: str) -> None:
        """A clean shutdown: offsets persisted, UNREGISTER_CLIENT sent."""
        instance = self._instance(name)
        if instance is None or not instance.alive:
            return
        instance.consumer.shutdown()
        instance.alive = False

    # -- brokers and the name server -------------------------------------------------------------------------
    def _node(self, name: str) -> BrokerNode:
        return next(n for n in self.cluster.brokers if n.name == name)

    def crash_broker(self, name: str, *, power_loss: bool) -> None:
        """Kill a broker process (a master or a slave); with ``power_loss`` the unflushed bytes are lost too."""
        if name in self._down_brokers:
            return
        self._down_brokers.add(name)
        self.cluster.crash_broker(name, power_loss=power_loss)

    def restart_broker(self, name: str) -> None:
        """Start a new broker process on the same node and store (abnormal recovery: the abort file is there)."""
        if name not in self._down_brokers or name in self._lost_machines:
            return
        self._down_brokers.discard(name)
        self.cluster.restart_broker(name, before_start=self._hook_commits)

    def lose_master(self, name: str) -> None:
        """The master's machine loses power and stays down; the bytes its slave lacked at that moment are recorded."""
        if name in self._lost_machines:
            return
        behind = 0
        slave = self._node(self.slave_of[name])
        if name not in self._down_brokers:  # a crashed slave's store still holds what its page cache had
            master = self._node(name).controller.message_store
            behind = max(master.get_max_phy_offset() - slave.controller.message_store.get_max_phy_offset(), 0)
        if name not in self._routed_brokers():  # a name server that restarted before its next registration
            self.history.unrouted_at_loss.append(name)
        self._fault("master-loss", "lost", name, behind)
        self.crash_broker(name, power_loss=True)
        self._lost_machines.add(name)

    def crash_namesrv(self) -> None:
        """The name server dies, its route table with it."""
        self.world.network.kill("namesrv")
        self.cluster.namesrv.shutdown()

    def restart_namesrv(self) -> None:
        """A new, empty name server on the same address; brokers fill it at their next registration."""
        if self.world.network.is_alive("namesrv"):
            return
        self.world.network.restart("namesrv")
        old = self.cluster.namesrv
        namesrv = NamesrvController(
            NamesrvConfig(kv_config_path=old.namesrv_config.kv_config_path),
            NettyServerConfig(listen_port=old.netty_server_config.listen_port),
            old.runtime,
            listen_host="0.0.0.0",
        )
        namesrv.initialize()
        namesrv.start()
        self.cluster.namesrv = namesrv

    # -- the nemesis -----------------------------------------------------------------------------------------
    def _apply(self, window: FaultWindow) -> None:
        kind, target = window.kind, window.target
        self._fault(kind, "start", target)
        if kind == "master-loss" or (kind == "power-loss" and target in self.slave_of):
            self.lose_master(target)
        elif kind in ("broker-crash", "power-loss", "master-crash", "slave-crash"):
            self.crash_broker(target, power_loss=kind == "power-loss")
        elif kind == "master-slave-partition":
            a, b = target.split("|")
            self.world.network.partition([a], [b])
        elif kind == "namesrv-loss":
            self.crash_namesrv()
        elif kind == "partition":
            a, b = target.split("|")
            self.world.network.partition([a], [b])
        elif kind == "drop":
            self.world.network.drop_probability = window.amount
        elif kind == "delay":
            self.world.network.delay(int(window.amount))
        elif kind == "consumer-crash":
            self.crash_consumer(target)
        elif kind == "consumer-leave":
            self.leave_consumer(target)
        elif kind == "consumer-join":
            group = next(g for g in self.workload.groups if target.startswith(g.name + "-"))
            try:
                self.start_consumer(group)
            except Exception as exc:  # e.g. no name server to ask for routes: start() fails, as Java's does
                self._fault(kind, "failed", type(exc).__name__)
        elif kind == "disk-full":
            path = self.cluster.brokers[0].controller.message_store_config.store_path_commit_log
            self.world.disk.fill_to_ratio(path, 0.96)

    def _undo(self, window: FaultWindow) -> None:
        kind, target = window.kind, window.target
        if kind in ("broker-crash", "power-loss", "master-crash", "slave-crash"):
            self.restart_broker(target)  # a lost master's machine stays down
        elif kind == "master-loss":
            return  # not undone: the run goes on without the master
        elif kind == "namesrv-loss":
            self.restart_namesrv()
        elif kind in ("partition", "master-slave-partition"):
            self.world.network.heal()
        elif kind == "drop":
            self.world.network.drop_probability = 0.0
        elif kind == "delay":
            self.world.network.delay(0)
        elif kind == "disk-full":
            self.world.disk.other_used_bytes = 0
        else:
            return  # consumer faults are not undone here; the quiet phase makes sure every group has a member
        self._fault(kind, "stop", target)

    def _schedule_nemesis(self) -> None:
        for window in self.windows:
            self.world.schedule(window.start_ms, lambda w=window: self._apply(w), name="nemesis")
            self.world.schedule(window.start_ms + window.duration_ms, lambda w=window: self._undo(w), name="nemesis")

    # -- sends -----------------------------------------------------------------------------------------------
    def _send_transactional(self, number: int) -> int:
        """Send ``m<number>`` in a transaction; only a commit the producer decided counts as acknowledged.

        A rollback is recorded as ``failed`` (it must never be consumed), an UNKNOW as ``unknown`` until the broker's
        check asks and the listener commits it, which the listener records as an acknowledged send.
        """
        key = f"m{number}"
        try:
            result = self.producer.send_message_in_transaction(Message(TOPIC, "TagA", key, key.encode()), None)
        except Exception as exc:  # the half message was not stored
            self._record_send(key, "transaction", None, exc)
            return 1
        state = result.local_transaction_state
        mode = f"transaction-{state.name.lower() if state is not None else 'none'}"
        if state is LocalTransactionState.COMMIT_MESSAGE:
            self._record_send(key, mode, result, None)
        elif state is LocalTransactionState.ROLLBACK_MESSAGE or result.send_status is not SendStatus.SEND_OK:
            self._record_send(key, mode, None, MQBrokerException(0, "rolled back"))
        else:
            self._record_send(key, mode, None, TimeoutError("UNKNOW"))
        return 1

    def _transaction_listener(self) -> Any:
        run = self

        class Listener:
            def execute_local_transaction(self, msg: Message, arg: Any) -> LocalTransactionState:
                return _DECISION[int((msg.body or b"m0").decode()[1:]) % 3]

            def check_local_transaction(self, msg: Any) -> LocalTransactionState:
                # the UNKNOW ones commit now: acknowledged from here on (a second check of one key adds nothing)
                key = msg.body.decode()
                if not any(s.key == key and s.outcome == "ok" for s in run.history.sends):
                    run.history.sends.append(
                        SendRecord(
                            run.history.next_seq(), run.world.now_ms(), key, "transaction-check", "ok",
                            msg.broker_name if hasattr(msg, "broker_name") else None, msg.queue_id, None, 0,
                            "COMMIT_MESSAGE",
                        )
                    )  # fmt: skip
                return LocalTransactionState.COMMIT_MESSAGE

        return Listener()

    def _send_one(self, number: int) -> int:
        """Send message ``m<number>`` (or a batch starting there) in a mode drawn from the seed; returns how many."""
        spec = self.workload
        if spec.transactions:
            return self._send_transactional(number)
        mode = self.rng.choice(spec.send_modes)
        key = f"m{number}"
        msg = Message(TOPIC, "TagA", key, key.encode())
        delay = 1 if spec.delayed_every and number % spec.delayed_every == spec.delayed_every - 1 else 0
        try:
            if spec.order_keys:
                # three consecutive messages share a key, so a queue receives bursts its consumer must keep in order
                result = self.producer.send(msg, _ByKey(), number // 3 % spec.order_keys)
                self._record_send(key, "sync-ordered", result, None)
            elif delay and mode != "batch":
                msg.set_delay_time_level(delay)
                self._record_send(key, "sync-delayed", self.producer.send(msg), None, delay)
            elif mode == "batch":
                keys = [f"m{number + i}" for i in range(3)]
                msgs = [Message(TOPIC, "TagA", k, k.encode()) for k in keys]
                self._record_send(",".join(keys), "batch", self.producer.send(msgs), None)
                return 3
            elif mode == "async":
                self.producer.send_async(msg, _Callback(self, key))
            elif mode == "oneway":
                self.producer.send_oneway(msg)
                self._record_send(key, "oneway", None, TimeoutError("oneway"))
            else:
                self._record_send(key, "sync", self.producer.send(msg), None)
        except Exception as exc:  # the client's own errors are an outcome, recorded as such
            keys = [f"m{number + i}" for i in range(3)] if mode == "batch" and not delay else [key]
            self._record_send(",".join(keys), mode, None, exc)
            return len(keys)
        return 1

    # -- the run ---------------------------------------------------------------------------------------------
    def execute(self) -> History:
        """Run the whole schedule and return the history (the checker is applied by ``run_seed``)."""
        spec, world = self.workload, self.world
        self.cluster.start()
        for node in self.cluster.brokers:
            self._hook_commits(node)
        settings: dict[str, Any] = {"send_msg_timeout": HA_SEND_TIMEOUT_MS} if spec.roles else {}
        if spec.transactions:
            settings["transaction_listener"] = self._transaction_listener()
        self.producer = (TransactionMQProducer if spec.transactions else DefaultMQProducer)(
            "ChaosProducer",
            self.cluster.client_runtime("producer"),
            namesrv_addr=self.cluster.namesrv_addr,
            **settings,
        )
        self.producer.start()
        self.producer.create_topic("TBW102", TOPIC, spec.queues)
        world.run_for(100)
        if spec.roles:
            self._warm_up_replication()
        for group in spec.groups:
            for _ in range(group.instances):
                self.start_consumer(group)
        world.run_for(SETTLE_MS)
        start = world.now_ms()
        self._schedule_nemesis()
        interval = max(spec.send_phase_ms // spec.messages, 1)
        number = 0
        while number < spec.messages:
            world.run_until(lambda: False, timeout_ms=max(start + number * interval - world.now_ms(), 0))
            number += self._send_one(number)
        world.run_for(max(start + spec.send_phase_ms + 6000 - world.now_ms(), 0))  # every window has closed
        self._heal_everything()
        quiet_end = world.now_ms() + spec.quiet_ms
        world.run_for(MIN_QUIET_MS)
        while world.now_ms() < quiet_end and not self.settled():
            world.run_for(1000)
        self._collect_dlq()
        self._collect_replicas()
        self._collect_routes()
        self.history.events_run = world.events_run
        self.history.virtual_ms = world.now_ms() - world.start_ms
        return self.history

    def _warm_up_replication(self) -> None:
        """Replicate one message (on its own topic) to every slave before the first send.

        The simulator's partitions and drops lose frames of a live HA connection, which TCP would not; a slave can
        only notice such a loss once its CommitLog is not empty (HA-5). Replication also starts only at the slave's
        first heartbeat, up to 5 s after it connected (HA-4).

        Raises:
            RuntimeError: a slave did not catch up within 30 s.
        """
        self.producer.create_topic("TBW102", WARMUP_TOPIC, 1)
        self.world.run_for(100)
        self.producer.send(Message(WARMUP_TOPIC, "TagA", "warm-up", b"warm-up"))
        for master in self.masters:
            store = master.controller.message_store
            slave = self._node(self.slave_of[master.name]).controller.message_store

            def caught_up(slave: Any = slave, store: Any = store) -> bool:
                return slave.get_max_phy_offset() == store.get_max_phy_offset() > 0

            if not self.world.run_until(caught_up, 30_000):
                raise RuntimeError(f"the slave of {master.name} did not replicate the warm-up message in 30 s")

    def settled(self) -> bool:
        """Whether every acknowledged message was consumed (or failed often enough for %DLQ%) wherever it must be.

        A send a SYNC_MASTER answered FLUSH_SLAVE_TIMEOUT or SLAVE_NOT_AVAILABLE is stored on the master: it counts
        as acknowledged unless that master's machine was lost.
        """
        acked = {s.key for s in self.history.sends if s.outcome == "ok"}
        if {s.key for s in self.history.sends if s.mode == "transaction-unknow"} - acked:
            return False  # an UNKNOW transaction the broker's check has not asked about yet
        acked |= {
            s.key for s in self.history.sends if s.detail in REPLICATED_STATUSES and s.broker not in self._lost_machines
        }
        acked -= self._lost_with_master()
        done: dict[tuple[str, str], set[str]] = {}
        # Failed attempts by their reconsume count: a second %RETRY% copy of one attempt (a delayed retry delivered
        # again by a restarted broker, or a send-back whose answer was lost and that the client re-sent itself) is
        # the same attempt, and the message still has its later retries to come.
        attempts: dict[tuple[str, str], set[int]] = {}
        for d in self.history.deliveries:
            who = d.instance if self.history.groups[d.group]["broadcasting"] else ""
            if d.status == "success":
                done.setdefault((d.group, who), set()).add(d.key)
            else:
                attempts.setdefault((d.group, d.key), set()).add(d.reconsume_times)
        failures = {k: len(v) for k, v in attempts.items()}
        for group in self.workload.groups:
            members = [i.name for i in self.instances if i.group is group] if group.broadcasting else [""]
            for who in members:
                consumed = done.get((group.name, who), set())
                pending = [
                    k
                    for k in acked
                    if k not in consumed and failures.get((group.name, k), 0) <= group.max_reconsume_times
                ]
                if pending:
                    return False
        return True

    def _lost_with_master(self) -> set[str]:
        """Keys sent to a master whose machine was lost and that its slave never received: nobody can deliver them.

        Only the end of the run depends on this; the checker decides whether such a loss was allowed (ASYNC_MASTER)
        or breaks a guarantee (SYNC_MASTER).
        """
        lost: set[str] = set()
        for master in sorted(self._lost_machines):
            store = self._node(self.slave_of[master]).controller.message_store
            on_slave = {msg.body.decode() for msg in _stored_messages(store, TOPIC, self.workload.queues)}
            lost |= {s.key for s in self.history.sends if s.broker == master and s.key not in on_slave}
        return lost

    def _heal_everything(self) -> None:
        world = self.world
        world.network.heal()
        world.network.drop_probability = 0.0
        world.network.delay(0)
        world.disk.other_used_bytes = 0
        self.restart_namesrv()
        for name in sorted(self._down_brokers):
            self.restart_broker(name)
        for group in self.workload.groups:
            if not any(i.alive and i.group is group for i in self.instances):
                self.start_consumer(group)

    def _collect_dlq(self) -> None:
        # One copy per broker name: the master's, or its slave's when the master's machine was lost.
        readers = [self._node(self.slave_of[n.name]) if n.name in self._lost_machines else n for n in self.masters]
        for group in self.workload.groups:
            topic = f"%DLQ%{group.name}"
            for node in readers:
                config = node.controller.topic_config_manager.select_topic_config(topic)
                if config is None:
                    continue
                for msg in _stored_messages(node.controller.message_store, topic, config.write_queue_nums):
                    self.history.dlq.append(
                        DlqRecord(
                            self.history.next_seq(),
                            msg.store_timestamp - self.world.start_ms,
                            group.name,
                            msg.body.decode(),
                            node.controller.broker_config.broker_name,
                            msg.reconsume_times,
                        )
                    )

    def _collect_replicas(self) -> None:
        """The keys of the workload's messages in each slave's store, by broker name."""
        for broker, slave in sorted(self.slave_of.items()):
            store = self._node(slave).controller.message_store
            keys = {msg.body.decode() for msg in _stored_messages(store, TOPIC, self.workload.queues)}
            self.history.replicas[broker] = sorted(keys, key=lambda k: int(k[1:]))

    def _routed_brokers(self) -> list[str]:
        """The broker names the name server routes the workload's topic to now (Java: pickupTopicRouteData)."""
        if not self.world.network.is_alive("namesrv"):
            return []
        route = self.cluster.namesrv.route_info_manager.pickup_topic_route_data(TOPIC)
        return sorted({q.broker_name for q in route.queue_datas}) if route is not None else []

    def _collect_routes(self) -> None:
        """Which broker names still have a route at the end (the checker's ``unroutable-on-slave`` needs it)."""
        self.history.routed = self._routed_brokers()

    def shutdown(self) -> None:
        """Stop every client and server still running (the stores are thrown away with the root)."""
        for instance in self.instances:
            if instance.alive:
                instance.consumer.shutdown()
        self.producer.shutdown()
        for node in self.cluster.brokers:
            if node.name not in self._down_brokers:
                node.controller.shutdown()
        self.cluster.namesrv.shutdown()


def _stored_messages(store: Any, topic: str, queues: int) -> Iterator[Any]:
    """Every message of ``topic`` a store's ConsumeQueues point at, queue by queue."""
    for queue_id in range(queues):
        low = store.get_min_offset_in_queue(topic, queue_id)
        for offset in range(low, store.get_max_offset_in_queue(topic, queue_id)):
            msg = store.look_message_by_offset(store.get_commit_log_offset_in_queue(topic, queue_id, offset))
            if msg is not None:
                yield msg


class _ByKey:
    """A MessageQueueSelector putting the messages of one order key on one queue (Java: SelectMessageQueueByHash)."""

    def select(self, mqs: list[Any], msg: Any, arg: Any) -> Any:
        return mqs[int(arg) % len(mqs)]


@contextmanager
def _run_root(root: Path | None) -> Iterator[Path]:
    if root is not None:
        # Emptied only if it holds nothing but an earlier run's stores (HARD-11); kept afterwards for a look.
        yield claim_directory(root, replace=True, layout=CHAOS_LAYOUT, advice="give run_seed a new or empty root")
        return
    path = Path(tempfile.mkdtemp(prefix="mqlab-chaos-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)  # the temporary directory made just above, with all in it


def run_seed(
    seed: int,
    workload: str,
    faults: str,
    *,
    broken: str | None = None,
    root: Path | None = None,
    max_faults: int = 3,
    keep_run: bool = False,
) -> tuple[History, Any]:
    """Run one seed and check it: returns ``(history, verdict)`` (plus the ``ChaosRun`` as ``verdict.run`` if kept).

    Args:
        seed: fixes the cluster, the workload's choices and the fault schedule.
        workload: a name of ``WORKLOADS``.
        faults: a profile name of ``mqlab.chaos.nemesis.PROFILES``.
        broken: a deliberately broken engine variant (``mqlab.chaos.broken.VARIANTS``), for testing the checker.
        root: where the stores live (a temporary directory, removed afterwards, by default).
        max_faults: at most this many fault windows.
        keep_run: keep the run (its world and trace) on the verdict, for ``replay``.

    Raises:
        ValueError: an unknown workload, profile or variant.
    """
    from mqlab.chaos.checker import check_history

    if workload not in WORKLOADS:
        raise ValueError(f"unknown workload {workload!r}; known: {', '.join(WORKLOADS)}")
    with broken_variants.variant(broken), _run_root(root) as path:
        run = ChaosRun(seed, WORKLOADS[workload], faults, path, max_faults=max_faults)
        if not keep_run:
            run.world.trace.enabled = False  # the trace is for replays; campaigns only need the history
        try:
            history = run.execute()
        finally:
            if hasattr(run, "producer"):
                run.shutdown()
    verdict = check_history(history, broken=broken)
    verdict.windows = [w.describe() for w in run.windows]
    if keep_run:
        verdict.run = run
    return history, verdict

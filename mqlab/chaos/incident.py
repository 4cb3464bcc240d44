"""Incident runs: a chaos run with a hand-written fault schedule and the client and store settings of a report.

Java: none (teaching helper). The incident notebooks reproduce a reported RocketMQ problem with the harness the
campaigns use (``ChaosRun``: real producers, push consumers, brokers and stores in the simulator, graded by the
checker), but a report names its own conditions: a producer with ``sendLatencyFaultEnable`` or a shorter
``sendMsgTimeout``, a consumer group with another ``consumeFromWhere``, a store with small ConsumeQueue files, one
slow broker. ``IncidentRun`` adds exactly those knobs and nothing else:

* ``schedule``: the fault windows, written by hand instead of drawn from the seed (``FaultWindow`` times are ms
  after the send phase began, as in a campaign).
* ``producer_settings``: ``DefaultMQProducer`` fields (``send_msg_timeout``, ``retry_times_when_send_failed`` ...)
  plus ``send_latency_fault_enable``, ``latency_max`` and ``not_available_duration`` (MQFaultStrategy's), applied
  to the run's producer before it starts.
* ``consumer_settings``: per group, ``DefaultMQPushConsumer`` fields (``consume_from_where`` ...), applied to each
  instance of the group before it starts (so before its first rebalance).
* ``store_settings``: per broker, ``MessageStoreConfig`` fields applied before the broker's store is created.
* the fault kind ``slow-node``: every frame to or from ``target`` takes ``amount`` ms more, until the window ends
  (the campaign's ``delay`` slows every node at once).
* ``inspect``: a function ``inspect(run, phase, broker)`` called while a broker is down and again once it is back,
  its return values kept in ``inspections``. Phase ``"crashed"``: right after the crash (the store's files are
  closed and hold what survived, nothing has recovered them yet); phase ``"recovered"``: right after the new
  process loaded and recovered the store, before it starts serving. A report about what a crash leaves on disk
  needs the first; the second shows what recovery made of it.

A group whose ``GroupSpec.instances`` is 0 has no member when the sends begin; a ``consumer-join`` window starts
its first instance later (a brand-new group subscribing to a topic that already holds messages).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mqlab.chaos.checker import Verdict, check_history
from mqlab.chaos.history import History
from mqlab.chaos.nemesis import FaultWindow
from mqlab.chaos.workload import ChaosRun, GroupSpec, _Instance
from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.cluster import BrokerNode

# Producer settings that live on MQFaultStrategy rather than on the producer's config.
FAULT_STRATEGY_SETTINGS = ("send_latency_fault_enable", "latency_max", "not_available_duration")


class UnknownSettingError(ValueError):
    """A setting names no field of the object it is meant for."""


def _apply_settings(target: Any, settings: dict[str, Any], where: str) -> None:
    for name, value in settings.items():
        if not hasattr(target, name):
            raise UnknownSettingError(f"{where} has no setting {name!r}")
        setattr(target, name, value)


INSPECTION_PHASES = ("crashed", "recovered")


@dataclass(frozen=True, slots=True)
class Inspection:
    """What ``IncidentRun.inspect`` returned for one broker at one phase of a crash (see the module docstring)."""

    time_ms: int
    phase: str  # one of INSPECTION_PHASES
    broker: str
    value: Any


@dataclass
class IncidentRun(ChaosRun):
    """A ``ChaosRun`` with a fixed fault schedule and the settings of one incident (see the module docstring).

    Raises:
        UnknownSettingError: a setting that names no field (of the producer, a consumer, a store config), or a
            store setting for a broker the run does not have, found when the run is built or the client created.
    """

    schedule: list[FaultWindow] = field(default_factory=list)
    producer_settings: dict[str, Any] = field(default_factory=dict)
    consumer_settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    store_settings: dict[str, dict[str, Any]] = field(default_factory=dict)
    inspect: Callable[[IncidentRun, str, str], Any] | None = None
    inspections: list[Inspection] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.windows = list(self.schedule)
        self._recovering: set[str] = set()
        brokers = {node.name: node for node in self.cluster.brokers}
        for name, settings in self.store_settings.items():
            if name not in brokers:
                raise UnknownSettingError(f"store settings for {name!r}, but the run's brokers are {sorted(brokers)}")
            _apply_settings(brokers[name].controller.message_store_config, settings, f"the store config of {name}")

    # ChaosRun.execute creates the producer and starts it on the next line: the setter is the seam where the
    # incident's settings reach it first.
    @property
    def producer(self) -> DefaultMQProducer:
        """The run's producer (set by ``execute``)."""
        try:
            return self._producer
        except AttributeError:
            raise AttributeError("the run has no producer before execute()") from None

    @producer.setter
    def producer(self, producer: DefaultMQProducer) -> None:
        plain = {k: v for k, v in self.producer_settings.items() if k not in FAULT_STRATEGY_SETTINGS}
        _apply_settings(producer, plain, "DefaultMQProducer")
        strategy = producer.default_mq_producer_impl.mq_fault_strategy
        for name in FAULT_STRATEGY_SETTINGS:
            if name in self.producer_settings:
                value = self.producer_settings[name]
                setattr(strategy, name, list(value) if isinstance(value, (list, tuple)) else value)
        self._producer = producer

    def start_consumer(self, group: GroupSpec) -> _Instance:
        """A new instance of ``group``, with the group's incident settings applied before it starts.

        They must be in place before ``DefaultMQPushConsumer#start``: its synchronous requests let the simulation
        run, and the first rebalance (``computePullFromWhere`` reads ``consume_from_where``) may happen inside it.
        ``ChaosRun.start_consumer`` builds and starts the consumer in one call, so ``start`` is wrapped for the
        duration of that call (the seam ``mqlab.chaos.broken`` uses) and the original is put back afterwards.
        """
        settings = self.consumer_settings.get(group.name)
        if not settings:
            return super().start_consumer(group)
        original = DefaultMQPushConsumer.start

        def start(consumer: DefaultMQPushConsumer) -> None:
            if consumer.consumer_group == group.name:
                _apply_settings(consumer, settings, f"consumer group {group.name}")
            original(consumer)

        DefaultMQPushConsumer.start = start  # type: ignore[method-assign]
        try:
            return super().start_consumer(group)
        finally:
            DefaultMQPushConsumer.start = original  # type: ignore[method-assign]

    def _inspect(self, phase: str, broker: str) -> None:
        if self.inspect is not None:
            value = self.inspect(self, phase, broker)
            self.inspections.append(Inspection(self.world.now_ms(), phase, broker, value))

    def crash_broker(self, name: str, *, power_loss: bool) -> None:
        """``ChaosRun.crash_broker``, then the ``"crashed"`` inspection (not for a broker that is already down)."""
        already_down = name in self._down_brokers
        super().crash_broker(name, power_loss=power_loss)
        if not already_down:
            self._inspect("crashed", name)

    def restart_broker(self, name: str) -> None:
        """``ChaosRun.restart_broker`` with the ``"recovered"`` inspection between recovery and start.

        ``ChaosRun.restart_broker`` builds the new process, initializes it (load and recovery), calls
        ``_hook_commits`` and only then starts it: ``_hook_commits`` is the seam where the recovered store can be
        seen before the broker serves anything.
        """
        self._recovering.add(name)
        try:
            super().restart_broker(name)
        finally:
            self._recovering.discard(name)

    def _hook_commits(self, node: BrokerNode) -> None:
        super()._hook_commits(node)
        if node.name in self._recovering:
            self._inspect("recovered", node.name)

    def _apply(self, window: FaultWindow) -> None:
        if window.kind != "slow-node":
            super()._apply(window)
            return
        self._fault(window.kind, "start", window.target)
        self.world.network.delay(int(window.amount), nodes=[window.target])

    def _undo(self, window: FaultWindow) -> None:
        if window.kind != "slow-node":
            super()._undo(window)
            return
        self.world.network.delay(0, nodes=[window.target])
        self._fault(window.kind, "stop", window.target)


def run_incident(run: IncidentRun) -> tuple[History, Verdict]:
    """Execute ``run``, stop its clients and servers, and grade the history with the chaos checker."""
    try:
        history = run.execute()
    finally:
        if hasattr(run, "_producer"):
            run.shutdown()
    verdict = check_history(history)
    verdict.windows = [w.describe() for w in run.windows]
    return history, verdict

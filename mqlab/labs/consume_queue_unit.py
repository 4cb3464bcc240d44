"""Lab ``consume_queue_unit``: the 20-byte ConsumeQueue unit reput writes for a record, tags code included.

The reader writes ``consume_queue_unit(commit_log_offset, size, topic, properties, store_timestamp, delay_millis)``:
the unit's bytes, whose tags code is the hash of ``TAGS``, or, for a delayed message parked in
``SCHEDULE_TOPIC_XXXX``, the time it is due. ``LabBuildConsumeQueue`` is a CommitLog dispatcher (Java:
``CommitLogDispatcher``) that reads the three fields back from the reader's bytes and hands them to the store's
``put_message_position_info``; it takes the place of ``CommitLogDispatcherBuildConsumeQueue`` in the store's
``dispatcher_list`` (Java: ``DefaultMessageStore#getDispatcherList``, the registry plugins add dispatchers to).

The scenario runs a broker whose units all come from the reader's function: a consumer filters by tags (the broker
compares tags codes), delayed messages wait for the deliver time their unit carries, and after the broker stops its
ConsumeQueues are deleted and rebuilt from the CommitLog by recovery, once by mqlab and once by the reader.

Java: none (teaching layer); the function stands for the tags-code part of CommitLog#checkMessageAndReturnSize and
the unit ConsumeQueue#putMessagePositionInfo writes.
"""

from __future__ import annotations

import dataclasses
import shutil
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.cluster import Cluster
from mqlab.common.extras import needs_extra
from mqlab.common.jdk.string_hash import java_string_hash
from mqlab.common.message import message_const as mc
from mqlab.common.message.message import Message
from mqlab.common.message.message_decoder import message_properties2string
from mqlab.common.topic.topic_validator import RMQ_SYS_SCHEDULE_TOPIC
from mqlab.labs import scenario_support as sim
from mqlab.labs.guard import function_raised
from mqlab.labs.lab import Lab, Property, Scenario, ScenarioCheck, Verdict
from mqlab.labs.store_support import DEFAULT_DELAY_MILLIS, DelayLevels, reference_commit_log
from mqlab.store.commit_log import CommitLog
from mqlab.store.commit_log_dispatcher_build_consume_queue import CommitLogDispatcherBuildConsumeQueue
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.consume_queue import CQ_STORE_UNIT_SIZE, UNIT, ConsumeQueue
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.dispatch_request import DispatchRequest
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner

with needs_extra("labs", __name__):
    from hypothesis import strategies as st

TOPIC = "LabTagsTopic"
GROUP = "LabTagsGroup"


def reference(
    commit_log_offset: int,
    size: int,
    topic: str,
    properties: dict[str, str],
    store_timestamp: int,
    delay_millis: list[int],
) -> bytes:
    """The unit mqlab writes for this record: the tags code CommitLog#checkMessageAndReturnSize picks, packed."""
    commit_log = reference_commit_log()
    commit_log.schedule_message_service = DelayLevels(delay_millis)
    properties_bytes = message_properties2string(properties).encode("utf-8")
    request = commit_log._dispatch_request(
        size, topic, 0, commit_log_offset, store_timestamp, 0, 0, 0, properties_bytes
    )
    return UNIT.pack(commit_log_offset, size, request.tags_code)


def delay_millis_of(store: DefaultMessageStore) -> list[int]:
    """The store's delay levels as the lab's list (empty while the levels are not parsed yet, as during recovery)."""
    service = store.schedule_message_service
    return [service.delay_level_table.get(level, 1000) for level in range(1, service.get_max_delay_level() + 1)]


@dataclass(slots=True)
class UnitLog:
    """The records the reader's function was asked about, and what it raised."""

    calls: int = 0
    errors: list[BaseException] = field(default_factory=list)


class LabBuildConsumeQueue(CommitLogDispatcherBuildConsumeQueue):
    """The ConsumeQueue dispatcher, with each unit made by the reader's function.

    Args:
        store: the store whose ``put_message_position_info`` writes the unit and whose delay levels are passed on.
        function: the lab's function.
        log: counts the calls.
    """

    def __init__(self, store: DefaultMessageStore, function: Callable[..., Any], log: UnitLog):
        super().__init__(store.put_message_position_info)
        self.store, self.function, self.log = store, function, log

    def put_unit(self, request: DispatchRequest) -> None:
        """Write the unit the reader's function makes for ``request``'s record."""
        try:
            unit = self.function(
                request.commit_log_offset,
                request.msg_size,
                request.topic,
                dict(request.properties_map or {}),
                request.store_timestamp,
                delay_millis_of(self.store),
            )
            offset, size, tags_code = UNIT.unpack(bytes(unit))
        except Exception as exc:
            self.log.errors.append(exc)
            raise
        self.log.calls += 1
        self.store.put_message_position_info(
            dataclasses.replace(request, commit_log_offset=offset, msg_size=size, tags_code=tags_code)
        )

    def dispatch(self, request: DispatchRequest) -> None:
        """Normal and committed messages get a unit. Java: CommitLogDispatcherBuildConsumeQueue#dispatch."""
        self.put_message_position_info = self.put_unit
        super().dispatch(request)


def install(store: DefaultMessageStore, function: Callable[..., Any], log: UnitLog) -> None:
    """Put the lab's dispatcher in place of the store's ConsumeQueue dispatcher (the first of ``dispatcher_list``)."""
    for index, dispatcher in enumerate(store.dispatcher_list):
        if type(dispatcher) is CommitLogDispatcherBuildConsumeQueue:
            store.dispatcher_list[index] = LabBuildConsumeQueue(store, function, log)
            return
    raise RuntimeError("the store has no CommitLogDispatcherBuildConsumeQueue to replace")


# -- inputs --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Record:
    """A dispatched record as the function sees it."""

    commit_log_offset: int
    size: int
    topic: str
    properties: tuple[tuple[str, str], ...]
    store_timestamp: int
    delay_millis: tuple[int, ...]

    def args(self) -> tuple[Any, ...]:
        """The arguments of the lab's function."""
        return (
            self.commit_log_offset,
            self.size,
            self.topic,
            dict(self.properties),
            self.store_timestamp,
            list(self.delay_millis),
        )

    def __str__(self) -> str:
        levels = "the default 18 levels" if self.delay_millis == DEFAULT_DELAY_MILLIS else list(self.delay_millis)
        return (
            f"commit_log_offset={self.commit_log_offset}, size={self.size}, topic={self.topic!r}, "
            f"properties={dict(self.properties)!r}, store_timestamp={self.store_timestamp}, delay_millis={levels}"
        )


_text = st.characters(blacklist_categories=("Cs", "Cc"))
tags_values = st.one_of(st.sampled_from(["TagA", "TagB", "*", "标签", "😀"]), st.text(_text, min_size=1, max_size=8))
delay_lists = st.one_of(
    st.just(DEFAULT_DELAY_MILLIS),
    st.just(()),
    st.lists(st.integers(1, 10_000), min_size=1, max_size=5).map(tuple),
)


@st.composite
def records(draw: st.DrawFn, *, schedule: bool | None = None, tagged: bool | None = None, delay: str = "any") -> Record:
    """A record; ``schedule`` picks SCHEDULE_TOPIC_XXXX, ``delay`` is "any", "due" (> 0, levels known) or "none"."""
    on_schedule = draw(st.booleans()) if schedule is None else schedule
    topic = RMQ_SYS_SCHEDULE_TOPIC if on_schedule else draw(st.sampled_from(["TopicTest", "%RETRY%Group", "LabTopic"]))
    properties: dict[str, str] = {}
    has_tags = draw(st.booleans()) if tagged is None else tagged
    if has_tags:
        properties[mc.PROPERTY_TAGS] = draw(tags_values)
    delays = draw(delay_lists)
    if delay == "due":
        delays = delays or DEFAULT_DELAY_MILLIS
        properties[mc.PROPERTY_DELAY_TIME_LEVEL] = str(draw(st.integers(1, 25)))
    elif delay == "any" and draw(st.booleans()):
        properties[mc.PROPERTY_DELAY_TIME_LEVEL] = str(draw(st.integers(-2, 25)))
    elif delay == "none" and draw(st.booleans()):
        properties[mc.PROPERTY_DELAY_TIME_LEVEL] = str(draw(st.integers(-2, 0)))
    if draw(st.booleans()):
        properties[mc.PROPERTY_KEYS] = "OrderID188"
    offset = draw(st.one_of(st.integers(0, 1 << 32), st.integers(0, (1 << 63) - 1)))
    size = draw(st.integers(1, 4 * 1024 * 1024))
    store_timestamp = draw(st.integers(1_600_000_000_000, 1_800_000_000_000))
    return Record(offset, size, topic, tuple(properties.items()), store_timestamp, tuple(delays))


def _unit(function: Callable[..., Any], record: Record) -> tuple[bytes | None, Verdict]:
    unit = function(*record.args())
    if not isinstance(unit, bytes | bytearray):
        return None, f"returned {type(unit).__name__} {unit!r}, not bytes"
    if len(unit) != CQ_STORE_UNIT_SIZE:
        return None, f"returned {len(unit)} bytes: {bytes(unit).hex()}"
    return bytes(unit), None


def check_twenty_bytes(function: Callable[..., Any], record: Record) -> Verdict:
    """The unit is 20 bytes."""
    return _unit(function, record)[1]


def check_offset_and_size(function: Callable[..., Any], record: Record) -> Verdict:
    """Bytes 0-7 are the offset, bytes 8-11 the size, big-endian."""
    unit, problem = _unit(function, record)
    if problem:
        return problem
    got = struct.unpack_from(">qi", unit)
    if got != (record.commit_log_offset, record.size):
        return f"bytes 0-11 read big-endian give offset {got[0]}, size {got[1]}; unit {unit.hex()}"
    return None


def _tags_code(unit: bytes) -> int:
    return struct.unpack_from(">q", unit, 12)[0]


def _hash_of_tags(record: Record) -> int:
    tags = dict(record.properties).get(mc.PROPERTY_TAGS)
    return java_string_hash(tags) if tags else 0


def check_tags_hash(function: Callable[..., Any], record: Record) -> Verdict:
    """Outside SCHEDULE_TOPIC_XXXX the tags code is String#hashCode of TAGS, sign-extended, or 0 without TAGS."""
    unit, problem = _unit(function, record)
    if problem:
        return problem
    got, expected = _tags_code(unit), _hash_of_tags(record)
    return None if got == expected else f"tags code {got} (bytes 12-19 {unit[12:].hex()}), expected {expected}"


def check_deliver_time(function: Callable[..., Any], record: Record) -> Verdict:
    """A due delayed message's tags code is storeTimestamp + the delay of min(DELAY, the highest level)."""
    unit, problem = _unit(function, record)
    if problem:
        return problem
    level = min(int(dict(record.properties)[mc.PROPERTY_DELAY_TIME_LEVEL]), len(record.delay_millis))
    expected = record.store_timestamp + record.delay_millis[level - 1]
    got = _tags_code(unit)
    return None if got == expected else f"tags code {got}, expected the deliver time {expected} (level {level})"


def check_schedule_without_delay(function: Callable[..., Any], record: Record) -> Verdict:
    """In SCHEDULE_TOPIC_XXXX a record with no DELAY above 0 keeps the hash of TAGS."""
    return check_tags_hash(function, record)


def check_same_as_mqlab(function: Callable[..., Any], record: Record) -> Verdict:
    """Byte for byte mqlab's unit."""
    unit, problem = _unit(function, record)
    if problem:
        return problem
    expected = reference(*record.args())
    return None if unit == expected else f"returned {unit.hex()}, mqlab writes {expected.hex()}"


# -- the scenario --------------------------------------------------------------------------------------------------
SENT_TAGS = ("TagA", "TagB", "标签", "😀", None)
SUBSCRIPTION = "TagA || 标签 || 😀"


def scenario(function: Callable[..., Any]) -> list[ScenarioCheck]:
    """A broker whose units come from the reader's function; then its ConsumeQueues are rebuilt by recovery."""
    checks: list[ScenarioCheck] = []
    log = UnitLog()
    with sim.temporary_directory() as root:
        cluster = Cluster.simulated(root / "cluster", seed=41, store_settings=sim.STORE_SETTINGS).start()
        try:
            checks += _broker_part(cluster, function, log)
        finally:
            cluster.shutdown()
        checks.append(_rebuild_part(root, cluster, function, log))
    checks.append(
        ScenarioCheck(
            "reput and recovery called your function and it never raised",
            log.calls > 0 and not log.errors,
            function_raised(log.errors[0]) if log.errors else f"{log.calls} units",
        )
    )
    return checks


def _broker_part(cluster: Cluster, function: Callable[..., Any], log: UnitLog) -> list[ScenarioCheck]:
    world, broker = cluster.world, cluster.broker()
    install(broker.message_store, function, log)
    producer = sim.start_producer(cluster)
    producer.create_topic("TBW102", TOPIC, 2)
    world.run_for(100)
    received: dict[str, int] = {}

    def listener(msgs, context):
        for msg in msgs:
            received.setdefault(msg.body.decode(), world.now_ms())
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    consumer = sim.start_push_consumer(cluster, "consumer", GROUP, TOPIC, listener, subscription=SUBSCRIPTION)
    world.run_for(3000)
    sent: dict[str, tuple[str | None, int, int]] = {}  # body -> (tags, delay level, time sent)
    for i in range(30):
        tags, level = SENT_TAGS[i % len(SENT_TAGS)], (0, 0, 1, 2)[i % 4]
        body = f"{tags}-{i}"
        message = Message(TOPIC, tags, f"key-{i}", body.encode())
        if level:
            message.set_delay_time_level(level)
        producer.send(message)
        sent[body] = (tags, level, world.now_ms())
    world.run_for(8000)
    wanted = {body for body, (tags, _level, _at) in sent.items() if tags in SUBSCRIPTION.split(" || ")}
    missing, extra = sorted(wanted - received.keys()), sorted(received.keys() - wanted)
    checks = [
        ScenarioCheck(
            f"a consumer subscribed to {SUBSCRIPTION!r} gets exactly those messages (the broker filters by tags code)",
            not missing and not extra,
            f"missing: {missing[:5]}; unexpected: {extra[:5]}",
        )
    ]
    early, late = [], []
    for body, (_tags, level, at) in sent.items():
        if level and body in received:
            waited, delay = received[body] - at, DEFAULT_DELAY_MILLIS[level - 1]
            if waited < delay - 50:
                early.append(f"{body} after {waited} ms (level {level}: {delay} ms)")
            elif waited > delay + 1500:
                late.append(f"{body} after {waited} ms (level {level}: {delay} ms)")
    checks.append(
        ScenarioCheck(
            "delayed messages arrive when the deliver time in their unit says, not before",
            not early and not late,
            "; ".join((early + late)[:4]),
        )
    )
    problems = [str(p) for report in cluster.verify_stores().values() for p in report.problems]
    checks.append(
        ScenarioCheck(
            "the store verifier finds every unit consistent with its record", not problems, "\n".join(problems[:5])
        )
    )
    consumer.shutdown()
    producer.shutdown()
    return checks


def _rebuild_part(root: Path, cluster: Cluster, function: Callable[..., Any], log: UnitLog) -> ScenarioCheck:
    """Both rebuilds start from the stopped broker's CommitLog, without ConsumeQueues, after a crash (abort file)."""
    node = cluster.brokers[0]
    built = {}
    for who in ("mqlab", "yours"):
        store_root = root / f"rebuilt-by-{who}"
        shutil.copytree(node.store_root, store_root)
        shutil.rmtree(store_root / "consumequeue")
        (store_root / "abort").touch()
        runtime = cluster.world.runtime(f"rebuild-{who}", ip=f"10.0.3.{len(built) + 1}")
        store = DefaultMessageStore(MessageStoreConfig.under(store_root, **cluster.store_settings), runtime)
        if who == "yours":
            install(store, function, log)
        store.load()
        store.shutdown()
        built[who] = {
            str(path.relative_to(store_root / "consumequeue")): path.read_bytes()
            for path in sorted((store_root / "consumequeue").rglob("0*"))
            if path.is_file()
        }
    differing = [name for name in built["mqlab"] if built["mqlab"][name] != built["yours"].get(name)]
    return ScenarioCheck(
        "after a crash, the ConsumeQueues recovery rebuilds with your units equal mqlab's, file for file",
        bool(built["mqlab"]) and not differing and built["mqlab"].keys() == built["yours"].keys(),
        f"files that differ: {differing[:4]}",
    )


LAB = Lab(
    name="consume_queue_unit",
    title="the ConsumeQueue unit: offset, size and tags code (a deliver time for delayed messages)",
    function="consume_queue_unit",
    java="CommitLog#checkMessageAndReturnSize (tags code) and ConsumeQueue#putMessagePositionInfo (unit)",
    spec=("CQ-1", "DELAY-4", "DELAY-5"),
    seam=(
        "the store's dispatcher_list: a ConsumeQueue dispatcher that writes the unit your function makes, in place "
        "of CommitLogDispatcherBuildConsumeQueue"
    ),
    properties=(
        Property("the unit is 20 bytes", records(), check_twenty_bytes, str, ("CQ-1",)),
        Property(
            "bytes 0-11 are commitLogOffset (8 bytes) and size (4 bytes), big-endian",
            records(),
            check_offset_and_size,
            str,
            ("CQ-1",),
        ),
        Property(
            "outside SCHEDULE_TOPIC_XXXX the tags code is String#hashCode of TAGS sign-extended to 8 bytes, 0 without",
            records(schedule=False),
            check_tags_hash,
            str,
            ("CQ-1",),
        ),
        Property(
            "a delayed message in SCHEDULE_TOPIC_XXXX carries its deliver time: storeTimestamp + the delay of "
            "min(DELAY, highest level)",
            records(schedule=True, delay="due"),
            check_deliver_time,
            str,
            ("DELAY-4", "DELAY-5"),
        ),
        Property(
            "in SCHEDULE_TOPIC_XXXX without a DELAY above 0 the tags code stays the hash of TAGS",
            records(schedule=True, delay="none"),
            check_schedule_without_delay,
            str,
            ("DELAY-5",),
        ),
    ),
    comparison=Property("byte for byte the unit mqlab writes", records(), check_same_as_mqlab, str, (), 300),
    scenario=Scenario(
        "a broker whose ConsumeQueue units all come from your function",
        (
            "delayed messages (levels 1 and 2) wait in SCHEDULE_TOPIC_XXXX",
            "after the broker stops, its ConsumeQueues are deleted and rebuilt by a crash recovery",
        ),
        scenario,
    ),
    reference=reference,
    guards=(
        CommitLog._dispatch_request,
        CommitLog.check_message_and_return_size,
        ConsumeQueue.put_message_position_info,
        MessageExtBrokerInner.tags_string2tags_code,
    ),
    probe=(0, 100, "TopicTest", {"TAGS": "TagA"}, 1_650_000_000_000, list(DEFAULT_DELAY_MILLIS)),
)

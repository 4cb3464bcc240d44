"""Generate a RocketMQ store from a scenario file, with a manifest of what really happened.

Java: none (teaching helper). A scenario (a small TOML file, see ``docs/spec/spark-pipeline.md``) names the brokers,
the topics and their queue counts, the producers (message rate over virtual time, body sizes, tags, keys and hot
keys, the share of sync, async, oneway and batch sends, delayed messages) and the consumer groups (clustering or
broadcasting, several instances, a throttled pull loop that leaves real lag, a failure rate answered with
``RECONSUME_LATER`` so traffic flows through ``%RETRY%`` and, past ``maxReconsumeTimes``, into ``%DLQ%``).

The generator runs mqlab's own name server, brokers and clients in one ``SimulatedWorld``
(``Cluster.simulated``): every decision comes from the world's seeded per-node random streams or from a hash of the
seed, so the same scenario and seed give byte-identical stores. Beside the stores it writes ``manifest.json``, the
ground truth of the run: what each producer sent and was acknowledged with (msg ids, queues, offsets), what each
group consumed (attempt by attempt), and which messages went to retry and to the DLQ.

Store faults (``mqlab.spark.generate_faults``): broker crashes, by process or power loss, with the store's abnormal
recovery on restart, and segments deleted by the store's cleaning services; the manifest says what each destroyed.
A scenario with independent brokers runs one world per broker, serially or in worker processes
(``mqlab.spark.generate_parallel``), with the same bytes either way.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.cluster import Cluster
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.message import message_const
from mqlab.common.message.message import Message
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.message_decoder import string2message_properties
from mqlab.common.owned_directory import GENERATED_LAYOUT, claim_directory
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.topic import topic_validator
from mqlab.runtime import SimulatedWorld
from mqlab.runtime.seeded_random import seeded_random
from mqlab.spark import manifest_json
from mqlab.spark.generate_faults import CRASH_KINDS, CrashBook, CrashSpec, Rec, SegmentWatch, read_commit_log
from mqlab.store.config.flush_disk_type import FlushDiskType

if TYPE_CHECKING:
    from random import Random

SHIPPED_SCENARIOS = ("small", "faults", "week", "large")
MANIFEST = "manifest.json"
REPLACE_ADVICE = (
    "pass --replace (replace=True from Python) to replace an earlier gen-store output; it never replaces anything else"
)
TICK_MS = 100  # producers decide how many messages to send once per virtual tick
_WORDS = [
    "order",
    "item",
    "quantity",
    "price",
    "total",
    "customer",
    "address",
    "city",
    "street",
    "status",
    "created",
    "paid",
    "shipped",
    "delivered",
    "refund",
    "payment",
    "card",
    "amount",
    "currency",
    "warehouse",
    "carrier",
    "tracking",
    "discount",
    "coupon",
    "invoice",
    "user",
    "session",
    "device",
]


# A body's words are what ``rng.choice(_WORDS)`` would pick, drawn many at a time (see _word_indices). The draw
# reads the top byte of each 32-bit Mersenne Twister output, so it needs a word list of at most 256 entries.
_WORD_BITS = len(_WORDS).bit_length()
assert _WORD_BITS <= 8, "_word_indices reads one byte per draw"
_TOP_BYTE_TO_INDEX = bytes(b >> (8 - _WORD_BITS) for b in range(256))
_TOP_BYTE_REJECTED = bytes(b for b in range(256) if b >> (8 - _WORD_BITS) >= len(_WORDS))


def _word_indices_one_by_one(rng: Random, count: int) -> bytes:
    """The indices ``rng.choice(_WORDS)`` picks ``count`` times: the reference _word_indices must equal."""
    indices = range(len(_WORDS))
    return bytes(rng.choice(indices) for _ in range(count))


def _word_indices_batched(rng: Random, count: int) -> bytes:
    """The same indices as _word_indices_one_by_one, leaving ``rng`` in the same state, about 50 times faster.

    ``Random.choice`` over n items asks ``getrandbits(k)`` (k = n.bit_length()) until the value is below n, and
    ``getrandbits(k)`` for k <= 32 is one 32-bit Mersenne Twister output shifted right by 32 - k.
    ``getrandbits(32 * m)`` is m such outputs, the first in the lowest 32 bits, so the top byte of each little-endian
    word, shifted right by 8 - k, is the value one draw would give. Each round takes exactly as many outputs as picks
    are still missing (every output taken is one the one-by-one loop would also take), drops the rejected ones and
    repeats.
    """
    picks = b""
    while len(picks) < count:
        missing = count - len(picks)
        words = rng.getrandbits(32 * missing).to_bytes(4 * missing, "little")
        picks += words[3::4].translate(_TOP_BYTE_TO_INDEX, _TOP_BYTE_REJECTED)
    return picks


def _batched_draw_is_exact(make: Callable[[int], Random] = seeded_random) -> bool:
    """Whether generators ``make(seed)`` draw as _word_indices_batched assumes (CPython's Mersenne Twister does).

    The default is how the runtimes make every node's stream (``mqlab.runtime.seeded_random``).
    """
    one, other = make(20220301), make(20220301)
    same = all(_word_indices_one_by_one(one, n) == _word_indices_batched(other, n) for n in (1, 7, 64, 700))
    return same and one.getstate() == other.getstate()


# Chosen once: a Python whose Random draws otherwise still generates the same bytes, only slower.
_word_indices = _word_indices_batched if _batched_draw_is_exact() else _word_indices_one_by_one


class ScenarioError(ValueError):
    """A scenario file is invalid: the message names the field and the offending value."""


# -- the scenario ------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TopicSpec:
    """A topic and its queue count on every broker."""

    name: str
    queues: int = 4


@dataclass(frozen=True, slots=True)
class ProducerSpec:
    """A producer group's workload (one producer instance on its own node)."""

    group: str
    topic: str
    rate: float  # messages per virtual second
    body_min: int = 32
    body_max: int = 1024
    tags: dict[str, int] = field(default_factory=dict)  # tag → weight; empty: no TAGS
    keys: int = 0  # distinct business keys ``<topic>-k<n>``; 0: no KEYS
    hot_keys: int = 0  # the first ``hot_keys`` keys get ``hot_share`` of the messages
    hot_share: float = 0.0
    sync: float = 1.0  # shares of the send modes; they are normalised
    async_: float = 0.0
    oneway: float = 0.0
    batch: float = 0.0
    batch_size: int = 4
    delay_share: float = 0.0  # share of single sends given a delay level
    delay_levels: tuple[int, ...] = (1, 2, 3)
    start_s: float = 0.0
    stop_s: float | None = None
    app_retries: int = 0  # the application re-sends a sync send that failed (same Message, so same UNIQ_KEY)


@dataclass(frozen=True, slots=True)
class ConsumerSpec:
    """A consumer group: its instances, subscription, speed and failures."""

    group: str
    topic: str
    subscription: str = "*"
    model: str = "CLUSTERING"
    instances: int = 1
    failure_rate: float = 0.0  # chance an attempt answers RECONSUME_LATER (decided by a hash: stable)
    max_reconsume_times: int = 16
    pull_interval_ms: int = 0  # throttles each queue's pull loop: consume speed, hence lag
    pull_batch_size: int = 32
    start_s: float = 0.0
    stop_s: float | None = None


@dataclass(frozen=True, slots=True)
class Scenario:
    """A whole scenario: brokers, store sizes, topics, producers, consumers, virtual duration."""

    name: str
    seed: int
    duration_s: float
    drain_s: float
    brokers: int
    commit_log_file_size: int
    consume_queue_units: int
    topics: tuple[TopicSpec, ...]
    producers: tuple[ProducerSpec, ...]
    consumers: tuple[ConsumerSpec, ...]
    lost_response_share: float = 0.0  # share of single-message sends stored by a broker that never answers them
    crashes: tuple[CrashSpec, ...] = ()
    file_reserved_time_h: float | None = None  # fileReservedTime (hours of virtual time); None: the store's 72
    delete_when: str | None = None  # deleteWhen ("04"; hours joined by ";"); None: the store's default
    sync_flush_brokers: tuple[str, ...] = ()  # brokers with flushDiskType SYNC_FLUSH (the others: ASYNC_FLUSH)
    independent_brokers: bool = False  # one world per broker, each with its own clients (see generate_parallel)

    @property
    def broker_names(self) -> list[str]:
        """``broker-a``, ``broker-b``... as ``Cluster`` names them."""
        return [f"broker-{chr(ord('a') + i)}" for i in range(self.brokers)]


def _fields(cls, table: dict[str, Any], where: str) -> dict[str, Any]:
    known = {f for f in cls.__dataclass_fields__}
    out = {}
    for key, value in table.items():
        name = "async_" if key == "async" else key
        if name not in known:
            raise ScenarioError(f"{where}: unknown field {key!r} (known: {', '.join(sorted(known))})")
        out[name] = tuple(value) if isinstance(value, list) else value
    return out


_STORE_FIELDS = (
    "commit_log_file_size",
    "consume_queue_units",
    "file_reserved_time_h",
    "delete_when",
    "sync_flush_brokers",
)
_FAULT_FIELDS = ("lost_response_share", "crashes")


def _known(table: dict[str, Any], known: tuple[str, ...], where: str) -> dict[str, Any]:
    for key in table:
        if key not in known:
            raise ScenarioError(f"[{where}]: unknown field {key!r} (known: {', '.join(sorted(known))})")
    return table


def _optional(value: Any, kind):
    return None if value is None else kind(value)


def parse_scenario(text: str, *, seed: int | None = None) -> Scenario:
    """A Scenario from TOML text; ``seed`` overrides the file's.

    Raises:
        ScenarioError: a missing or unknown field, a bad value, or a reference to an undeclared topic.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"not valid TOML: {exc}") from exc
    try:
        topics = tuple(TopicSpec(**_fields(TopicSpec, t, f"topics[{i}]")) for i, t in enumerate(data["topics"]))
        producers = tuple(
            ProducerSpec(**_fields(ProducerSpec, p, f"producers[{i}]")) for i, p in enumerate(data["producers"])
        )
        consumers = tuple(
            ConsumerSpec(**_fields(ConsumerSpec, c, f"consumers[{i}]")) for i, c in enumerate(data.get("consumers", []))
        )
        store = _known(data.get("store", {}), _STORE_FIELDS, "store")
        faults = _known(data.get("faults", {}), _FAULT_FIELDS, "faults")
        crashes = tuple(
            CrashSpec(**_fields(CrashSpec, c, f"faults.crashes[{i}]")) for i, c in enumerate(faults.get("crashes", []))
        )
        scenario = Scenario(
            name=str(data["name"]),
            seed=int(seed if seed is not None else data.get("seed", 0)),
            duration_s=float(data["duration_s"]),
            drain_s=float(data.get("drain_s", 60)),
            brokers=int(data.get("brokers", 1)),
            commit_log_file_size=int(store.get("commit_log_file_size", 1 << 20)),
            consume_queue_units=int(store.get("consume_queue_units", 1000)),
            topics=topics,
            producers=producers,
            consumers=consumers,
            lost_response_share=float(faults.get("lost_response_share", 0.0)),
            crashes=crashes,
            file_reserved_time_h=_optional(store.get("file_reserved_time_h"), float),
            delete_when=_optional(store.get("delete_when"), str),
            sync_flush_brokers=tuple(store.get("sync_flush_brokers", ())),
            independent_brokers=bool(data.get("independent_brokers", False)),
        )
    except KeyError as exc:
        raise ScenarioError(f"missing field {exc.args[0]!r}") from exc
    except TypeError as exc:
        raise ScenarioError(str(exc)) from exc
    _validate(scenario)
    return scenario


def _validate_names(s: Scenario) -> None:
    """Topics and groups as the broker and the clients will check them, before a directory is touched.

    Java: TopicValidator#validateTopic and Validators#checkGroup, the checks the run would otherwise fail mid-way
    (the topic becomes ``consumequeue/<topic>``, a broadcasting group a directory of its offsets).
    """
    for i, t in enumerate(s.topics):
        failure = topic_validator.validate_topic(t.name)
        if failure is not None:
            raise ScenarioError(f"topics[{i}]: name {t.name!r}: {failure[1]}")
        if topic_validator.is_system_topic(t.name):
            raise ScenarioError(f"topics[{i}]: name {t.name!r} is a system topic; the producers cannot create it")
    for kind, specs in (("producers", s.producers), ("consumers", s.consumers)):
        for i, spec in enumerate(specs):
            failure = topic_validator.validate_group(spec.group)
            if failure is not None:
                raise ScenarioError(f"{kind}[{i}]: group {spec.group!r}: {failure[1]}")


def _validate(s: Scenario) -> None:
    _validate_names(s)
    names = {t.name for t in s.topics}
    if not 1 <= s.brokers <= 26:
        raise ScenarioError(f"brokers must be 1..26, got {s.brokers}")
    if not 0 <= s.lost_response_share < 1:
        raise ScenarioError(f"faults: lost_response_share must be in [0, 1), got {s.lost_response_share}")
    if s.duration_s <= 0:
        raise ScenarioError(f"duration_s must be positive, got {s.duration_s}")
    _validate_store_faults(s)
    for t in s.topics:
        if t.queues < 1:
            raise ScenarioError(f"topic {t.name}: queues must be positive, got {t.queues}")
    for p in s.producers:
        if p.topic not in names:
            raise ScenarioError(f"producer {p.group}: topic {p.topic!r} is not among the topics")
        if p.rate <= 0 or not 0 < p.body_min <= p.body_max:
            raise ScenarioError(f"producer {p.group}: needs rate > 0 and 0 < body_min <= body_max")
        if p.sync + p.async_ + p.oneway + p.batch <= 0:
            raise ScenarioError(f"producer {p.group}: the send-mode shares add up to nothing")
        if p.hot_keys > p.keys:
            raise ScenarioError(f"producer {p.group}: hot_keys {p.hot_keys} > keys {p.keys}")
    for c in s.consumers:
        if c.topic not in names:
            raise ScenarioError(f"consumer {c.group}: topic {c.topic!r} is not among the topics")
        if c.model not in ("CLUSTERING", "BROADCASTING"):
            raise ScenarioError(f"consumer {c.group}: model must be CLUSTERING or BROADCASTING, got {c.model!r}")
        if not 0 <= c.failure_rate < 1:
            raise ScenarioError(f"consumer {c.group}: failure_rate must be in [0, 1), got {c.failure_rate}")


def _validate_store_faults(s: Scenario) -> None:
    brokers = s.broker_names
    for name in s.sync_flush_brokers:
        if name not in brokers:
            raise ScenarioError(f"store: sync_flush_brokers names {name!r}, not one of {', '.join(brokers)}")
    if s.file_reserved_time_h is not None and s.file_reserved_time_h <= 0:
        raise ScenarioError(f"store: file_reserved_time_h must be positive, got {s.file_reserved_time_h}")
    if s.delete_when is not None and not all(h.isdigit() and 0 <= int(h) < 24 for h in s.delete_when.split(";")):
        raise ScenarioError(f"store: delete_when must be hours 00-23 joined by ';', got {s.delete_when!r}")
    down_until: dict[str, float] = {}
    end = s.duration_s + s.drain_s
    for c in sorted(s.crashes, key=lambda c: c.at_s):
        where = f"faults.crashes (broker {c.broker!r} at {c.at_s} s)"
        if c.broker not in brokers:
            raise ScenarioError(f"{where}: broker must be one of {', '.join(brokers)}")
        if c.kind not in CRASH_KINDS:
            raise ScenarioError(f"{where}: kind must be one of {', '.join(CRASH_KINDS)}, got {c.kind!r}")
        if not 0 < c.at_s < end:
            raise ScenarioError(f"{where}: at_s must be inside the run (0, {end}) s")
        if c.restart_after_s is not None and c.restart_after_s <= 0:
            raise ScenarioError(f"{where}: restart_after_s must be positive, got {c.restart_after_s}")
        if c.at_s <= down_until.get(c.broker, -1.0):
            raise ScenarioError(f"{where}: the broker is still down from an earlier crash")
        down_until[c.broker] = c.at_s + c.restart_after_s if c.restart_after_s is not None else float("inf")


def load_scenario(name_or_path: str | os.PathLike[str], *, seed: int | None = None) -> Scenario:
    """A shipped scenario by name (``small``, ``faults``, ``week``, ``large``) or a scenario file by path."""
    if str(name_or_path) in SHIPPED_SCENARIOS:
        text = resources.files("mqlab.spark").joinpath(f"scenarios/{name_or_path}.toml").read_text("utf-8")
    else:
        text = Path(name_or_path).read_text("utf-8")
    return parse_scenario(text, seed=seed)


# -- running it ----------------------------------------------------------------------------------------------------
def _decide(seed: int, *parts: object) -> float:
    """A number in [0, 1) fixed by ``seed`` and ``parts`` (independent of the order in which events happen)."""
    digest = hashlib.blake2b(repr((seed, *parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


class _Driver:
    """One producer's workload on its own node."""

    def __init__(self, spec: ProducerSpec, clients: _ClientNodes, manifest: dict[str, Any], index: int, share: float):
        self.spec = spec
        self.rate = spec.rate * share
        self.runtime = clients.runtime(f"producer-{index + 1}")
        self.rng = self.runtime.random
        self.producer = DefaultMQProducer(spec.group, self.runtime, namesrv_addr=clients.cluster.namesrv_addr)
        # The node's own id setter, the one the producer uses: giving the UNIQ_KEY before the send (the producer
        # keeps an existing one) lets the manifest record it even for an async send still in flight.
        self.id_setter = MessageClientIDSetter.for_runtime(self.runtime)
        self.carry = 0.0
        self.seq = 0
        self.sent: list[dict[str, Any]] = []
        manifest["producers"][spec.group] = {"topic": spec.topic, "messages": self.sent}
        shares = [spec.sync, spec.async_, spec.oneway, spec.batch]
        total = sum(shares)
        self.modes = ("sync", "async", "oneway", "batch")
        self.mode_weights = [x / total for x in shares]

    def active(self, now_s: float) -> bool:
        stop = self.spec.stop_s
        return self.spec.start_s <= now_s and (stop is None or now_s < stop)

    def tick(self, elapsed_ms: int) -> None:
        """Send what ``rate`` owes for the ``elapsed_ms`` of virtual time since the last tick."""
        self.carry += self.rate * elapsed_ms / 1000
        count = math.floor(self.carry)
        self.carry -= count
        sent = 0
        while sent < count:
            mode = self.rng.choices(self.modes, self.mode_weights)[0]
            if mode == "batch":
                size = min(self.spec.batch_size, count - sent) or 1
                self._send_batch([self._message(delayable=False) for _ in range(size)])
                sent += size
            else:
                self._send_one(self._message(delayable=True), mode)
                sent += 1

    def _message(self, *, delayable: bool) -> Message:
        spec, rng = self.spec, self.rng
        tags = rng.choices(list(spec.tags), list(spec.tags.values()))[0] if spec.tags else None
        key = None
        if spec.keys:
            if spec.hot_keys and rng.random() < spec.hot_share:
                key = f"{spec.topic}-k{rng.randrange(spec.hot_keys)}"
            else:
                key = f"{spec.topic}-k{rng.randrange(spec.keys)}"
        size = rng.randint(spec.body_min, spec.body_max)
        head = f'{{"producer":"{spec.group}","seq":{self.seq},"note":"'
        words = " ".join(map(_WORDS.__getitem__, _word_indices(rng, size // 6 + 1)))
        body = (head + words)[: max(size - 2, len(head))] + '"}'
        self.seq += 1
        msg = Message(spec.topic, tags, key, body.encode("ascii"))
        self.id_setter.set_uniq_id(msg)
        if delayable and spec.delay_share and rng.random() < spec.delay_share:
            msg.set_delay_time_level(rng.choice(spec.delay_levels))
        return msg

    def _record(self, msg: Message, mode: str, sent_at: int) -> dict[str, Any]:
        row = {
            "uniq_key": msg.get_property(message_const.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX),
            "mode": mode,
            "tags": msg.get_tags(),
            "keys": msg.get_keys(),
            "body_size": len(msg.body or b""),
            "delay_level": msg.get_delay_time_level(),
            "sent_at": sent_at,  # when the send began (virtual epoch ms)
            "status": None,
            "offset_msg_id": None,
            "broker": None,
            "queue_id": None,
            "queue_offset": None,
        }
        self.sent.append(row)
        return row

    @staticmethod
    def _ack(row: dict[str, Any], result) -> None:
        row["status"] = result.send_status.name
        row["offset_msg_id"] = result.offset_msg_id
        row["broker"] = result.message_queue.broker_name
        row["queue_id"] = result.message_queue.queue_id
        row["queue_offset"] = result.queue_offset

    def _send_one(self, msg: Message, mode: str) -> None:
        sent_at = self.runtime.now_ms()
        if mode == "sync":
            self._send_sync(msg, sent_at)
            return
        row = self._record(msg, mode, sent_at)
        try:
            if mode == "async":
                self.producer.send_async(msg, _Callback(row))
            else:
                self.producer.send_oneway(msg)
        except Exception as exc:  # an unacknowledged send is part of the ground truth, not a generator failure
            row["status"] = f"ERROR {type(exc).__name__}"

    def _send_sync(self, msg: Message, sent_at: int) -> None:
        """A sync send; on an exception the application tries the same Message again, up to ``app_retries`` times.

        RocketMQ's producer does not retry a send whose response timed out (the timeout budget is spent), so a
        lost response becomes a duplicate only when the application sends again: the Message keeps its UNIQ_KEY.
        """
        errors: list[str] = []
        for _ in range(self.spec.app_retries + 1):
            try:
                result = self.producer.send(msg)
            except Exception as exc:
                errors.append(type(exc).__name__)
                continue
            row = self._record(msg, "sync", sent_at)
            self._ack(row, result)
            row["failed_attempts"] = errors
            return
        row = self._record(msg, "sync", sent_at)
        row["status"] = f"ERROR {errors[-1]}"
        row["failed_attempts"] = errors

    def _send_batch(self, msgs: list[Message]) -> None:
        sent_at = self.runtime.now_ms()
        try:
            result = self.producer.send(msgs)
        except Exception as exc:
            for msg in msgs:
                self._record(msg, "batch", sent_at)["status"] = f"ERROR {type(exc).__name__}"
            return
        offset_ids = (result.offset_msg_id or "").split(",")
        for i, msg in enumerate(msgs):
            row = self._record(msg, "batch", sent_at)
            self._ack(row, result)
            row["queue_offset"] = result.queue_offset + i
            row["offset_msg_id"] = offset_ids[i] if i < len(offset_ids) else None


class _Callback:
    """SendCallback filling the manifest row of an async send when the answer arrives."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.row = row

    def on_success(self, send_result) -> None:
        _Driver._ack(self.row, send_result)

    def on_exception(self, e: BaseException) -> None:
        self.row["status"] = f"ERROR {type(e).__name__}"


class _Group:
    """A consumer group: its instances and the attempts they made."""

    def __init__(self, spec: ConsumerSpec, clients: _ClientNodes, seed: int, manifest: dict[str, Any], index: int):
        self.spec, self.clients, self.cluster, self.seed = spec, clients, clients.cluster, seed
        self.attempts: list[dict[str, Any]] = []
        manifest["consumers"][spec.group] = {
            "topic": spec.topic,
            "model": spec.model,
            "max_reconsume_times": spec.max_reconsume_times,
            "attempts": self.attempts,
        }
        self.index = index
        self.instances: list[DefaultMQPushConsumer] = []
        self.started = self.stopped = False

    def start(self) -> None:
        for i in range(self.spec.instances):
            runtime = self.clients.runtime(f"consumer-{self.index + 1}-{i + 1}")
            consumer = DefaultMQPushConsumer(
                self.spec.group,
                runtime,
                namesrv_addr=self.cluster.namesrv_addr,
                consume_from_where=ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET,
                message_model=MessageModel[self.spec.model],
                max_reconsume_times=self.spec.max_reconsume_times,
                pull_interval=self.spec.pull_interval_ms,
                pull_batch_size=self.spec.pull_batch_size,
                # A broadcasting consumer keeps its offsets in a local file; inside the output directory, so a run
                # never reads offsets left by an earlier one (which would change what it consumes).
                local_offset_store_dir=self.cluster.root / "clients",
            )
            consumer.subscribe(self.spec.topic, self.spec.subscription)
            consumer.register_message_listener(self._listener(f"instance-{i + 1}", runtime))
            consumer.start()
            self.instances.append(consumer)
        self.started = True

    def _listener(self, instance: str, runtime):
        def on_messages(msgs, context):
            status = ConsumeConcurrentlyStatus.CONSUME_SUCCESS
            rows = []
            for msg in msgs:
                uniq = msg.get_msg_id()
                # In clustering the message decides, whichever instance gets it; in broadcasting each instance.
                who = instance if self.spec.model == "BROADCASTING" else ""
                fail = _decide(self.seed, self.spec.group, who, uniq, msg.reconsume_times) < self.spec.failure_rate
                if fail:
                    status = ConsumeConcurrentlyStatus.RECONSUME_LATER
                rows.append(
                    {
                        "uniq_key": uniq,
                        "instance": instance,
                        "topic": msg.topic,
                        "broker": getattr(context.message_queue, "broker_name", None),
                        "queue_id": msg.queue_id,
                        "queue_offset": msg.queue_offset,
                        "reconsume_times": msg.reconsume_times,
                        "consumed_at": runtime.now_ms(),
                        "store_timestamp": msg.store_timestamp,
                    }
                )
            for row in rows:
                row["status"] = status.name
            self.attempts.extend(rows)
            return status

        return on_messages

    def stop(self) -> None:
        for consumer in self.instances:
            consumer.shutdown()
        self.stopped = True


class _LosesResponses:
    """A broker's send processor that, now and then, stores a message and never answers (a lost response).

    Java: none (fault injection). It wraps the broker's own SEND_MESSAGE / SEND_MESSAGE_V2 processor; the
    decision comes from the broker node's seeded random stream, and the UNIQ_KEYs whose answer was dropped go to
    the manifest.
    """

    def __init__(self, inner: Any, share: float, runtime, lost: list[str]):
        self.inner, self.share, self.runtime, self.lost = inner, share, runtime, lost

    def process_request(self, ctx: Any, request: Any) -> Any:
        response = self.inner.process_request(ctx, request)
        if request.is_oneway_rpc() or response is None or response.code != 0:
            return response
        if self.runtime.random.random() < self.share:
            fields = request.ext_fields or {}
            properties = string2message_properties(fields.get("i", fields.get("properties")))
            self.lost.append(properties.get(message_const.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX))
            return None  # stored, but the producer never hears so
        return response

    def reject_request(self) -> bool:
        return self.inner.reject_request()


def _lose_responses(node, share: float, lost: list[str]) -> None:
    """Wrap one broker process's send processors (again after a restart: the new process has its own)."""
    server = node.controller.remoting_server
    assert server is not None
    for code in (RequestCode.SEND_MESSAGE, RequestCode.SEND_MESSAGE_V2):
        pair = server.processor_table[int(code)]
        wrapper = _LosesResponses(pair.processor, share, node.runtime, lost)
        server.register_processor(code, wrapper, node.controller.send_message_executor)


def _summarise(scenario: Scenario, manifest: dict[str, Any]) -> None:
    """Add, per group, the messages that went to retry and to the DLQ (from the attempts)."""
    for group, entry in manifest["consumers"].items():
        spec = next(c for c in scenario.consumers if c.group == group)
        retried: set[str] = set()
        dead: set[str] = set()
        succeeded: set[str] = set()
        for a in entry["attempts"]:
            if a["status"] != "RECONSUME_LATER":
                succeeded.add(a["uniq_key"])
            elif a["reconsume_times"] < spec.max_reconsume_times:
                retried.add(a["uniq_key"])
            else:
                dead.add(a["uniq_key"])
        # A clustering failure is sent back to the broker (CONSUMER_SEND_MSG_BACK): into %RETRY%<group>, or into
        # %DLQ%<group> once reconsume_times has reached maxReconsumeTimes. Broadcasting failures are only dropped.
        clustering = spec.model == "CLUSTERING"
        entry["retried"] = sorted(retried) if clustering else []
        entry["dead_lettered"] = sorted(dead) if clustering else []
        entry["consumed"] = sorted(succeeded)


def generate_store(
    scenario: Scenario,
    out: str | os.PathLike[str],
    *,
    replace: bool = False,
    progress: bool = False,
    workers: int = 1,
) -> dict[str, Any]:
    """Run ``scenario`` and write its stores under ``out/<broker>/store`` and ``out/manifest.json``.

    A scenario with ``independent_brokers`` runs one world per broker, one after another, or in ``workers``
    processes at once (``mqlab.spark.generate_parallel``): the bytes are the same either way.

    Returns:
        The manifest (also written to ``manifest.json``).

    Raises:
        FileExistsError: ``out`` holds files and ``replace`` is false.
        ForeignDirectoryError: ``replace`` is true but ``out`` holds something gen-store did not write (HARD-12).
        ScenarioError: ``workers`` > 1 for a scenario whose brokers share producers and consumers.
    """
    if workers < 1:
        raise ScenarioError(f"workers must be at least 1, got {workers}")
    if workers > 1 and not scenario.independent_brokers:
        raise ScenarioError(
            f"scenario {scenario.name}: its brokers share producers and consumers, so they run in one world "
            "(set independent_brokers = true to generate them in parallel)"
        )
    out_path = claim_directory(out, replace=replace, layout=GENERATED_LAYOUT, advice=REPLACE_ADVICE)
    if scenario.independent_brokers:
        from mqlab.spark.generate_parallel import generate_independent

        manifest = generate_independent(scenario, out_path, progress=progress, workers=workers)
    else:
        total_ms = int((scenario.duration_s + scenario.drain_s) * 1000)
        bar = _progress(total_ms, scenario.name, progress)
        try:
            manifest = run_world(scenario, out_path, on_progress=None if bar is None else bar.update)
        finally:
            if bar is not None:
                bar.close()
    # json.dumps(manifest, indent=1, sort_keys=True), character for character, without its pure-Python indenting.
    (out_path / MANIFEST).write_text(manifest_json.dumps(manifest) + "\n", "utf-8")
    return manifest


def world_seed(scenario: Scenario, broker: str) -> int:
    """The seed of one independent broker's world: fixed by the scenario's seed and the broker's name."""
    return int(_decide(scenario.seed, "world", broker) * 2**31)


def run_world(
    scenario: Scenario, out_path: Path, *, only: int | None = None, on_progress: Callable[[int], Any] | None = None
) -> dict[str, Any]:
    """Run one simulated world: every broker, or (``only``) the broker of that index with its own clients.

    ``on_progress`` is called with the virtual milliseconds run since its last call. Returns the world's manifest.
    """
    brokers = scenario.brokers if only is None else only + 1
    seed = scenario.seed if only is None else world_seed(scenario, scenario.broker_names[only])
    world = SimulatedWorld(seed)
    # The trace is for notebooks that print a flow; nothing generated reads it, and kept for a whole run it would
    # hold every remoting frame and service wake-up of the run (recording is also a tenth of the run's time).
    world.trace.enabled = False
    cluster = Cluster.simulated(out_path, brokers=brokers, world=world, store_settings=_store_settings(scenario))
    if only is not None:
        # Cluster names brokers by index; the brokers before ``only`` are built but never started (no file is
        # written for them) and leave the cluster here.
        cluster.brokers = cluster.brokers[only:]
        scenario = replace_crashes(scenario, tuple(c for c in scenario.crashes if c.broker == cluster.brokers[0].name))
    for node in cluster.brokers:
        if node.name in scenario.sync_flush_brokers:
            node.controller.message_store_config.flush_disk_type = FlushDiskType.SYNC_FLUSH
    clients = _ClientNodes(cluster, None if only is None else only + 1)
    manifest: dict[str, Any] = {
        "scenario": scenario.name,
        "seed": scenario.seed,
        "brokers": [node.name for node in cluster.brokers],
        "start_ms": world.now_ms(),
        "producers": {},
        "consumers": {},
        "lost_responses": {},
    }
    cluster.start()
    if scenario.lost_response_share:
        for node in cluster.brokers:
            manifest["lost_responses"][node.name] = []
            _lose_responses(node, scenario.lost_response_share, manifest["lost_responses"][node.name])
    crashes, watch = _store_faults(scenario, cluster, manifest)
    admin = DefaultMQProducer("GEN_ADMIN", clients.runtime("admin"), namesrv_addr=cluster.namesrv_addr)
    admin.start()
    for topic in scenario.topics:
        admin.create_topic("TBW102", topic.name, topic.queues)
    admin.shutdown()
    world.run_for(1000)  # the brokers register the new topics with the name server
    share = 1.0 if only is None else 1.0 / scenario.brokers  # an independent broker gets its share of each rate
    drivers = [_Driver(p, clients, manifest, i, share) for i, p in enumerate(scenario.producers)]
    for d in drivers:
        d.producer.start()
    groups = [_Group(c, clients, scenario.seed, manifest, i) for i, c in enumerate(scenario.consumers)]
    start = last = world.now_ms()
    manifest["run_start_ms"] = start  # the origin of start_s, stop_s and duration_s
    total_ms = int((scenario.duration_s + scenario.drain_s) * 1000)
    reported = 0
    try:
        # Sends take virtual time themselves (a sync send waits for its answer, up to the 3 s timeout when the
        # answer is lost), so every decision reads the clock instead of counting ticks.
        while (now := world.now_ms()) - start < total_ms:
            now_s = (now - start) / 1000
            if crashes is not None:
                crashes.due(now_s)
            if watch is not None:
                watch.tick()
            for g in groups:
                if not g.started and now_s >= g.spec.start_s:
                    g.start()
                if g.started and not g.stopped and g.spec.stop_s is not None and now_s >= g.spec.stop_s:
                    g.stop()
            if now_s < scenario.duration_s:
                for d in drivers:
                    if d.active(now_s):
                        d.tick(now - last)
            last = now
            next_tick = start + ((world.now_ms() - start) // TICK_MS + 1) * TICK_MS
            world.run_for(next_tick - world.now_ms())
            if on_progress is not None:
                done = min(world.now_ms() - start, total_ms)
                on_progress(done - reported)
                reported = done
    finally:
        for g in groups:
            if g.started and not g.stopped:
                g.stop()
        for d in drivers:
            d.producer.shutdown()
        world.run_for(1000)
        _shutdown(cluster, crashes)
    manifest["end_ms"] = world.now_ms()
    _summarise(scenario, manifest)
    if watch is not None:
        watch.finish(manifest)
    if crashes is not None:
        crashes.finish(manifest, _record_history(cluster, watch))
    return manifest


def replace_crashes(scenario: Scenario, crashes: tuple[CrashSpec, ...]) -> Scenario:
    """The same scenario with other crashes."""
    return dataclasses.replace(scenario, crashes=crashes)


class _ClientNodes:
    """Client runtimes of one world; an independent broker's clients get addresses of their own (10.<n>.2.x).

    Addresses matter beyond routing: a UNIQ_KEY begins with its producer's IP, so two independent worlds whose
    producers shared an address (and a start time) would hand out the same UNIQ_KEYs.
    """

    def __init__(self, cluster: Cluster, subnet: int | None):
        self.cluster, self.subnet, self.count = cluster, subnet, 0

    def runtime(self, name: str):
        self.count += 1
        if self.subnet is None:
            return self.cluster.client_runtime(name)
        return self.cluster.client_runtime(name, ip=f"10.{self.subnet}.2.{self.count}")


def _store_settings(scenario: Scenario) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "mapped_file_size_commit_log": scenario.commit_log_file_size,
        "mapped_file_size_consume_queue": 20 * scenario.consume_queue_units,
    }
    if scenario.file_reserved_time_h is not None:
        # fileReservedTime is a whole number of hours in RocketMQ; a fraction lets minutes of virtual time age a
        # segment (the cleaner compares now - lastModified with fileReservedTime x 3,600,000 ms either way).
        settings["file_reserved_time"] = scenario.file_reserved_time_h
    if scenario.delete_when is not None:
        settings["delete_when"] = scenario.delete_when
    return settings


def _store_faults(scenario: Scenario, cluster: Cluster, manifest: dict[str, Any]):
    """The crash book and the segment watch a scenario needs (``None`` when it has no crashes / no expiry)."""
    watch_box: list[SegmentWatch] = []

    def on_new_process(node) -> None:
        if scenario.lost_response_share:
            _lose_responses(node, scenario.lost_response_share, manifest["lost_responses"][node.name])
        if watch_box:
            watch_box[0].forget(node.name)

    crashes = CrashBook(cluster, scenario.crashes, manifest, on_new_process) if scenario.crashes else None
    expiry = scenario.file_reserved_time_h is not None or scenario.delete_when is not None
    if expiry:
        watch_box.append(SegmentWatch(cluster, manifest, crashes.faults if crashes is not None else None))
    return crashes, (watch_box[0] if watch_box else None)


def _shutdown(cluster: Cluster, crashes: CrashBook | None) -> None:
    """Cluster.shutdown, leaving a broker the scenario ends with crashed exactly as the crash left it."""
    if crashes is None:
        cluster.shutdown()
        return
    for node in cluster.brokers:
        if not crashes.faults.is_down(node.name):
            node.controller.shutdown()
    cluster.namesrv.shutdown()


def _record_history(cluster: Cluster, watch: SegmentWatch | None) -> dict[str, list[Rec]]:
    """Every record each broker stored during the run: the expired segments' and what is on disk at the end."""
    history: dict[str, list[Rec]] = {}
    for node in cluster.brokers:
        expired = watch.expired_records[node.name] if watch is not None else []
        history[node.name] = expired + read_commit_log(node.store_root)[0]
    return history


def _progress(total_ms: int, name: str, enabled: bool):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total_ms, desc=f"scenario {name}", unit="ms", unit_scale=True)

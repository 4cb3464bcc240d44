"""``spark.readStream.format("rocketmq")``: a Spark micro-batch is just another pull consumer of a 4.x broker.

Java: none (teaching helper; the options mirror Spark's Kafka source, the requests a ``DefaultMQPullConsumer``).

How a micro-batch reads (docs/spec/spark-streaming.md):

- **Offsets are queue offsets.** A Spark offset is ``{"topic": {"broker-a:0": 12, ...}}``: for each (broker, queue),
  the ConsumeQueue index of the next message to read. Spark keeps it in the query's checkpoint (``offsets/``,
  ``commits/``); the broker keeps nothing unless ``commitOffsetsToBroker`` copies it there after each batch.
- ``latestOffset`` asks every queue's max offset (GET_MAX_OFFSET), after a fresh route lookup, so queues added by
  ``updateTopic`` and brokers that registered since the last batch join the next one (from their min offset).
- ``partitions`` plans one range per queue with new messages, (topic, broker, queue, start, end), and packs the
  ranges into at most ``maxPartitions`` tasks (default 2). A task pulls each range with PULL_MESSAGE (no long
  polling), ``pullBatchSize`` messages a request, and stops at ``end``.
- **Lost offsets.** When a pull answers that ``start`` is below the queue's min offset (the broker deleted the
  files), the task fails naming the queue and the missing range (``failOnDataLoss=true``, the default) or logs a
  warning and reads on from the min offset.
- Because a batch's range is fixed before it runs and written to the checkpoint, a restarted query re-reads exactly
  the unfinished batch: with an idempotent sink (Spark's file sink) nothing is lost or repeated.

**Where a task's time goes, and the choices that follow** (measured with ``python -m bench.streaming_bench``:
100,000 messages of 256 B over 8 queues, ``mqlab broker`` on loopback, Spark ``local[2]`` on 2 CPUs shared with
other jobs; Spark figures are ratios to mqlab's push consumer in the same run, because the absolute ones moved with
the load; one-task figures come from a plain process). The first version read at 0.5x-0.67x at this size (0.14x
on 8,000 messages, where Spark's fixed costs dominate); profiling one task in a plain process (cProfile) showed it
was mostly Python per message, not waiting:

- *Decoding.* ``MessageDecoder#decodes`` built a ``MessageExt`` and a Java-ordered ``HashMap`` of properties per
  message, then the task copied every field again into per-column lists: two thirds of a task. ``ArrowRows`` reads
  each record once with the layout's ``decode_raw`` straight into the columns (properties into a ``dict``, hosts
  cached per distinct field), and builds the ``properties`` map column from flat lists and offsets. One task alone:
  25,000 → 43,000 messages/s.
- *Arrow batches.* One ``RecordBatch`` per pull (32 rows) made Spark convert hundreds of small batches; a task now
  yields batches of ``ARROW_BATCH_ROWS`` rows.
- *Pull size.* A 4.x broker answers at most ``maxTransferCountOnMessageInMemory`` (32) messages and
  ``maxTransferBytesOnMessageInMemory`` (256 KB) per PULL_MESSAGE, whatever ``maxMsgNums`` asks: a larger
  ``pullBatchSize`` changes nothing against a default broker (checked against ``mqlab broker``). What can be
  overlapped is the waiting: ``PullsAhead`` keeps up to ``PULL_AHEAD`` ASYNC pulls in flight for the offsets the next
  pulls will start at, so the broker serves while the task decodes, as a push consumer's queues overlap. One task
  alone, 40,000 messages, three alternating runs (load average 20): 39,000-47,000 → 47,000-56,000 messages/s.
- *Tasks per batch.* Spark pays a fixed cost per task (scheduling, the Python worker's round trip). With one task
  per queue, a micro-batch of 200 messages over 8 queues took 1.2 s; packed into 2 tasks, 0.4 to 0.7 s, and the
  latency from send to ``foreachBatch`` with a 1 s trigger fell from p50 1.8 s / p99 2.8 s to 1.0 s / 1.8 s.
  Python workers are reused between tasks (``spark.python.worker.reuse``, on by default); a task opens one
  ``QueueClient`` (about 3 ms) and uses it for all its ranges.
- *What is left.* After these, ``spark.read...count()`` of the 100,000 messages ran at 0.88x the push consumer
  and a streaming micro-batch at 0.82x (load average 12 to 15); a whole streaming query adds a fixed start of one
  to several seconds (Spark starts a Python process that plans the stream): 0.54x from ``start()`` to the end.

``spark.read.format("rocketmq")`` reads ``startingOffsets`` to ``endingOffsets`` once.
The sink (``df.write[Stream].format("rocketmq")``) is in ``rocketmq_sink``; this class answers both.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from mqlab.client.consumer.pull_status import PullStatus
from mqlab.common import util_all
from mqlab.common.extras import needs_extra
from mqlab.common.filter import filter_api
from mqlab.common.message import message_const as mc
from mqlab.common.message.message_decoder import string2message_properties
from mqlab.common.message.message_errors import MessageFormatError
from mqlab.common.message.message_record_layout import decode_raw, host_from_field
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.spark.rocketmq_client import DEFAULT_READER_GROUP, PullAhead, PullOutcome, QueueClient, QueueRoute
from mqlab.spark.segment_reader import (
    BINARY,
    INT,
    LONG,
    STRING,
    STRING_MAP,
    TIMESTAMP,
    Column,
    arrow_schema,
    spark_schema,
)

with needs_extra("spark", __name__):
    import pyarrow as pa
    from pyspark.sql import SparkSession
    from pyspark.sql.datasource import (
        DataSource,
        DataSourceReader,
        DataSourceStreamReader,
        DataSourceStreamWriter,
        DataSourceWriter,
        InputPartition,
    )
    from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows, SupportsTriggerAvailableNow
    from pyspark.sql.types import (
        StructType,
    )

FORMAT = "rocketmq"
LOG = logging.getLogger("mqlab.spark.rocketmq")

ROCKETMQ_COLUMNS: tuple[Column, ...] = (
    Column("topic", *STRING, "the message's topic"),
    Column("broker", *STRING, "the broker name serving the queue"),
    Column("queue_id", *INT, "the queue"),
    Column("queue_offset", *LONG, "index of the message in its ConsumeQueue (what the Spark offset counts)"),
    Column("commit_log_offset", *LONG, "physical offset of the record in the broker's CommitLog"),
    Column("msg_id", *STRING, "property UNIQ_KEY: the producer's message id"),
    Column("offset_msg_id", *STRING, "store host + CommitLog offset, hex (MessageDecoder#createMessageId)"),
    Column("tags", *STRING, "property TAGS"),
    Column("keys", *STRING, "property KEYS (space-separated)"),
    Column("properties", *STRING_MAP, "every property"),
    Column("body", *BINARY, "the body (inflated if the producer compressed it)"),
    Column("born_timestamp", *TIMESTAMP, "producer clock"),
    Column("store_timestamp", *TIMESTAMP, "broker clock when stored"),
    Column("born_host", *STRING, "producer address ip:port"),
    Column("store_host", *STRING, "broker address ip:port"),
    Column("reconsume_times", *INT, "RECONSUMETIMES"),
    Column("sys_flag", *INT, "SYSFLAG"),
)
ROCKETMQ_SCHEMA = spark_schema(ROCKETMQ_COLUMNS)
ROCKETMQ_ARROW_SCHEMA = arrow_schema(ROCKETMQ_COLUMNS)

DEFAULT_MAX_PARTITIONS = 2
Offsets = dict[str, dict[str, int]]  # topic -> "broker:queueId" -> queue offset


# -- options ---------------------------------------------------------------------------------------------------
class RocketMQOptionError(ValueError):
    """A bad option: the message names the option, the value and what is accepted."""

    def __init__(self, option: str, value: object, accepted: str):
        self.option = option
        super().__init__(f"rocketmq option {option}={value!r} is not valid: {accepted}")


class RocketMQDataLossError(RuntimeError):
    """Offsets a batch wanted are gone from the broker (failOnDataLoss=true)."""


@dataclass(frozen=True, slots=True)
class StartingPoint:
    """``earliest``, ``latest``, explicit offsets per topic and queue, or a timestamp (epoch ms)."""

    kind: str  # "earliest" | "latest" | "offsets" | "timestamp"
    offsets: Mapping[str, Mapping[str, int]] | None = None
    timestamp_ms: int | None = None

    @classmethod
    def parse(cls, option: str, text: str, topics: tuple[str, ...]) -> StartingPoint:
        """Parse ``earliest`` / ``latest`` / ``{"topic": {"broker-a:0": 12}}`` / epoch milliseconds."""
        accepted = (
            "earliest, latest, epoch milliseconds (resolved with SEARCH_OFFSET_BY_TIMESTAMP) or JSON such as "
            '{"TopicA": {"broker-a:0": 12}} (-2 = earliest, -1 = latest for one queue)'
        )
        value = text.strip()
        if value.lower() in ("earliest", "latest"):
            return cls(value.lower())
        if value.isdigit():
            return cls("timestamp", timestamp_ms=int(value))
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError as exc:
            raise RocketMQOptionError(option, text, accepted) from exc
        if not isinstance(parsed, dict) or not all(isinstance(v, dict) for v in parsed.values()):
            raise RocketMQOptionError(option, text, accepted)
        for topic, queues in parsed.items():
            if topic not in topics:
                raise RocketMQOptionError(option, text, f"topic {topic!r} is not among topic={','.join(topics)}")
            for key, offset in queues.items():
                broker, _, queue_id = key.rpartition(":")
                if not broker or not queue_id.isdigit() or not isinstance(offset, int) or offset < -2:
                    raise RocketMQOptionError(option, text, f"queue {key!r}: {accepted}")
        return cls("offsets", offsets=parsed)


def _bool(options: Mapping[str, str], key: str, default: bool) -> bool:
    text = options.get(key)
    if text is None:
        return default
    if text.strip().lower() not in ("true", "false"):
        raise RocketMQOptionError(key, text, "true or false")
    return text.strip().lower() == "true"


def _positive(options: Mapping[str, str], key: str, default: int | None) -> int | None:
    text = options.get(key)
    if text is None:
        return default
    if not text.strip().isdigit() or int(text) <= 0:
        raise RocketMQOptionError(key, text, "a positive integer")
    return int(text)


KNOWN_SOURCE_OPTIONS = {
    "nameserver",
    "topic",
    "subexpression",
    "startingoffsets",
    "endingoffsets",
    "maxoffsetspertrigger",
    "failondataloss",
    "pullbatchsize",
    "pulltimeoutms",
    "consumergroup",
    "commitoffsetstobroker",
    "maxpartitions",
    "path",
}


@dataclass(frozen=True, slots=True)
class SourceOptions:
    """The source's options, checked once on the driver."""

    name_server: str
    topics: tuple[str, ...]
    sub_expression: str
    starting: StartingPoint
    ending: StartingPoint
    max_offsets_per_trigger: int | None
    fail_on_data_loss: bool
    pull_batch_size: int
    pull_timeout_ms: int
    consumer_group: str | None
    commit_offsets_to_broker: bool
    max_partitions: int

    @classmethod
    def parse(cls, options: Mapping[str, str], *, streaming: bool) -> SourceOptions:
        """Check every option; a ``RocketMQOptionError`` names the first bad one."""
        unknown = sorted(k for k in options if k.lower() not in KNOWN_SOURCE_OPTIONS)
        if unknown:
            raise RocketMQOptionError(
                unknown[0],
                options[unknown[0]],
                "unknown option; the source knows "
                + (
                    "nameServer, topic, subExpression, startingOffsets, endingOffsets, maxOffsetsPerTrigger, "
                    "failOnDataLoss, pullBatchSize, pullTimeoutMs, consumerGroup, commitOffsetsToBroker, maxPartitions"
                ),
            )
        name_server = (options.get("nameServer") or "").strip()
        if not name_server or any(":" not in a for a in name_server.split(";")):
            raise RocketMQOptionError("nameServer", options.get("nameServer"), "required, host:port[;host:port]")
        topics = tuple(t.strip() for t in (options.get("topic") or "").split(",") if t.strip())
        if not topics:
            raise RocketMQOptionError("topic", options.get("topic"), "required, one topic or several comma separated")
        sub_expression = (options.get("subExpression") or "*").strip() or "*"
        if "endingOffsets" in options and streaming:
            raise RocketMQOptionError("endingOffsets", options["endingOffsets"], "only for batch reads (spark.read)")
        starting = StartingPoint.parse(
            "startingOffsets", options.get("startingOffsets", "latest" if streaming else "earliest"), topics
        )
        ending = StartingPoint.parse("endingOffsets", options.get("endingOffsets", "latest"), topics)
        if ending.kind == "earliest":
            raise RocketMQOptionError("endingOffsets", options["endingOffsets"], "latest, a timestamp or JSON offsets")
        max_per_trigger = _positive(options, "maxOffsetsPerTrigger", None)
        group = (options.get("consumerGroup") or "").strip() or None
        commit = _bool(options, "commitOffsetsToBroker", False)
        if commit and group is None:
            raise RocketMQOptionError(
                "commitOffsetsToBroker", "true", "needs consumerGroup (the group whose lag shows)"
            )
        return cls(
            name_server=name_server,
            topics=topics,
            sub_expression=sub_expression,
            starting=starting,
            ending=ending,
            max_offsets_per_trigger=max_per_trigger,
            fail_on_data_loss=_bool(options, "failOnDataLoss", True),
            pull_batch_size=_positive(options, "pullBatchSize", 32) or 32,
            pull_timeout_ms=_positive(options, "pullTimeoutMs", 3000) or 3000,
            consumer_group=group,
            commit_offsets_to_broker=commit,
            max_partitions=_positive(options, "maxPartitions", DEFAULT_MAX_PARTITIONS) or DEFAULT_MAX_PARTITIONS,
        )

    def client(self) -> QueueClient:
        """A client for the name server with the pull timeout."""
        return QueueClient(self.name_server, timeout_ms=self.pull_timeout_ms)


# -- planning (driver) -----------------------------------------------------------------------------------------
@dataclass(frozen=True)  # no slots: InputPartition's repr reads __dict__
class QueueRange(InputPartition):
    """One task's work: queue offsets ``[start, end)`` of one queue (picklable, it travels to the worker)."""

    topic: str
    broker: str
    addr: str
    queue_id: int
    start: int
    end: int

    @property
    def route(self) -> QueueRoute:
        """The queue as the client addresses it."""
        return QueueRoute(self.topic, self.broker, self.addr, self.queue_id)

    @property
    def ranges(self) -> tuple[QueueRange, ...]:
        """A task of this one range (as ``QueueRanges.ranges``)."""
        return (self,)


@dataclass(frozen=True)
class QueueRanges(InputPartition):
    """One task's work: queue ranges read one after the other, through one client."""

    ranges: tuple[QueueRange, ...]


def pack(ranges: list[QueueRange], tasks: int) -> list[QueueRange | QueueRanges]:
    """The ranges in at most ``tasks`` tasks, balanced by offset count; a task of one range is that range.

    Largest range first, each into the task with the fewest offsets so far (ties: the lower task); inside a task
    the ranges keep ``plan``'s order. Ranges are not split: a queue is read by one task, in offset order.
    """
    bins: list[list[QueueRange]] = [[] for _ in range(min(tasks, len(ranges)))]
    loads = [0] * len(bins)
    order = {id(r): i for i, r in enumerate(ranges)}
    for r in sorted(ranges, key=lambda r: (-(r.end - r.start), order[id(r)])):
        target = loads.index(min(loads))
        bins[target].append(r)
        loads[target] += r.end - r.start
    groups = [tuple(sorted(b, key=lambda r: order[id(r)])) for b in bins if b]
    return [group[0] if len(group) == 1 else QueueRanges(group) for group in groups]


def _all_routes(client: QueueClient, topics: tuple[str, ...]) -> list[QueueRoute]:
    return [queue for topic in topics for queue in client.routes(topic)]


def resolve(client: QueueClient, queues: list[QueueRoute], point: StartingPoint) -> Offsets:
    """Offsets of ``queues`` for a starting (or ending) point, asking the brokers where needed."""
    result: Offsets = {}
    for queue in queues:
        if point.kind == "earliest":
            offset = client.min_offset(queue)
        elif point.kind == "latest":
            offset = client.max_offset(queue)
        elif point.kind == "timestamp":
            offset = client.search_offset(queue, point.timestamp_ms or 0)
        else:
            wanted = (point.offsets or {}).get(queue.topic, {}).get(queue.key, -2)
            offset = client.min_offset(queue) if wanted == -2 else client.max_offset(queue) if wanted == -1 else wanted
        result.setdefault(queue.topic, {})[queue.key] = offset
    return result


def _limit(start: Offsets, latest: Offsets, max_rows: int) -> Offsets:
    """Cap the new records of a batch at ``max_rows``, shared among queues in proportion to what each has."""
    pending = [(t, k, latest[t][k] - start.get(t, {}).get(k, latest[t][k])) for t in latest for k in latest[t]]
    total = sum(n for _, _, n in pending if n > 0)
    if total <= max_rows:
        return latest
    grant = {(t, k): max_rows * n // total for t, k, n in pending if n > 0}
    left = max_rows - sum(grant.values())
    for t, k, n in sorted(pending, key=lambda p: -p[2]):  # the rest, one each, to the fullest queues
        if left and n > grant.get((t, k), 0):
            grant[(t, k)] += 1
            left -= 1
    return {t: {k: start.get(t, {}).get(k, latest[t][k]) + grant.get((t, k), 0) for k in latest[t]} for t in latest}


def plan(routes: list[QueueRoute], start: Offsets, end: Offsets) -> list[QueueRange]:
    """One range per queue that has offsets between ``start`` and ``end`` (a queue new in ``end`` starts there)."""
    addrs = {(q.topic, q.key): q.addr for q in routes}
    ranges = []
    for topic in sorted(end):
        for key in sorted(end[topic], key=lambda k: (k.rpartition(":")[0], int(k.rpartition(":")[2]))):
            stop = end[topic][key]
            begin = start.get(topic, {}).get(key, stop)
            if stop > begin:
                broker, _, queue_id = key.rpartition(":")
                ranges.append(QueueRange(topic, broker, addrs.get((topic, key), ""), int(queue_id), begin, stop))
    return ranges


# -- reading (worker) ------------------------------------------------------------------------------------------
ARROW_BATCH_ROWS = 4096  # rows per yielded Arrow batch: many pulls' worth, so Spark pays its per-batch cost rarely
PULL_AHEAD = 4  # speculative ASYNC pulls a task keeps in flight beyond the one it waits for
_COMPRESSED = int(MessageSysFlag.COMPRESSED_FLAG)


class ArrowRows:
    """Column lists of one Arrow batch of the source's schema, filled straight from PULL_MESSAGE bodies.

    The body of a FOUND answer is stored records end to end (the CommitLog layout). Each record is read once with
    ``message_record_layout.decode_raw`` (no ``MessageExt``, no host objects: hosts are parsed once per distinct
    field and cached), its properties parsed into a ``dict``, and its values appended to one list per column; the
    ``properties`` map is built from flat key and value lists and offsets. The result equals decoding the same
    bytes with ``MessageDecoder#decodes`` and filtering with ``PullAPIWrapper``, as ``PullOutcome.messages`` does
    (STREAM-17).
    """

    def __init__(self, broker: str, tags: frozenset[str] | None) -> None:
        self.broker = broker
        self.tags = tags  # the subscription's tags; None for ``*``
        self._hosts: dict[bytes, str] = {}
        self._start()

    def _start(self) -> None:
        self.columns: dict[str, list[Any]] = {c.name: [] for c in ROCKETMQ_COLUMNS}
        self._map_offsets = [0]  # row i's properties are entries _map_offsets[i] .. _map_offsets[i + 1] - 1
        self._map_keys: list[str] = []
        self._map_values: list[str] = []

    def __len__(self) -> int:
        return len(self.columns["queue_offset"])

    def _host(self, field: bytes) -> str:
        text = self._hosts.get(field)
        if text is None:
            text = self._hosts[field] = str(host_from_field(field)).lstrip("/")
        return text

    def add_records(self, records: bytes, end: int) -> None:
        """Append every record of ``records`` whose queue offset is below ``end`` and whose tag is subscribed.

        As ``MessageDecoder#decodes`` does, a record that does not decode ends the body quietly.
        """
        c = self.columns
        pos, size = 0, len(records)
        while pos < size:
            try:
                r = decode_raw(records, pos)
            except MessageFormatError:
                break
            pos += r.total_size
            if r.queue_offset >= end:
                continue
            properties = string2message_properties(r.properties.decode("utf-8", "replace"), dict)
            tags = properties.get(mc.PROPERTY_TAGS)
            if self.tags is not None and tags not in self.tags:
                continue  # the broker compared hash codes only; this is the string comparison
            body = r.body or b""
            if r.sys_flag & _COMPRESSED:
                try:
                    body = util_all.uncompress(body)
                except Exception:  # zlib.error: as decodes, a record that does not decode ends the body
                    break
            c["topic"].append(r.topic.decode("utf-8", "replace"))
            c["queue_id"].append(r.queue_id)
            c["queue_offset"].append(r.queue_offset)
            c["commit_log_offset"].append(r.physical_offset)
            c["msg_id"].append(properties.get(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX))
            c["offset_msg_id"].append((r.store_host + r.physical_offset.to_bytes(8, "big", signed=True)).hex().upper())
            c["tags"].append(tags)
            c["keys"].append(properties.get(mc.PROPERTY_KEYS))
            self._map_keys.extend(properties)
            self._map_values.extend(properties.values())
            self._map_offsets.append(len(self._map_keys))
            c["body"].append(body)
            c["born_timestamp"].append(r.born_timestamp * 1000)  # ms on the wire, µs in Spark
            c["store_timestamp"].append(r.store_timestamp * 1000)
            c["born_host"].append(self._host(r.born_host))
            c["store_host"].append(self._host(r.store_host))
            c["reconsume_times"].append(r.reconsume_times)
            c["sys_flag"].append(r.sys_flag)

    def batch(self) -> pa.RecordBatch:
        """The rows so far as one Arrow batch (then start again with empty columns)."""
        self.columns["broker"] = [self.broker] * len(self)
        properties = pa.MapArray.from_arrays(
            pa.array(self._map_offsets, pa.int32()), pa.array(self._map_keys, pa.string()), self._map_values
        )
        arrays = [
            properties if f.name == "properties" else pa.array(self.columns[f.name], type=f.type)
            for f in ROCKETMQ_ARROW_SCHEMA
        ]
        self._start()
        return pa.RecordBatch.from_arrays(arrays, schema=ROCKETMQ_ARROW_SCHEMA)


class PullsAhead:
    """The pulls of one range: speculative ASYNC pulls ahead of the offset read, a SYNC pull when a guess missed.

    Without a tag filter, a pull from offset ``o`` continues at ``o + k``, where ``k`` is ``pullBatchSize`` capped
    by the broker (``maxTransferCountOnMessageInMemory``, 32 by default; learnt from the first answer that brings
    fewer), so the pulls ahead ask for ``o + k``, ``o + 2k``... The broker's byte limit can make the next offset
    another one: guesses that do not match are dropped unread, and the reader pulls synchronously where it must go.
    With a tag filter the next offset depends on what the broker skipped, so nothing is guessed (``depth`` 0).
    ``sent`` and ``used`` count the guesses, for tests and the benchmark.
    """

    def __init__(self, client: QueueClient, part: QueueRange, options: SourceOptions, subscription, group: str):
        self.client, self.part, self.options = client, part, options
        self.subscription, self.group = subscription, group
        self.stride = options.pull_batch_size
        self.depth = PULL_AHEAD if not subscription.tags_set else 0
        self.ahead: dict[int, PullAhead] = {}
        self.next_guess = part.start
        self.sent = self.used = 0

    def _want(self, offset: int) -> int:
        return min(self.options.pull_batch_size, self.part.end - offset)

    def pull(self, offset: int) -> PullOutcome:
        """The answer of a PULL_MESSAGE from ``offset``; the pulls ahead topped up first."""
        queue = self.part.route
        for stale in [o for o in self.ahead if o < offset]:
            del self.ahead[stale]
        self.next_guess = max(self.next_guess, offset + self.stride)
        while len(self.ahead) < self.depth and self.next_guess < self.part.end:
            guess = self.next_guess
            self.ahead[guess] = self.client.pull_ahead(queue, guess, self._want(guess), self.subscription, self.group)
            self.next_guess += self.stride
            self.sent += 1
        ahead = self.ahead.pop(offset, None)
        outcome = ahead.outcome(self.options.pull_timeout_ms) if ahead is not None else None
        if outcome is None:
            outcome = self.client.pull(queue, offset, self._want(offset), self.subscription, self.group)
        else:
            self.used += 1
        advance = outcome.next_begin_offset - offset
        if outcome.status is PullStatus.FOUND and 0 < advance < self.stride and self._want(offset) == self.stride:
            self.stride = advance  # the broker caps the count: the guesses in flight were too far apart
            self.ahead.clear()
            self.next_guess = 0
        return outcome


def _ranges_of(partition: InputPartition) -> tuple[QueueRange, ...]:
    if not isinstance(partition, (QueueRange, QueueRanges)):
        raise TypeError(f"the rocketmq source cannot read a partition of type {type(partition).__name__}")
    return partition.ranges


def read_ranges(options: SourceOptions, ranges: tuple[QueueRange, ...]) -> Iterator[pa.RecordBatch]:
    """Read one task's ranges in order, through one client (its connections serve every range)."""
    if not ranges:
        return  # an empty batch (start == end everywhere): no rows, and no connection
    with options.client() as client:
        for part in ranges:
            yield from read_range(options, part, client)


def read_range(options: SourceOptions, part: QueueRange, client: QueueClient) -> Iterator[pa.RecordBatch]:
    """Pull ``[start, end)`` of one queue, ``pullBatchSize`` at a time, as Arrow batches of the source's schema.

    Raises:
        RocketMQDataLossError: ``start`` (or a later offset) is below the queue's min offset and failOnDataLoss.
        BrokerUnreachableError: a pull failed every retry.
    """
    group = options.consumer_group or DEFAULT_READER_GROUP
    subscription = filter_api.build_subscription_data(part.topic, options.sub_expression)
    tags = None if not subscription.tags_set or subscription.class_filter_mode else frozenset(subscription.tags_set)
    rows = ArrowRows(part.broker, tags)
    offset = part.start
    pulls = PullsAhead(client, part, options, subscription, group)
    while offset < part.end:
        outcome = pulls.pull(offset)
        if outcome.status is PullStatus.OFFSET_ILLEGAL or (
            outcome.status is PullStatus.NO_NEW_MSG and outcome.min_offset > offset
        ):
            lost_to = min(max(outcome.next_begin_offset, outcome.min_offset), part.end)
            if lost_to <= offset:  # the queue is shorter than planned (a broker lost its tail): nothing to read
                raise RocketMQDataLossError(
                    f"topic {part.topic!r} queue {part.broker}:{part.queue_id}: offsets [{offset}, {part.end}) "
                    f"are not on the broker (its max offset is {outcome.max_offset})"
                )
            message = (
                f"topic {part.topic!r} queue {part.broker}:{part.queue_id}: offsets [{offset}, {lost_to}) were "
                f"deleted from the broker (its min offset is {outcome.min_offset})"
            )
            if options.fail_on_data_loss:
                raise RocketMQDataLossError(message + "; set failOnDataLoss=false to skip them")
            LOG.warning("%s; skipping them (failOnDataLoss=false)", message)
            offset = lost_to
            continue
        if outcome.status is PullStatus.NO_NEW_MSG:
            raise RocketMQDataLossError(
                f"topic {part.topic!r} queue {part.broker}:{part.queue_id}: offset {offset} not found although "
                f"the batch planned up to {part.end} (broker max offset {outcome.max_offset})"
            )
        rows.add_records(outcome.records, part.end)
        if len(rows) >= ARROW_BATCH_ROWS:
            yield rows.batch()
        # FOUND, or NO_MATCHED_MSG (every message in reach was filtered out): continue where the broker says,
        # and always move forward, so a confused answer cannot make the task loop.
        offset = max(outcome.next_begin_offset, offset + 1)
    if len(rows):
        yield rows.batch()


# -- the data source -------------------------------------------------------------------------------------------
class RocketMQDataSource(DataSource):
    """``format("rocketmq")``: source (``read``, ``readStream``) and sink (``write``, ``writeStream``)."""

    @classmethod
    def name(cls) -> str:
        """The format name."""
        return FORMAT

    def schema(self) -> StructType:
        """The columns of ``ROCKETMQ_COLUMNS``."""
        return ROCKETMQ_SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        """A batch read from startingOffsets (default earliest) to endingOffsets (default latest)."""
        return RocketMQBatchReader(SourceOptions.parse(self.options, streaming=False))

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:  # noqa: N802 - Spark's name
        """A micro-batch reader."""
        return RocketMQStreamReader(SourceOptions.parse(self.options, streaming=True))

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        """A batch write (see ``rocketmq_sink``)."""
        from mqlab.spark.rocketmq_sink import RocketMQWriter, SinkOptions

        return RocketMQWriter(SinkOptions.parse(self.options), schema)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:  # noqa: N802
        """A micro-batch write (see ``rocketmq_sink``)."""
        from mqlab.spark.rocketmq_sink import RocketMQStreamWriter, SinkOptions

        return RocketMQStreamWriter(SinkOptions.parse(self.options), schema)


class RocketMQBatchReader(DataSourceReader):
    """Resolves both ends on the driver when created, then reads the ranges."""

    def __init__(self, options: SourceOptions):
        self.options = options
        with options.client() as client:
            routes = _all_routes(client, options.topics)
            start = resolve(client, routes, options.starting)
            end = resolve(client, routes, options.ending)
        self.ranges = plan(routes, start, end)

    def partitions(self) -> list[InputPartition]:
        """The queue ranges packed into at most ``maxPartitions`` tasks; one task of no range when nothing is new.

        An empty list would make PySpark invent a partition of its own type (``InputPartition(None)``); the empty
        task says the same in the source's own type, and reads no rows without connecting to anything.
        """
        return list(pack(self.ranges, self.options.max_partitions)) or [QueueRanges(())]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """Pull one range."""
        yield from read_ranges(self.options, _ranges_of(partition))


class RocketMQStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Offsets from the brokers, ranges to the tasks, progress back to the broker when asked."""

    def __init__(self, options: SourceOptions):
        self.options = options
        self.target: Offsets | None = None  # the AvailableNow target, when that trigger runs
        self._routes: list[QueueRoute] = []
        self._client: QueueClient | None = None

    def __getstate__(self) -> dict[str, Any]:
        # The reader is pickled to the workers; its sockets and threads stay on the driver.
        return {"options": self.options, "target": self.target, "_routes": [], "_client": None}

    def client(self) -> QueueClient:
        """The driver's client, opened on first use."""
        if self._client is None:
            self._client = self.options.client()
        return self._client

    def _latest(self) -> Offsets:
        self._routes = _all_routes(self.client(), self.options.topics)
        return resolve(self.client(), self._routes, StartingPoint("latest"))

    def initialOffset(self) -> dict:  # noqa: N802 - Spark's name
        """``startingOffsets`` resolved against the queues that exist now."""
        self._routes = _all_routes(self.client(), self.options.topics)
        return resolve(self.client(), self._routes, self.options.starting)

    def prepareForTriggerAvailableNow(self) -> None:  # noqa: N802
        """Record the max offsets now: an AvailableNow run reads up to them and no further."""
        self.target = self._latest()

    def getDefaultReadLimit(self) -> ReadLimit:  # noqa: N802
        """``maxOffsetsPerTrigger`` as ``ReadMaxRows``, else everything available."""
        if self.options.max_offsets_per_trigger:
            return ReadMaxRows(self.options.max_offsets_per_trigger)
        return ReadAllAvailable()

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:  # noqa: N802
        """Every queue's max offset, capped by the AvailableNow target and the read limit.

        A queue missing from ``start`` (added by ``updateTopic``, or on a broker that registered since) joins at its
        min offset: this batch only records where it starts, the next one reads it. Offsets never go backwards.
        """
        latest = self._latest()
        client = self.client()
        end: Offsets = {t: dict(qs) for t, qs in start.items()}
        for queue in self._routes:
            known = start.get(queue.topic, {})
            if queue.key not in known:
                end.setdefault(queue.topic, {})[queue.key] = client.min_offset(queue)
                LOG.info("queue %s of topic %s joins at offset %d", queue.key, queue.topic, end[queue.topic][queue.key])
                continue
            candidate = latest[queue.topic][queue.key]
            if self.target is not None:
                candidate = min(candidate, self.target.get(queue.topic, {}).get(queue.key, known[queue.key]))
            end[queue.topic][queue.key] = max(candidate, known[queue.key])
        if isinstance(limit, ReadMaxRows):
            return _limit(start, end, limit.max_rows)
        return end

    def partitions(self, start: dict, end: dict) -> list[InputPartition]:
        """One range per queue that moved; queues unknown to ``start`` begin at their offset in ``end``."""
        if not self._routes:
            self._routes = _all_routes(self.client(), self.options.topics)
        return list(pack(plan(self._routes, start, end), self.options.max_partitions))

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """Pull one range (in a worker)."""
        yield from read_ranges(self.options, _ranges_of(partition))

    def commit(self, end: dict) -> None:
        """After a batch is committed: HEART_BEAT, then UPDATE_CONSUMER_OFFSET per queue (``commitOffsetsToBroker``)."""
        if not self.options.commit_offsets_to_broker or self.options.consumer_group is None:
            return
        known = self._routes or _all_routes(self.client(), self.options.topics)
        self.client().announce_group(known, self.options.consumer_group, self.options.sub_expression)
        routes = {(q.topic, q.key): q for q in known}
        for topic, queues in end.items():
            for key, offset in queues.items():
                queue = routes.get((topic, key))
                if queue is not None:
                    self.client().update_consumer_offset(queue, self.options.consumer_group, offset)

    def stop(self) -> None:
        """Close the driver's client."""
        if self._client is not None:
            self._client.close()
            self._client = None


def register(spark: SparkSession) -> None:
    """Make ``rocketmq`` known to ``read``, ``readStream``, ``write`` and ``writeStream``."""
    spark.dataSource.register(RocketMQDataSource)

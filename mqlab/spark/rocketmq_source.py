"""``spark.readStream.format("rocketmq")``: a Spark micro-batch is just another pull consumer of a 4.x broker.

Java: none (teaching helper; the options mirror Spark's Kafka source, the requests a ``DefaultMQPullConsumer``).

How a micro-batch reads (docs/spec/spark-streaming.md):

- **Offsets are queue offsets.** A Spark offset is ``{"topic": {"broker-a:0": 12, ...}}``: for each (broker, queue),
  the ConsumeQueue index of the next message to read. Spark keeps it in the query's checkpoint (``offsets/``,
  ``commits/``); the broker keeps nothing unless ``commitOffsetsToBroker`` copies it there after each batch.
- ``latestOffset`` asks every queue's max offset (GET_MAX_OFFSET), after a fresh route lookup, so queues added by
  ``updateTopic`` and brokers that registered since the last batch join the next one (from their min offset).
- ``partitions`` plans one task per queue with new messages: (topic, broker, queue, start, end). A task pulls the
  range with PULL_MESSAGE (no long polling), ``pullBatchSize`` messages a request, and stops at ``end``.
- **Lost offsets.** When a pull answers that ``start`` is below the queue's min offset (the broker deleted the
  files), the task fails naming the queue and the missing range (``failOnDataLoss=true``, the default) or logs a
  warning and reads on from the min offset.
- Because a batch's range is fixed before it runs and written to the checkpoint, a restarted query re-reads exactly
  the unfinished batch: with an idempotent sink (Spark's file sink) nothing is lost or repeated.

``spark.read.format("rocketmq")`` reads ``startingOffsets`` to ``endingOffsets`` once.
The sink (``df.write[Stream].format("rocketmq")``) is in ``rocketmq_sink``; this class answers both.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

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

from mqlab.client.consumer.pull_status import PullStatus
from mqlab.common.message import message_const as mc
from mqlab.spark.rocketmq_client import DEFAULT_READER_GROUP, QueueClient, QueueRoute
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
                    "failOnDataLoss, pullBatchSize, pullTimeoutMs, consumerGroup, commitOffsetsToBroker"
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
def _host(address: object) -> str:
    return str(address).lstrip("/")


def _rows(messages: list, broker: str) -> pa.RecordBatch:
    columns: dict[str, list[Any]] = {c.name: [] for c in ROCKETMQ_COLUMNS}
    for m in messages:
        properties = dict(m.properties or {})
        columns["topic"].append(m.topic)
        columns["broker"].append(broker)
        columns["queue_id"].append(m.queue_id)
        columns["queue_offset"].append(m.queue_offset)
        columns["commit_log_offset"].append(m.commit_log_offset)
        columns["msg_id"].append(properties.get(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX))
        columns["offset_msg_id"].append(m.msg_id)
        columns["tags"].append(properties.get(mc.PROPERTY_TAGS))
        columns["keys"].append(properties.get(mc.PROPERTY_KEYS))
        columns["properties"].append(list(properties.items()))
        columns["body"].append(bytes(m.body or b""))
        columns["born_timestamp"].append(m.born_timestamp * 1000)  # ms on the wire, µs in Spark
        columns["store_timestamp"].append(m.store_timestamp * 1000)
        columns["born_host"].append(_host(m.born_host))
        columns["store_host"].append(_host(m.store_host))
        columns["reconsume_times"].append(m.reconsume_times)
        columns["sys_flag"].append(m.sys_flag)
    arrays = [pa.array(columns[f.name], type=f.type) for f in ROCKETMQ_ARROW_SCHEMA]
    return pa.RecordBatch.from_arrays(arrays, schema=ROCKETMQ_ARROW_SCHEMA)


def read_range(options: SourceOptions, part: QueueRange) -> Iterator[pa.RecordBatch]:
    """Pull ``[start, end)`` of one queue, ``pullBatchSize`` at a time, as Arrow batches of the source's schema.

    Raises:
        RocketMQDataLossError: ``start`` (or a later offset) is below the queue's min offset and failOnDataLoss.
        BrokerUnreachableError: a pull failed every retry.
    """
    group = options.consumer_group or DEFAULT_READER_GROUP
    offset = part.start
    with options.client() as client:
        queue = part.route
        while offset < part.end:
            want = min(options.pull_batch_size, part.end - offset)
            outcome = client.pull(queue, offset, want, options.sub_expression, group)
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
            kept = [m for m in outcome.messages if m.queue_offset < part.end]
            if kept:
                yield _rows(kept, part.broker)
            # FOUND, or NO_MATCHED_MSG (every message in reach was filtered out): continue where the broker says,
            # and always move forward, so a confused answer cannot make the task loop.
            offset = max(outcome.next_begin_offset, offset + 1)


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
        """One per queue range."""
        return list(self.ranges)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """Pull one range."""
        if isinstance(partition, QueueRange):
            yield from read_range(self.options, partition)


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
        return list(plan(self._routes, start, end))

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """Pull one range (in a worker)."""
        if isinstance(partition, QueueRange):
            yield from read_range(self.options, partition)

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

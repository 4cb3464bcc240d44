"""``df.write[Stream].format("rocketmq")``: each task sends its rows through a ``DefaultMQProducer``.

Java: none (teaching helper; the sending is ``DefaultMQProducer#send`` with batches).

Rows need ``topic`` (or the ``topic`` option) and ``body``; ``tags``, ``keys`` (space separated), ``properties``
(map of user properties) and ``queue_id`` are optional. A row with ``queue_id`` goes to the queue with that id on the
first broker (by name) that has it; other rows go round robin. Consecutive rows for the same destination travel
as one SEND_BATCH_MESSAGE of up to ``sendBatchSize`` messages.

**At least once, with stable ids.** Spark re-runs a failed task, and a restarted query re-runs its last unfinished
batch; the messages sent before the failure are sent again. Each message's UNIQ_KEY is derived from where the row
is (query id and batch id for a stream, or the stage for a batch write; partition; row index), not from the clock,
so a retry sends the same ids and a consumer can drop what it has seen.
The commit message of each task counts the messages per queue; the driver logs the sum per queue.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.common.extras import needs_extra
from mqlab.common.message import message_const as mc
from mqlab.common.message.message import Message
from mqlab.common.message.message_queue import MessageQueue
from mqlab.runtime import ThreadedRuntime
from mqlab.spark.rocketmq_source import RocketMQOptionError

with needs_extra("spark", __name__):
    from pyspark import TaskContext
    from pyspark.sql.datasource import DataSourceStreamWriter, DataSourceWriter, WriterCommitMessage
    from pyspark.sql.types import Row, StructType

LOG = logging.getLogger("mqlab.spark.rocketmq")
# Spark adds its own options to a writer's (the checkpoint of a stream); they are not the sink's to refuse.
SPARK_WRITE_OPTIONS = {"path", "checkpointlocation", "queryname"}
KNOWN_SINK_OPTIONS = {"nameserver", "topic", "producergroup", "sendbatchsize", "sendtimeoutms", *SPARK_WRITE_OPTIONS}
ROW_COLUMNS = ("topic", "body", "tags", "keys", "properties", "queue_id")


@dataclass(frozen=True, slots=True)
class SinkOptions:
    """The sink's options."""

    name_server: str
    topic: str | None
    producer_group: str
    send_batch_size: int
    send_timeout_ms: int

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> SinkOptions:
        """Check every option; a ``RocketMQOptionError`` names the first bad one."""
        unknown = sorted(k for k in options if k.lower() not in KNOWN_SINK_OPTIONS)
        if unknown:
            raise RocketMQOptionError(
                unknown[0],
                options[unknown[0]],
                "unknown option; the sink knows nameServer, topic, producerGroup, sendBatchSize, sendTimeoutMs",
            )
        name_server = (options.get("nameServer") or "").strip()
        if not name_server or any(":" not in a for a in name_server.split(";")):
            raise RocketMQOptionError("nameServer", options.get("nameServer"), "required, host:port[;host:port]")
        sizes = {}
        for key, default in (("sendBatchSize", 32), ("sendTimeoutMs", 3000)):
            text = options.get(key, str(default))
            if not text.strip().isdigit() or int(text) <= 0:
                raise RocketMQOptionError(key, text, "a positive integer")
            sizes[key] = int(text)
        return cls(
            name_server,
            (options.get("topic") or "").strip() or None,
            (options.get("producerGroup") or "spark_rocketmq_sink").strip(),
            sizes["sendBatchSize"],
            sizes["sendTimeoutMs"],
        )


def check_schema(schema: StructType, options: SinkOptions) -> None:
    """The rows must have ``body`` and a topic; any other column must be one the sink knows."""
    names = set(schema.fieldNames())
    if "body" not in names:
        raise RocketMQOptionError("schema", schema.simpleString(), "rows need a body column (binary or string)")
    if "topic" not in names and options.topic is None:
        raise RocketMQOptionError("topic", None, "rows need a topic column, or set the topic option")
    extra = sorted(names - set(ROW_COLUMNS))
    if extra:
        raise RocketMQOptionError("schema", extra[0], f"columns the sink knows: {', '.join(ROW_COLUMNS)}")


@dataclass
class SentCounts(WriterCommitMessage):
    """What one task sent: messages per queue (``topic@broker:queueId``)."""

    per_queue: dict[str, int] = field(default_factory=dict)


def uniq_key(scope: str, partition: int, index: int) -> str:
    """A 32-hex-digit UNIQ_KEY that depends only on the row's place, so a retried task reuses it."""
    return hashlib.md5(f"{scope}|{partition}|{index}".encode()).hexdigest().upper()


def _task_scope(batch_id: int | None) -> tuple[str, int, int]:
    """(scope, partition, task attempt id) of the running task; the scope is the same for every attempt."""
    ctx = TaskContext.get()
    if ctx is None:  # called outside Spark (unit tests): one fixed scope
        return (f"local|{batch_id}", 0, 0)
    query = ctx.getLocalProperty("sql.streaming.queryId")
    batch = ctx.getLocalProperty("streaming.sql.batchId")
    scope = f"query={query}|batch={batch}" if query is not None else f"stage={ctx.stageId()}"
    return scope, ctx.partitionId(), ctx.taskAttemptId()


def _message(row: Row, options: SinkOptions, key: str) -> tuple[Message, int | None]:
    data = row.asDict()
    topic = data.get("topic") or options.topic
    body = data["body"]
    body = body.encode() if isinstance(body, str) else bytes(body or b"")
    msg = Message(topic, data.get("tags") or None, data.get("keys") or None, body)
    for name, value in (data.get("properties") or {}).items():
        msg.put_user_property(name, value)
    msg.put_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, key)  # set before send: the producer keeps it
    return msg, data.get("queue_id")


def send_rows(rows: Iterator[Row], options: SinkOptions, batch_id: int | None = None) -> SentCounts:
    """Send the rows of one task, batching consecutive rows with the same destination."""
    scope, partition, attempt = _task_scope(batch_id)
    runtime = ThreadedRuntime.create("spark-rocketmq-sink")
    producer = DefaultMQProducer(
        options.producer_group,
        runtime,
        namesrv_addr=options.name_server,
        instance_name=f"spark-sink-{partition}-{attempt}",
        send_msg_timeout=options.send_timeout_ms,
    )
    counts: Counter[str] = Counter()
    pending: list[Message] = []
    destination: tuple[str, int | None] | None = None

    def queue_for(topic: str, queue_id: int | None) -> MessageQueue | None:
        if queue_id is None:
            return None
        queues = sorted(producer.fetch_publish_message_queues(topic), key=lambda q: q.broker_name)
        for queue in queues:
            if queue.queue_id == queue_id:
                return queue
        raise ValueError(f"topic {topic!r} has no writable queue {queue_id} (queues: {sorted(set(queues))})")

    def flush() -> None:
        if not pending:
            return
        assert destination is not None
        queue = queue_for(*destination)
        result = producer.send(pending[0], queue) if len(pending) == 1 else producer.send(list(pending), queue)
        mq = result.message_queue
        counts[f"{mq.topic}@{mq.broker_name}:{mq.queue_id}"] += len(pending)
        pending.clear()

    producer.start()
    try:
        for index, row in enumerate(rows):
            msg, queue_id = _message(row, options, uniq_key(scope, partition, index))
            if (msg.topic, queue_id) != destination or len(pending) >= options.send_batch_size:
                flush()
                destination = (msg.topic, queue_id)
            pending.append(msg)
        flush()
    finally:
        producer.shutdown()
        runtime.scheduler.close()  # type: ignore[attr-defined]
    return SentCounts(dict(counts))


def total_counts(messages: list[WriterCommitMessage | None]) -> dict[str, int]:
    """Sum of the tasks' counts per queue."""
    total: Counter[str] = Counter()
    for message in messages:
        if isinstance(message, SentCounts):
            total.update(message.per_queue)
    return dict(sorted(total.items()))


class RocketMQWriter(DataSourceWriter):
    """``df.write.format("rocketmq")``."""

    def __init__(self, options: SinkOptions, schema: StructType):
        check_schema(schema, options)
        self.options = options

    def write(self, iterator: Iterator[Row]) -> SentCounts:
        """Send one partition's rows."""
        return send_rows(iterator, self.options)

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        """Log the messages sent per queue."""
        LOG.info("rocketmq sink committed %s", total_counts(messages))

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        """Nothing to undo: what was sent stays sent (at least once)."""
        LOG.warning("rocketmq sink aborted after sending %s", total_counts(messages))


class RocketMQStreamWriter(DataSourceStreamWriter):
    """``df.writeStream.format("rocketmq")``."""

    def __init__(self, options: SinkOptions, schema: StructType):
        check_schema(schema, options)
        self.options = options

    def write(self, iterator: Iterator[Row]) -> SentCounts:
        """Send one partition's rows of the micro-batch."""
        return send_rows(iterator, self.options)

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:  # noqa: N803
        """Log the messages sent per queue in batch ``batchId``."""
        LOG.info("rocketmq sink batch %d committed %s", batchId, total_counts(messages))

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:  # noqa: N803
        """Nothing to undo: a re-run of the batch sends the same ids again."""
        LOG.warning("rocketmq sink batch %d aborted after sending %s", batchId, total_counts(messages))

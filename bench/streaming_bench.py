"""``make bench`` (Spark streaming): the ``rocketmq`` source against mqlab's own push consumer, and its latency.

Java: none (teaching helper). Run ``python -m bench.streaming_bench`` (``--quick`` for a smoke run). Like
``bench.client_bench``, it starts ``mqlab namesrv`` and ``mqlab broker`` as processes on loopback, then, in one run
and on the same broker:

1. **pre-fill** a topic of 8 queues with 256 B messages (batch sends of 32);
2. **push consumer**: a ``DefaultMQPushConsumer`` (concurrent listener, this process) drains the topic from its
   first offset; timed from the first message received to the last (its rebalance start-up is not counted);
3. **Spark batch read**: ``spark.read.format("rocketmq")...load().count()``; timed from ``load()`` (route lookup
   and offsets on the driver) to the count's answer, so it includes the planning, the tasks' pulls and decoding,
   and Spark's own scheduling; the Spark session and its Python workers are started (and warmed with a small read)
   before;
4. **Spark streaming read**: ``readStream`` with ``Trigger.AvailableNow`` into the ``noop`` sink, two rows: its
   micro-batches (the sum of their ``triggerExecution``: offsets, planning, tasks, checkpoint writes), and the
   whole query from ``start()`` to its end, which adds the query's fixed start (Spark starts a Python process that
   plans the stream and resolves the starting offsets);
5. **end-to-end latency**: a producer sends at a steady rate while a streaming query with a 1 s processingTime
   trigger runs a ``foreachBatch`` that collects ``born_timestamp`` and notes when the rows reached the driver;
   the latency of a message is that time minus its born timestamp (producer clock, same machine). The case runs
   twice: with the default ``maxPartitions`` (the queue ranges packed into 2 tasks) and with ``maxPartitions`` 8
   (one task per queue, as the source planned before packing).

The ratio of each Spark read is its records/s over the push consumer's in the same run, so both met the same
machine load; the load average is printed at start and end. ``docs/spec/spark-streaming.md`` explains the source.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import random
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from bench import summary
from bench.cases import Measurement, Stopwatch
from bench.client_bench import Counting, WakeUp, client_runtime, progress, push_consumer, real_servers
from mqlab.cli import main as mqlab_main
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.client.producer.send_status import SendStatus
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.message.message import Message

BODY_SIZE = 256
QUEUES = 8
SEND_BATCH = 32
TOPIC = "BenchStream"
LATENCY_TOPIC = "BenchStreamLatency"
RATIO_TARGET = 0.8
PRODUCER_GROUP = "bench_stream_producer"
WARM_UP = 1_600  # messages read once before the timed Spark cases


@dataclass(frozen=True, slots=True)
class Scale:
    """How much work each case does."""

    name: str
    messages: int
    latency_rate: int  # messages a second during the latency case
    latency_seconds: int


FULL = Scale("full", messages=100_000, latency_rate=200, latency_seconds=30)
QUICK = Scale("quick", messages=8_000, latency_rate=100, latency_seconds=8)
# Every case at a size that proves it still runs (the test suite's smoke run); no target is judged.
SMOKE = Scale("smoke", messages=400, latency_rate=20, latency_seconds=3)


@dataclass(slots=True)
class Row:
    """One line of the throughput table."""

    case: str
    measurement: Measurement
    ratio: float | None = None


def create_topic(namesrv_addr: str, topic: str) -> None:
    """``mqlab admin updateTopic`` with ``QUEUES`` read and write queues."""
    args = ["admin", "updateTopic", "-n", namesrv_addr, "-c", "DefaultCluster", "-t", topic]
    said = io.StringIO()
    with contextlib.redirect_stdout(said):  # the command's own report would interleave with the table
        status = mqlab_main([*args, "-r", str(QUEUES), "-w", str(QUEUES)])
    if status != 0:
        raise RuntimeError(f"updateTopic {topic} failed: {said.getvalue()}")


def prefill(producer: DefaultMQProducer, count: int, topic: str = TOPIC) -> None:
    """``count`` messages in batch sends of ``SEND_BATCH`` (round robin over the queues)."""
    body = random.Random(7).randbytes(BODY_SIZE)
    for start in range(0, count, SEND_BATCH):
        batch = [Message(topic, "TagA", f"k{start + i}", body) for i in range(min(SEND_BATCH, count - start))]
        if producer.send(batch).send_status is not SendStatus.SEND_OK:
            raise RuntimeError("a pre-fill send failed")


def push_drain(namesrv_addr: str, count: int) -> Row:
    """A push consumer reads the ``count`` stored messages from the first offset; first to last message."""
    runtime = client_runtime("bench-stream-consumer")
    listener = Counting(count)
    consumer = push_consumer(
        "bench_stream_push", runtime, namesrv_addr, TOPIC, listener, ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET
    )
    cpu = time.process_time()
    try:
        consumer.start()
        if not listener.done.wait(600):
            raise RuntimeError(f"the push consumer received {listener.count} of {count} messages in 600 s")
    finally:
        consumer.shutdown()
        runtime.scheduler.close()
    seconds = listener.last - listener.first
    measurement = Measurement(listener.count, listener.count * BODY_SIZE, seconds, time.process_time() - cpu)
    return Row("DefaultMQPushConsumer (this process), first -> last message", measurement)


def spark_options(namesrv_addr: str, topic: str) -> dict[str, str]:
    """The source's options for ``topic`` from its earliest offsets."""
    return {"nameServer": namesrv_addr, "topic": topic, "startingOffsets": "earliest"}


def spark_batch_read(spark, namesrv_addr: str, count: int) -> Row:
    """``spark.read.format("rocketmq")...count()``: planning, tasks and the count."""
    watch = Stopwatch()
    with watch:
        got = spark.read.format("rocketmq").options(**spark_options(namesrv_addr, TOPIC)).load().count()
    if got != count:
        raise RuntimeError(f"the Spark batch read counted {got} rows, expected {count}")
    return Row("spark.read rocketmq .count(), load() -> answer", Measurement.of(got, got * BODY_SIZE, watch))


def spark_stream_read(spark, namesrv_addr: str, count: int, checkpoint: Path) -> tuple[Row, Row]:
    """``readStream`` with AvailableNow into the ``noop`` sink: its micro-batches, and ``start()`` to the end.

    The first row times the micro-batches only (the sum of their ``triggerExecution``: offsets, planning, the
    tasks, the checkpoint writes); the second adds the query's start (Spark starts a Python process that plans
    the stream and resolves the starting offsets) and its end.
    """
    watch = Stopwatch()
    began = time.time()
    with watch:
        query = (
            spark.readStream.format("rocketmq")
            .options(**spark_options(namesrv_addr, TOPIC))
            .load()
            .writeStream.format("noop")
            .option("checkpointLocation", str(checkpoint))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination(600)
    if query.exception() is not None:
        raise RuntimeError(f"the streaming read failed: {query.exception()}")
    got = sum(p["numInputRows"] for p in query.recentProgress)
    if got != count:
        raise RuntimeError(f"the streaming read saw {got} rows, expected {count}")
    batches = [p for p in query.recentProgress if p["numInputRows"]]
    seconds = sum(p["durationMs"]["triggerExecution"] for p in query.recentProgress) / 1000
    micro = Row("spark.readStream AvailableNow -> noop, its micro-batches", Measurement(got, got * BODY_SIZE, seconds))
    micro.measurement.notes.append(f"{len(batches)} micro-batch(es) with rows")
    whole = Row("spark.readStream AvailableNow -> noop, start() -> end", Measurement.of(got, got * BODY_SIZE, watch))
    first = datetime.fromisoformat(query.recentProgress[0]["timestamp"].replace("Z", "+00:00")).timestamp()
    whole.measurement.notes.append(
        f"the first micro-batch began {first - began:.2f} s after start(); {len(query.recentProgress)} progress "
        "report(s) in all"
    )
    return micro, whole


@dataclass(frozen=True, slots=True)
class Latency:
    """The latency case: milliseconds from born timestamp to the driver per message, and the micro-batches."""

    waits: list[float]
    batches: int  # micro-batches that had rows
    batch_ms_p50: float  # their median triggerExecution
    rows_p50: float  # their median row count


def latency(
    spark, namesrv_addr: str, producer: DefaultMQProducer, scale: Scale, checkpoint: Path, max_partitions: int
) -> Latency:
    """Milliseconds from each message's born timestamp to its arrival in ``foreachBatch`` (1 s trigger)."""
    from pyspark.sql import functions as F  # noqa: N812 - PySpark's own convention

    arrivals: list[float] = []
    lock = threading.Lock()

    def on_batch(frame, batch_id: int) -> None:
        born = [r[0] for r in frame.select((F.col("born_timestamp").cast("double") * 1000).alias("ms")).collect()]
        now_ms = time.time() * 1000
        with lock:
            arrivals.extend(now_ms - b for b in born)

    query = (
        spark.readStream.format("rocketmq")
        .options(nameServer=namesrv_addr, topic=LATENCY_TOPIC, startingOffsets="latest")
        .option("maxPartitions", str(max_partitions))
        .load()
        .writeStream.foreachBatch(on_batch)
        .option("checkpointLocation", str(checkpoint))
        .trigger(processingTime="1 second")
        .start()
    )
    try:
        deadline = time.monotonic() + 60
        while query.lastProgress is None:  # the first batch fixes the starting offsets: nothing sent yet is lost
            if time.monotonic() > deadline or query.exception() is not None:
                raise RuntimeError(f"the latency query did not start: {query.exception()}")
            time.sleep(0.1)
        body = random.Random(9).randbytes(BODY_SIZE)
        total = scale.latency_rate * scale.latency_seconds
        started = time.monotonic()
        for i in range(total):
            pause = started + i / scale.latency_rate - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            producer.send(Message(LATENCY_TOPIC, "TagA", f"l{i}", body))
        deadline = time.monotonic() + 60
        while True:
            with lock:
                if len(arrivals) >= total:
                    break
            if time.monotonic() > deadline or query.exception() is not None:
                raise RuntimeError(f"{len(arrivals)} of {total} messages reached the sink: {query.exception()}")
            time.sleep(0.1)
        batches = [p for p in query.recentProgress if p["numInputRows"]]
    finally:
        query.stop()
    durations = [float(p["durationMs"]["triggerExecution"]) for p in batches]
    rows = [float(p["numInputRows"]) for p in batches]
    return Latency(arrivals, len(batches), WakeUp.percentile(durations, 50), WakeUp.percentile(rows, 50))


def format_table(rows: list[Row]) -> list[str]:
    """The throughput figures as fixed-width text."""
    head = f"{'case':<60} {'records':>8} {'s':>7} {'records/s':>10} {'vs push':>8} {'client':>6}"
    lines = [head, "-" * len(head)]
    for row in rows:
        m = row.measurement
        ratio = f"{row.ratio:.2f}x" if row.ratio is not None else ""
        lines.append(
            f"{row.case:<60} {m.count:>8,} {m.seconds:>7.2f} {m.per_second:>10,.0f} {ratio:>8} "
            f"{100 * m.cpu_share:>5.0f}%"
        )
    lines.append(
        "vs push: records/s over the push consumer's in this run; client: this process's CPU over wall time (for "
        "Spark, the driver's Python only: the JVM and the Python workers are other processes)"
    )
    return lines


def run(work: Path, scale: Scale) -> tuple[list[str], list[summary.SummaryRow]]:
    """Every case against one ``mqlab namesrv`` and ``mqlab broker``; the report's lines and its summary rows."""
    from mqlab.spark.datasources import spark_session
    from mqlab.spark.rocketmq_source import DEFAULT_MAX_PARTITIONS, register

    lines: list[str] = []
    with real_servers(work) as (namesrv_addr, _broker):
        create_topic(namesrv_addr, TOPIC)
        create_topic(namesrv_addr, LATENCY_TOPIC)
        runtime = client_runtime("bench-stream-producer")
        producer = DefaultMQProducer(PRODUCER_GROUP, runtime, namesrv_addr=namesrv_addr)
        producer.start()
        try:
            progress(f"pre-filling {scale.messages:,} messages of {BODY_SIZE} B over {QUEUES} queues")
            prefill(producer, scale.messages)
            progress("push consumer")
            push = push_drain(namesrv_addr, scale.messages)
            progress("starting Spark")
            spark = spark_session("mqlab-streaming-bench", work / "spark")
            register(spark)
            try:
                # warm-up, not timed: the JVM's code paths and the Python workers, on messages of the latency
                # topic (whose query starts at its latest offsets)
                prefill(producer, WARM_UP, LATENCY_TOPIC)
                spark.read.format("rocketmq").options(**spark_options(namesrv_addr, LATENCY_TOPIC)).load().count()
                progress("Spark batch read")
                batch = spark_batch_read(spark, namesrv_addr, scale.messages)
                progress("Spark streaming read")
                micro, whole = spark_stream_read(spark, namesrv_addr, scale.messages, work / "ck-stream")
                progress("end-to-end latency")
                late = latency(spark, namesrv_addr, producer, scale, work / "ck-latency", DEFAULT_MAX_PARTITIONS)
                progress(f"end-to-end latency, maxPartitions {QUEUES} (one task per queue)")
                per_queue = latency(spark, namesrv_addr, producer, scale, work / "ck-latency-per-queue", QUEUES)
            finally:
                spark.stop()
        finally:
            producer.shutdown()
            runtime.scheduler.close()
    spark_rows = [batch, micro, whole]
    for row in spark_rows:
        row.ratio = row.measurement.per_second / push.measurement.per_second
    lines += format_table([push, *spark_rows])
    for row in spark_rows:
        verdict = "met" if row.ratio is not None and row.ratio >= RATIO_TARGET else "NOT MET"
        if scale is not FULL:  # the push consumer drains a few thousand messages in a fraction of a second
            verdict = f"not judged on {scale.messages:,} messages, where Spark's fixed costs dominate"
        notes = "; ".join(row.measurement.notes)
        lines.append(
            f"{row.case}: target >= {RATIO_TARGET}x the push consumer: {verdict}{'; ' + notes if notes else ''}"
        )
    headline = [summary.SummaryRow("streaming", push.case, push.measurement.per_second, "records/s", 1.0, "push")]
    for row in spark_rows:
        met = row.ratio is not None and row.ratio >= RATIO_TARGET if scale is FULL else None
        headline.append(
            summary.SummaryRow(
                "streaming",
                row.case,
                row.measurement.per_second,
                "records/s",
                row.ratio,
                "push consumer",
                f">= {RATIO_TARGET}x",
                met,
            )
        )
    lines += [
        "",
        f"end-to-end latency, {len(late.waits)} messages sent at {scale.latency_rate}/s for {scale.latency_seconds} s,"
        " processingTime trigger 1 s, foreachBatch collect; born timestamp -> rows in the driver:",
    ]
    for name, case in (
        (f"maxPartitions {DEFAULT_MAX_PARTITIONS} (default)", late),
        (f"maxPartitions {QUEUES}", per_queue),
    ):
        waits = case.waits
        p50, p99 = WakeUp.percentile(waits, 50), WakeUp.percentile(waits, 99)
        lines.append(
            f"  {name:<24} p50 {p50:5.0f} ms, p99 {p99:5.0f} ms, max {max(waits):5.0f} ms; {case.batches} "
            f"micro-batches with rows, median {case.rows_p50:.0f} rows and {case.batch_ms_p50:.0f} ms each"
        )
        headline.append(
            summary.SummaryRow("streaming", f"end-to-end latency p99, {name}", WakeUp.percentile(waits, 99), "ms")
        )
    return lines, headline


def main(argv: list[str] | None = None) -> int:
    """Run every case and print the report (exit status 0 even when a target is not met)."""
    parser = argparse.ArgumentParser(prog="python -m bench.streaming_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small counts: a short run of about a minute")
    parser.add_argument("--smoke", action="store_true", help="tiny counts: proves every case runs; no target judged")
    parser.add_argument("--dir", help="parent directory for the temporary stores (default: the system temp dir)")
    args = parser.parse_args(argv)
    scale = SMOKE if args.smoke else QUICK if args.quick else FULL
    load = os.getloadavg()
    print(
        f"mqlab Spark streaming benchmark ({scale.name} run), {time.strftime('%Y-%m-%d')}, {os.cpu_count()} CPUs, "
        f"{platform.python_implementation()} {platform.python_version()}; load average at start: {load[0]:.2f}",
        flush=True,
    )
    print(
        f"{scale.messages:,} messages of {BODY_SIZE} B over {QUEUES} queues; mqlab namesrv and mqlab broker as "
        "processes on loopback (ASYNC_FLUSH); Spark local[2]",
        flush=True,
    )
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mqlab-streaming-bench-", dir=args.dir) as tmp:
        lines, headline = run(Path(tmp), scale)
    print()
    for line in lines:
        print(line)
    load = os.getloadavg()
    print(f"load average at end: {load[0]:.2f}; total {time.perf_counter() - started:.0f} s")
    summary.record(headline)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``format("rocketmq")`` against real ``mqlab namesrv`` and ``mqlab broker`` processes on loopback.

The expiry and broker-down cases use an in-process ``Cluster.real`` (still TCP on loopback) because they need to
run the store's clean passes, or stop a broker, at a chosen moment.
"""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from pyspark.sql import Row

from mqlab.cli import main
from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.cluster import Cluster
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.filter import filter_api
from mqlab.common.message.message import Message
from mqlab.runtime import ThreadedRuntime
from mqlab.spark.datasources import spark_session
from mqlab.spark.rocketmq_client import (
    BrokerUnreachableError,
    NameServerUnreachableError,
    QueueClient,
    QueueRoute,
    UnknownTopicError,
)
from mqlab.spark.rocketmq_sink import SentCounts, SinkOptions, send_rows, total_counts, uniq_key
from mqlab.spark.rocketmq_source import (
    ROCKETMQ_SCHEMA,
    ArrowRows,
    PullsAhead,
    QueueRange,
    RocketMQBatchReader,
    RocketMQOptionError,
    RocketMQStreamReader,
    SourceOptions,
    pack,
    register,
)

pytestmark = pytest.mark.spark


# -- real processes ----------------------------------------------------------------------------------------------
def _spawn(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "mqlab", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _boot_line(proc: subprocess.Popen, marker: str) -> str:
    line = proc.stdout.readline()
    assert marker in line, (line, proc.stderr.read() if proc.poll() is not None else "")
    return line


@pytest.fixture(scope="module")
def namesrv(tmp_path_factory):
    """``mqlab namesrv`` and one ``mqlab broker`` as processes; yields the name server address."""
    root = tmp_path_factory.mktemp("rocketmq")
    conf = root / "namesrv.properties"
    conf.write_text(f"kvConfigPath={root / 'kv.json'}\nlistenPort=0\n")
    ns = _spawn("namesrv", "-c", str(conf))
    port = int(_boot_line(ns, "The Name Server boot success").rsplit(":", 1)[1].rstrip(")\n"))
    addr = f"127.0.0.1:{port}"
    store = root / "store"
    broker_conf = root / "broker.conf"
    broker_conf.write_text(
        "\n".join(
            [
                "brokerClusterName=DefaultCluster",
                "brokerName=broker-a",
                "brokerId=0",
                "listenPort=0",
                "brokerIP1=127.0.0.1",
                f"namesrvAddr={addr}",
                f"storePathRootDir={store}",
                f"storePathCommitLog={store / 'commitlog'}",
                "mappedFileSizeCommitLog=4194304",
                "maxHashSlotNum=1000",
                "maxIndexNum=4000",
            ]
        )
        + "\n"
    )
    broker = _spawn("broker", "-c", str(broker_conf))
    _boot_line(broker, "boot success")
    yield addr
    for proc in (broker, ns):
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    session = spark_session("mqlab-rocketmq-tests", tmp_path_factory.mktemp("spark-tmp"))
    register(session)
    yield session
    session.stop()


class Producer:
    """A started ``DefaultMQProducer`` on its own threaded runtime."""

    def __init__(self, namesrv_addr: str, group: str = "spark_test_producer"):
        self.runtime = ThreadedRuntime.create(group)
        self.producer = DefaultMQProducer(group, self.runtime, namesrv_addr=namesrv_addr)
        self.producer.start()

    def send(self, topic: str, count: int, *, tags=("TagA",), prefix: str = "m") -> list[str]:
        ids = []
        for i in range(count):
            msg = Message(topic, tags[i % len(tags)], f"key{i}", f"{prefix}{i}".encode())
            ids.append(self.producer.send(msg).msg_id)
        return ids

    def close(self) -> None:
        self.producer.shutdown()
        self.runtime.scheduler.close()


def admin(*argv: str) -> None:
    assert main(["admin", *argv]) == 0


def run_available_now(spark, options: dict, out: Path, checkpoint: Path, fmt: str = "parquet") -> None:
    query = (
        spark.readStream.format("rocketmq")
        .options(**options)
        .load()
        .writeStream.format(fmt)
        .option("path", str(out))
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(90)
    if query.exception() is not None:
        raise query.exception()


def committed_batches(checkpoint: Path) -> list[int]:
    return sorted(int(p.name) for p in (checkpoint / "commits").iterdir() if p.name.isdigit())


def forget_commit(checkpoint: Path, batch: int) -> None:
    """Make the checkpoint look as if the query died after running ``batch`` but before committing it."""
    (checkpoint / "commits" / str(batch)).unlink()
    (checkpoint / "commits" / f".{batch}.crc").unlink(missing_ok=True)


def checkpoint_offsets(checkpoint: Path, batch: int) -> dict:
    lines = (checkpoint / "offsets" / str(batch)).read_text().splitlines()
    return json.loads(lines[-1])  # the source's offset, as latestOffset returned it


# -- streaming into a file sink ------------------------------------------------------------------------------------
@pytest.mark.spec("STREAM-1", "STREAM-2", "STREAM-3", "STREAM-4", "STREAM-5", "STREAM-16")
def test_stream_while_producing_then_restart_and_expand_without_loss_or_duplicate(spark, namesrv, tmp_path):
    topic = "SparkStreamTopic"
    admin("updateTopic", "-n", namesrv, "-c", "DefaultCluster", "-t", topic, "-r", "2", "-w", "2")
    producer = Producer(namesrv)
    try:
        sent = producer.send(topic, 30)
        out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
        options = {"nameServer": namesrv, "topic": topic, "startingOffsets": "earliest", "maxOffsetsPerTrigger": "12"}
        run_available_now(spark, options, out, checkpoint)
        # 30 messages, at most 12 a batch: three batches; the offsets in the checkpoint are queue offsets.
        assert committed_batches(checkpoint) == [0, 1, 2]
        assert checkpoint_offsets(checkpoint, 2) == {topic: {"broker-a:0": 15, "broker-a:1": 15}}
        rows = spark.read.parquet(str(out)).collect()
        assert sorted(r.msg_id for r in rows) == sorted(sent)
        assert {(r.queue_id, r.queue_offset) for r in rows} == {(q, o) for q in (0, 1) for o in range(15)}

        # A crash after batch 2's offsets were logged but before it was committed: the restart re-runs batch 2,
        # and more messages arrived meanwhile, on two more queues added by updateTopic.
        forget_commit(checkpoint, 2)
        admin("updateTopic", "-n", namesrv, "-c", "DefaultCluster", "-t", topic, "-r", "4", "-w", "4")
        producer.close()
        producer = Producer(namesrv, "spark_test_producer_2")  # a fresh route: four queues
        sent += producer.send(topic, 20, prefix="late")
        run_available_now(spark, options, out, checkpoint)
        rows = spark.read.parquet(str(out)).collect()
        ids = [r.msg_id for r in rows]
        assert len(ids) == len(set(ids)) == 50
        assert set(ids) == set(sent)
        assert {r.queue_id for r in rows} == {0, 1, 2, 3}
        last = committed_batches(checkpoint)[-1]
        assert set(checkpoint_offsets(checkpoint, last)[topic]) == {f"broker-a:{q}" for q in range(4)}
        assert list(rows[0].asDict()) == ROCKETMQ_SCHEMA.fieldNames()
        first = min(rows, key=lambda r: r.commit_log_offset)  # the first message sent: m0
        assert (first.topic, first.broker, first.tags, first.keys, first.reconsume_times) == (
            topic,
            "broker-a",
            "TagA",
            "key0",
            0,
        )
        assert first.body == b"m0" and first.properties["UNIQ_KEY"] == first.msg_id
        assert first.store_host.startswith("127.0.0.1:") and first.store_timestamp >= first.born_timestamp
    finally:
        producer.close()


@pytest.mark.spec("STREAM-6", "STREAM-7")
def test_tag_filter_timestamp_start_and_batch_read(spark, namesrv, tmp_path):
    topic = "SparkTagTopic"
    admin("updateTopic", "-n", namesrv, "-c", "DefaultCluster", "-t", topic, "-r", "1", "-w", "1")
    producer = Producer(namesrv, "spark_tag_producer")
    try:
        producer.send(topic, 20, tags=("TagA", "TagB", "TagC"))
        base = {"nameServer": namesrv, "topic": topic, "startingOffsets": "earliest"}
        out = tmp_path / "tags"
        run_available_now(spark, {**base, "subExpression": "TagA || TagC"}, out, tmp_path / "ck", fmt="json")
        tags = sorted(r.tags for r in spark.read.json(str(out)).collect())
        assert tags == sorted(["TagA"] * 7 + ["TagC"] * 6)

        batch = spark.read.format("rocketmq").options(**base, endingOffsets=json.dumps({topic: {"broker-a:0": 5}}))
        assert [r.queue_offset for r in batch.load().orderBy("queue_offset").collect()] == [0, 1, 2, 3, 4]
        stored = [r.store_timestamp for r in spark.read.format("rocketmq").options(**base).load().collect()]
        assert len(stored) == 20
        before = {**base, "startingOffsets": str(int(min(stored).timestamp() * 1000) - 60_000)}
        assert spark.read.format("rocketmq").options(**before).load().count() == 20
        # After the last message, 4.9.3's SEARCH_OFFSET_BY_TIMESTAMP answers the last message's offset, not the max.
        after = {**base, "startingOffsets": str(int(max(stored).timestamp() * 1000) + 60_000)}
        assert [r.queue_offset for r in spark.read.format("rocketmq").options(**after).load().collect()] == [19]
    finally:
        producer.close()


@pytest.mark.spec("HARD-16")
def test_a_batch_read_of_an_empty_range_returns_no_rows(spark, namesrv):
    topic = "SparkEmptyRangeTopic"
    admin("updateTopic", "-n", namesrv, "-c", "DefaultCluster", "-t", topic, "-r", "2", "-w", "2")
    base = {"nameServer": namesrv, "topic": topic}
    # A topic with no message yet: earliest and latest are both 0 on every queue.
    assert spark.read.format("rocketmq").options(**base).load().collect() == []
    producer = Producer(namesrv, "spark_empty_range_producer")
    try:
        producer.send(topic, 6)
    finally:
        producer.close()
    rows = spark.read.format("rocketmq").options(**base).load().collect()
    assert len(rows) == 6
    assert spark.read.format("rocketmq").options(**base, startingOffsets="latest").load().count() == 0
    ends = {f"broker-a:{q}": max(r.queue_offset for r in rows if r.queue_id == q) + 1 for q in (0, 1)}
    same = json.dumps({topic: ends})
    frame = spark.read.format("rocketmq").options(**base, startingOffsets=same, endingOffsets=same).load()
    assert frame.collect() == [] and frame.schema == ROCKETMQ_SCHEMA


@pytest.mark.spec("STREAM-8")
def test_commit_offsets_to_broker_shows_the_jobs_lag_in_consumer_progress(spark, namesrv, tmp_path, capsys):
    topic, group = "SparkProgressTopic", "spark_progress_group"
    admin("updateTopic", "-n", namesrv, "-c", "DefaultCluster", "-t", topic, "-r", "2", "-w", "2")
    producer = Producer(namesrv, "spark_progress_producer")
    try:
        producer.send(topic, 10)
        options = {
            "nameServer": namesrv,
            "topic": topic,
            "startingOffsets": "earliest",
            "consumerGroup": group,
            "commitOffsetsToBroker": "true",
            "maxOffsetsPerTrigger": "4",
        }
        run_available_now(spark, options, tmp_path / "out", tmp_path / "ck")
        producer.send(topic, 4)  # not read yet: the lag
        capsys.readouterr()
        assert main(["admin", "consumerProgress", "-n", namesrv, "-g", group, "--json"]) == 0
        progress = json.loads(capsys.readouterr().out)
        # Batches ended at 2, 4 and 5 per queue. Spark commits batch N to the source when it plans batch N+1, so
        # the broker has batch 1's offsets: one batch behind the checkpoint, as with Kafka's committed offsets.
        assert committed_batches(tmp_path / "ck") == [0, 1, 2]
        assert checkpoint_offsets(tmp_path / "ck", 2) == {topic: {"broker-a:0": 5, "broker-a:1": 5}}
        assert [(q["queueId"], q["consumerOffset"], q["brokerOffset"]) for q in progress["queues"]] == [
            (0, 4, 7),
            (1, 4, 7),
        ]
        assert progress["diffTotal"] == 6
    finally:
        producer.close()


# -- the sink ------------------------------------------------------------------------------------------------------
@pytest.mark.spec("STREAM-9", "STREAM-10")
def test_sink_output_is_consumed_by_a_push_consumer_with_ids_stable_across_a_rerun(spark, namesrv, tmp_path):
    topic = "SparkSinkTopic"
    admin("updateTopic", "-n", namesrv, "-c", "DefaultCluster", "-t", topic, "-r", "2", "-w", "2")
    source = tmp_path / "in"
    source.mkdir()
    rows = [
        {
            "topic": topic,
            "body": f"row{i}",
            "tags": "Sink",
            "keys": f"k{i}",
            "properties": {"n": str(i)},
            "queue_id": i % 2,
        }
        for i in range(12)
    ]
    (source / "part-0.json").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    schema = "topic string, body string, tags string, keys string, properties map<string,string>, queue_id int"
    checkpoint = tmp_path / "ck"

    def write_stream() -> None:
        query = (
            spark.readStream.schema(schema)
            .json(str(source))
            .coalesce(1)
            .writeStream.format("rocketmq")
            .option("nameServer", namesrv)
            .option("checkpointLocation", str(checkpoint))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination(90)
        assert query.exception() is None

    write_stream()
    forget_commit(checkpoint, 0)  # batch 0 "failed" after sending: the restart sends it again
    write_stream()

    got: list = []
    lock = threading.Lock()

    def on_messages(msgs, context):
        with lock:
            got.extend(msgs)
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    runtime = ThreadedRuntime.create("sink-consumer")
    consumer = DefaultMQPushConsumer(
        "spark_sink_consumer",
        runtime,
        namesrv_addr=namesrv,
        consume_from_where=ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET,
    )
    consumer.subscribe(topic, "*")
    consumer.register_message_listener(on_messages)
    consumer.start()
    try:
        assert runtime.scheduler.wait_until(lambda: len(got) >= 24, 30_000)
    finally:
        consumer.shutdown()
        runtime.scheduler.close()
    # At least once: every row twice (the batch ran twice), with the same UNIQ_KEY both times.
    by_id: dict[str, list] = {}
    for m in got:
        by_id.setdefault(m.get_msg_id(), []).append(m)
    assert len(got) == 24 and len(by_id) == 12
    assert all(len(copies) == 2 for copies in by_id.values())
    assert sorted(m.body.decode() for copies in by_id.values() for m in copies[:1]) == sorted(r["body"] for r in rows)
    for copies in by_id.values():
        m = copies[0]
        i = int(m.body.decode()[3:])
        assert (m.get_tags(), m.get_keys(), m.get_property("n"), m.queue_id) == ("Sink", f"k{i}", str(i), i % 2)


@pytest.mark.spec("STREAM-9")
def test_a_sink_task_batches_its_sends_and_counts_messages_per_queue(namesrv):
    topic = "SparkSinkCountTopic"
    admin("updateTopic", "-n", namesrv, "-c", "DefaultCluster", "-t", topic, "-r", "2", "-w", "2")
    options = SinkOptions.parse({"nameServer": namesrv, "topic": topic, "sendBatchSize": "4"})
    rows = [Row(body=f"b{i}", queue_id=0 if i < 6 else 1) for i in range(9)]
    counts = send_rows(iter(rows), options)
    assert counts == SentCounts({f"{topic}@broker-a:0": 6, f"{topic}@broker-a:1": 3})
    assert total_counts([counts, None, counts]) == {f"{topic}@broker-a:0": 12, f"{topic}@broker-a:1": 6}


@pytest.mark.spec("STREAM-10")
def test_sink_ids_depend_only_on_the_rows_place():
    assert uniq_key("stage=3", 1, 7) == uniq_key("stage=3", 1, 7)
    assert len({uniq_key("stage=3", p, i) for p in range(3) for i in range(50)}) == 150
    assert len(uniq_key("q", 0, 0)) == 32 and uniq_key("q", 0, 0) == uniq_key("q", 0, 0).upper()


# -- lost offsets, a broker going away -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def expired(tmp_path_factory):
    """An in-process cluster whose topic ``Expiring`` lost its first 48 of 60 messages to the clean pass."""
    small = {"mapped_file_size_commit_log": 4096, "mapped_file_size_consume_queue": 200, "file_reserved_time": 0}
    cluster = Cluster.real(tmp_path_factory.mktemp("expiry"), store_settings=small).start()
    admin("updateTopic", "-n", cluster.namesrv_addr, "-c", "DefaultCluster", "-t", "Expiring", "-r", "1", "-w", "1")
    producer = Producer(cluster.namesrv_addr, "spark_expiry_producer")
    producer.send("Expiring", 60, prefix="x" * 150)
    producer.close()
    store = cluster.broker().message_store
    store.execute_delete_files_manually()
    store.clean_files_periodically()
    assert store.get_min_offset_in_queue("Expiring", 0) == 48
    yield cluster
    cluster.shutdown()


@pytest.mark.spec("STREAM-11")
def test_offsets_lost_to_expiry_fail_the_query_naming_queue_and_offsets(spark, expired, tmp_path):
    options = {
        "nameServer": expired.namesrv_addr,
        "topic": "Expiring",
        "startingOffsets": '{"Expiring": {"broker-a:0": 0}}',
    }
    with pytest.raises(Exception, match=r"queue broker-a:0: offsets \[0, 48\) were deleted"):
        run_available_now(spark, options, tmp_path / "out", tmp_path / "ck")
    assert committed_batches(tmp_path / "ck") == []


@pytest.mark.spec("STREAM-12")
def test_offsets_lost_to_expiry_are_skipped_and_logged_without_fail_on_data_loss(spark, expired, tmp_path, caplog):
    options = {
        "nameServer": expired.namesrv_addr,
        "topic": "Expiring",
        "startingOffsets": '{"Expiring": {"broker-a:0": 0}}',
        "failOnDataLoss": "false",
    }
    run_available_now(spark, options, tmp_path / "out", tmp_path / "ck")
    offsets = sorted(r.queue_offset for r in spark.read.parquet(str(tmp_path / "out")).collect())
    assert offsets == list(range(48, 60))
    # The same read in this process, where the warning can be seen.
    reader = RocketMQBatchReader(SourceOptions.parse(options, streaming=False))
    with caplog.at_level(logging.WARNING, logger="mqlab.spark.rocketmq"):
        assert sum(b.num_rows for p in reader.partitions() for b in reader.read(p)) == 12
    assert "offsets [0, 48) were deleted from the broker (its min offset is 48); skipping them" in caplog.text


@pytest.mark.spec("STREAM-13")
def test_broker_down_mid_batch_fails_after_bounded_retries_naming_broker_and_queue(tmp_path):
    cluster = Cluster.real(tmp_path / "down").start()
    try:
        admin("updateTopic", "-n", cluster.namesrv_addr, "-c", "DefaultCluster", "-t", "Down", "-r", "1", "-w", "1")
        producer = Producer(cluster.namesrv_addr, "spark_down_producer")
        producer.send("Down", 5)
        producer.close()
        options = SourceOptions.parse(
            {
                "nameServer": cluster.namesrv_addr,
                "topic": "Down",
                "startingOffsets": "earliest",
                "pullTimeoutMs": "500",
            },
            streaming=True,
        )
        reader = RocketMQStreamReader(options)
        start = reader.initialOffset()
        (partition,) = reader.partitions(start, reader.latestOffset(start, reader.getDefaultReadLimit()))
        reader.stop()
        addr = cluster.broker().get_broker_addr()
        cluster.broker().shutdown()
        with pytest.raises(BrokerUnreachableError) as failure:
            list(reader.read(partition))
        assert "PULL_MESSAGE from offset 0 of topic 'Down' queue broker-a:0 failed 3 times at broker broker-a" in str(
            failure.value
        )
        assert addr in str(failure.value)
    finally:
        cluster.namesrv.shutdown()


# -- options and lookups -------------------------------------------------------------------------------------------
@pytest.mark.spec("STREAM-14")
@pytest.mark.parametrize(
    ("options", "option", "accepted"),
    [
        ({"topic": "T"}, "nameServer", "required"),
        ({"nameServer": "127.0.0.1:9876"}, "topic", "required"),
        ({"nameServer": "127.0.0.1:9876", "topic": "T", "startingOffsets": "{oops"}, "startingOffsets", "earliest"),
        (
            {"nameServer": "127.0.0.1:9876", "topic": "T", "startingOffsets": '{"U": {"broker-a:0": 1}}'},
            "startingOffsets",
            "not among topic=T",
        ),
        (
            {"nameServer": "127.0.0.1:9876", "topic": "T", "startingOffsets": '{"T": {"broker-a": 1}}'},
            "startingOffsets",
            "queue 'broker-a'",
        ),
        (
            {"nameServer": "127.0.0.1:9876", "topic": "T", "maxOffsetsPerTrigger": "0"},
            "maxOffsetsPerTrigger",
            "positive integer",
        ),
        ({"nameServer": "127.0.0.1:9876", "topic": "T", "failOnDataLoss": "maybe"}, "failOnDataLoss", "true or false"),
        (
            {"nameServer": "127.0.0.1:9876", "topic": "T", "commitOffsetsToBroker": "true"},
            "commitOffsetsToBroker",
            "needs consumerGroup",
        ),
        ({"nameServer": "127.0.0.1:9876", "topic": "T", "endingOffsets": "latest"}, "endingOffsets", "batch reads"),
        ({"nameServer": "127.0.0.1:9876", "topic": "T", "startingOffset": "earliest"}, "startingOffset", "unknown"),
    ],
)
def test_a_bad_option_is_a_named_error(options, option, accepted):
    with pytest.raises(RocketMQOptionError, match=accepted) as failure:
        SourceOptions.parse(options, streaming=True)
    assert failure.value.option == option and f"rocketmq option {option}=" in str(failure.value)


@pytest.mark.spec("STREAM-14", "STREAM-15")
def test_option_and_lookup_errors_reach_the_spark_user(spark, namesrv, tmp_path):
    bad = spark.readStream.format("rocketmq").option("nameServer", namesrv).option("topic", "T")
    with pytest.raises(Exception, match="rocketmq option pullBatchSize='-3' is not valid: a positive integer"):
        bad.option("pullBatchSize", "-3").load().writeStream.format("noop").start().awaitTermination(30)
    with pytest.raises(Exception, match="topic 'NoSuchTopic' does not exist on name server"):
        spark.read.format("rocketmq").options(nameServer=namesrv, topic="NoSuchTopic").load().collect()
    with pytest.raises(UnknownTopicError):
        RocketMQBatchReader(SourceOptions.parse({"nameServer": namesrv, "topic": "NoSuchTopic"}, streaming=False))
    with pytest.raises(NameServerUnreachableError, match=r"name server 127\.0\.0\.1:1 unreachable"):
        RocketMQBatchReader(SourceOptions.parse({"nameServer": "127.0.0.1:1", "topic": "T"}, streaming=False))


# -- how a task reads: Arrow columns from the pull bodies, pulls ahead, tasks per batch ------------------------------
def _queue_and_options(namesrv: str, topic: str, **extra: str) -> tuple[QueueClient, QueueRoute, SourceOptions]:
    options = SourceOptions.parse({"nameServer": namesrv, "topic": topic, **extra}, streaming=False)
    client = options.client()
    (queue,) = client.routes(topic)
    return client, queue, options


@pytest.mark.spec("STREAM-17")
def test_arrow_rows_equal_the_client_decoder_on_the_same_pull(namesrv):
    topic = "SparkArrowTopic"
    admin("updateTopic", "-n", namesrv, "-c", "DefaultCluster", "-t", topic, "-r", "1", "-w", "1")
    producer = Producer(namesrv, "spark_arrow_producer")
    try:
        producer.send(topic, 9, tags=("TagA", "TagB", "TagC"))
        big = Message(topic, "TagA", "big", b"compressible " * 800)  # over 4 KB: the producer deflates it
        big.put_user_property("color", "blue")
        producer.producer.send(big)
    finally:
        producer.close()
    client, queue, _ = _queue_and_options(namesrv, topic)
    try:
        for expression, tags, end in (
            ("*", None, 10),
            ("TagA || TagC", frozenset({"TagA", "TagC"}), 10),
            ("*", None, 4),
        ):
            subscription = filter_api.build_subscription_data(topic, expression)
            outcome = client.pull(queue, 0, 32, subscription, "spark_arrow_reader")
            expected = [m for m in outcome.messages(subscription) if m.queue_offset < end]
            rows = ArrowRows("broker-a", tags)
            rows.add_records(outcome.records, end)
            got = rows.batch().to_pylist()
            assert len(got) == len(expected) and len(rows) == 0  # batch() starts the columns again
            for row, m in zip(got, expected, strict=True):
                assert dict(row.pop("properties")) == dict(m.properties.items())
                assert row == {
                    "topic": topic,
                    "broker": "broker-a",
                    "queue_id": 0,
                    "queue_offset": m.queue_offset,
                    "commit_log_offset": m.commit_log_offset,
                    "msg_id": m.get_property("UNIQ_KEY"),
                    "offset_msg_id": m.msg_id,
                    "tags": m.get_tags(),
                    "keys": m.get_keys(),
                    "body": m.body,
                    "born_timestamp": row["born_timestamp"],
                    "store_timestamp": row["store_timestamp"],
                    "born_host": str(m.born_host).lstrip("/"),
                    "store_host": str(m.store_host).lstrip("/"),
                    "reconsume_times": m.reconsume_times,
                    "sys_flag": m.sys_flag,
                }
                assert row["born_timestamp"].timestamp() * 1000 == m.born_timestamp
                assert row["store_timestamp"].timestamp() * 1000 == m.store_timestamp
        assert [r["queue_offset"] for r in got] == [0, 1, 2, 3]
        assert got[0]["body"] == b"m0"
    finally:
        client.close()
    compressed = spark_rows_of(namesrv, topic)[-1]
    assert compressed["body"] == b"compressible " * 800 and compressed["sys_flag"] & 1
    assert dict(compressed["properties"])["color"] == "blue"


def spark_rows_of(namesrv: str, topic: str) -> list[dict]:
    """Every row of ``topic`` read by the batch reader in this process."""
    reader = RocketMQBatchReader(SourceOptions.parse({"nameServer": namesrv, "topic": topic}, streaming=False))
    return [row for p in reader.partitions() for b in reader.read(p) for row in b.to_pylist()]


@pytest.mark.spec("STREAM-18")
def test_pulls_ahead_are_used_when_they_guess_right_and_never_change_what_is_read(namesrv):
    topic = "SparkAheadTopic"
    admin("updateTopic", "-n", namesrv, "-c", "DefaultCluster", "-t", topic, "-r", "1", "-w", "1")
    producer = Producer(namesrv, "spark_ahead_producer")
    try:
        producer.send(topic, 100, tags=("TagA", "TagB", "TagC"))
    finally:
        producer.close()

    def read_all(pull_batch_size: str, expression: str) -> tuple[PullsAhead, int, list[int]]:
        client, queue, options = _queue_and_options(
            namesrv, topic, pullBatchSize=pull_batch_size, subExpression=expression
        )
        part = QueueRange(topic, "broker-a", queue.addr, 0, 0, 100)
        subscription = filter_api.build_subscription_data(topic, expression)
        pulls = PullsAhead(client, part, options, subscription, "spark_ahead_reader")
        tags = None if expression == "*" else frozenset(expression.split(" || "))
        rows, offset, requests = ArrowRows("broker-a", tags), 0, 0
        try:
            while offset < part.end:
                outcome = pulls.pull(offset)
                rows.add_records(outcome.records, part.end)
                offset, requests = outcome.next_begin_offset, requests + 1
        finally:
            client.close()
        return pulls, requests, rows.batch().column("queue_offset").to_pylist()

    pulls, requests, offsets = read_all("8", "*")
    assert offsets == list(range(100))
    assert requests == 13 and pulls.used == 12 and pulls.sent == 12  # every pull after the first was already asked
    # pullBatchSize 64: the broker answers 32 at most (maxTransferCountOnMessageInMemory); the stride is learnt.
    pulls, requests, offsets = read_all("64", "*")
    assert offsets == list(range(100))
    assert pulls.stride == 32 and requests == 4 and pulls.used >= 2
    # A tag filter makes the next offset unpredictable: nothing is guessed, and only TagA rows come back.
    pulls, requests, offsets = read_all("8", "TagA")
    assert offsets == list(range(0, 100, 3)) and pulls.sent == 0


@pytest.mark.spec("HARD-16")
def test_an_empty_batch_is_one_task_of_no_range_read_without_connecting():
    reader = RocketMQBatchReader.__new__(RocketMQBatchReader)  # skip __init__: it asks the name server
    reader.options = SourceOptions.parse({"nameServer": "127.0.0.1:1", "topic": "T"}, streaming=False)
    reader.ranges = []
    (task,) = reader.partitions()
    assert task.ranges == ()
    assert list(reader.read(task)) == []  # port 1 would refuse a connection: none is made


@pytest.mark.spec("STREAM-19")
def test_a_batch_packs_its_queue_ranges_into_at_most_max_partitions_tasks():
    ranges = [QueueRange("T", "broker-a", "", q, 0, size) for q, size in enumerate([10, 1, 1, 1, 7])]
    packed = pack(ranges, 2)
    assert [[r.queue_id for r in task.ranges] for task in packed] == [[0], [1, 2, 3, 4]]
    assert [sum(r.end - r.start for r in task.ranges) for task in packed] == [10, 10]
    assert [[r.queue_id for r in task.ranges] for task in pack(ranges, 8)] == [[0], [4], [1], [2], [3]]
    assert pack([], 2) == []
    options = {"nameServer": "127.0.0.1:9876", "topic": "T"}
    assert SourceOptions.parse(options, streaming=True).max_partitions == 2
    assert SourceOptions.parse({**options, "maxPartitions": "8"}, streaming=True).max_partitions == 8
    with pytest.raises(RocketMQOptionError, match="maxPartitions='0' is not valid: a positive integer"):
        SourceOptions.parse({**options, "maxPartitions": "0"}, streaming=True)

"""The data sources: planning and reading without Spark, then in a real local session (marked ``spark``)."""

from __future__ import annotations

import datetime as dt
import os
import pickle
import shutil

import pytest
from pyspark.sql.datasource import CaseInsensitiveDict, EqualTo, GreaterThanOrEqual, In, InputPartition, LessThan
from pyspark.sql.types import StructType

from mqlab.spark import segment_reader as sr
from mqlab.spark.datasources import (
    COMMITLOG_FORMAT,
    CONSUMEQUEUE_FORMAT,
    DATA_SOURCES,
    CommitLogDataSource,
    ConsumeQueueDataSource,
    register,
)
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from tests.spark.reference import expected_row

spark_only = pytest.mark.spark


# -- planning and reading, driven without a JVM ------------------------------------------------------------------
def _reader(source_class, **options):
    source = source_class(CaseInsensitiveDict(options))
    return source.reader(schema=source.schema())


@pytest.mark.spec("SDS-1")
def test_format_names_and_schemas():
    assert CommitLogDataSource.name() == COMMITLOG_FORMAT == "mqlab_commitlog"
    assert ConsumeQueueDataSource.name() == CONSUMEQUEUE_FORMAT == "mqlab_consumequeue"
    assert CommitLogDataSource({}).schema() == sr.spark_schema(sr.COMMITLOG_COLUMNS)
    assert ConsumeQueueDataSource({}).schema() == sr.spark_schema(sr.CONSUMEQUEUE_COLUMNS)


@pytest.mark.spec("SDS-4")
def test_commitlog_reader_plans_one_picklable_partition_per_small_segment(sample_store):
    reader = _reader(CommitLogDataSource, path=str(sample_store.root))
    partitions = reader.partitions()
    assert [p.value.segment.name for p in partitions] == [s.name for s in sample_store.summary.segments]
    assert all((p.value.start, p.value.end) == (0, p.value.segment.size) for p in partitions)
    assert pickle.loads(pickle.dumps(partitions[0])).value == partitions[0].value
    counts = [sum(b.num_rows for b in reader.read(p)) for p in partitions]
    assert counts == [s.records for s in sample_store.summary.segments]


def test_consumequeue_reader_plans_one_partition_per_file(sample_store):
    reader = _reader(ConsumeQueueDataSource, path=str(sample_store.root / "consumequeue"))
    partitions = reader.partitions()
    assert [p.value for p in partitions] == sr.find_consume_queue_files(sample_store.root, "broker-a")
    assert sum(b.num_rows for p in partitions for b in reader.read(p)) == sample_store.summary.messages


@pytest.mark.parametrize("source_class", DATA_SOURCES)
def test_a_store_without_files_reads_nothing(tmp_path, source_class):
    (tmp_path / "commitlog").mkdir()
    (tmp_path / "consumequeue").mkdir()
    (tmp_path / "config").mkdir()
    reader = _reader(source_class, path=str(tmp_path))
    assert _rows(reader) == []
    if source_class in DATA_SOURCES[:3]:
        assert reader.partitions() == []
    assert list(reader.read(InputPartition(None))) == []  # what Spark plans when there is no partition


def test_options_are_parsed_case_insensitively(sample_store):
    reader = _reader(
        CommitLogDataSource, path=str(sample_store.root), MODE="permissive", checkcrc="FALSE", batchrows="7"
    )
    assert (reader.mode, reader.check_crc, reader.batch_rows) == (sr.ReadMode.PERMISSIVE, False, 7)
    assert max(b.num_rows for b in reader.read(reader.partitions()[0])) == 7


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "needs a path"),
        ({"mode": "DROPMALFORMED"}, "DROPMALFORMED"),
        ({"checkCRC": "yes"}, "checkCRC"),
        ({"batchRows": "0"}, "batchRows"),
        ({"maxPartitionBytes": "-1"}, "maxPartitionBytes"),
        ({"pushdown": "maybe"}, "pushdown"),
    ],
)
def test_bad_options_are_named(sample_store, options, message):
    if options:
        options["path"] = str(sample_store.root)
    with pytest.raises(ValueError, match=message):
        CommitLogDataSource(CaseInsensitiveDict(options)).reader(schema=CommitLogDataSource({}).schema())


def test_another_schema_is_refused_by_the_reader(sample_store):
    source = CommitLogDataSource(CaseInsensitiveDict(path=str(sample_store.root)))
    with pytest.raises(ValueError, match="fixed schema"):
        source.reader(schema=StructType([]))


def test_register_names_both_sources():
    class Registry:
        def __init__(self):
            self.registered = []

        def register(self, cls):
            self.registered.append(cls.name())

    class FakeSession:
        dataSource = Registry()  # noqa: N815 (Spark's attribute name)

    session = FakeSession()
    register(session)
    assert session.dataSource.registered == [source.name() for source in DATA_SOURCES]
    assert session.dataSource.registered[:2] == [COMMITLOG_FORMAT, CONSUMEQUEUE_FORMAT]
    assert len(set(session.dataSource.registered)) == len(DATA_SOURCES) == 8


# -- several brokers, ranges and pushdown, without a JVM ------------------------------------------------------------
@pytest.fixture
def two_brokers(sample_store, tmp_path):
    """A directory of two brokers' stores (both links to the sample store)."""
    for name in ("broker-a", "broker-b"):
        (tmp_path / name).symlink_to(sample_store.root.parent, target_is_directory=True)
    return tmp_path


def _rows(reader):
    return [row for p in reader.partitions() for b in reader.read(p) for row in b.to_pylist()]


@pytest.mark.spec("SDS-2")
def test_a_directory_of_stores_reads_as_one_table_with_a_broker_column(sample_store, two_brokers):
    rows = _rows(_reader(CommitLogDataSource, path=str(two_brokers)))
    assert len(rows) == 2 * sample_store.summary.messages
    assert {r["broker"] for r in rows} == {"broker-a", "broker-b"}
    units = _rows(_reader(ConsumeQueueDataSource, path=str(two_brokers)))
    assert sorted({r["broker"] for r in units}) == ["broker-a", "broker-b"]
    single = _rows(_reader(CommitLogDataSource, path=str(sample_store.root), broker="b1"))
    assert {r["broker"] for r in single} == {"b1"}
    with pytest.raises(ValueError, match="holds 2"):
        _reader(CommitLogDataSource, path=str(two_brokers), broker="b1")


@pytest.mark.spec("SDS-4")
@pytest.mark.parametrize("max_bytes", ["1", "1000"])
def test_tiny_ranges_read_what_the_unsplit_read_reads(sample_store, max_bytes):
    whole = _rows(_reader(CommitLogDataSource, path=str(sample_store.root)))
    reader = _reader(CommitLogDataSource, path=str(sample_store.root), maxPartitionBytes=max_bytes)
    assert len(reader.partitions()) > len(sample_store.summary.segments)
    if max_bytes == "1":  # every record boundary is a range edge
        assert len(reader.partitions()) == sample_store.summary.messages
    assert _rows(reader) == whole


def _pushed(sample_store, filters):
    reader = _reader(CommitLogDataSource, path=str(sample_store.root), maxPartitionBytes="4096", pushdown="true")
    returned = list(reader.pushFilters(filters))
    assert returned == filters  # Spark re-applies every filter: pushdown only prunes
    return reader


def _spark_filter(rows, filters):
    def ok(row, f):
        value = row[f.attribute[0]]
        if isinstance(f, EqualTo):
            return value == f.value
        if isinstance(f, In):
            return value in f.value
        if isinstance(f, GreaterThanOrEqual):
            return value is not None and value >= f.value
        return value is not None and value < f.value

    return [r for r in rows if all(ok(r, f) for f in filters)]


@pytest.mark.spec("SDS-5")
@pytest.mark.parametrize(
    "make_filters",
    [
        lambda m: [EqualTo(("topic",), m[0][1].topic)],
        lambda m: [EqualTo(("topic",), m[0][1].topic), In(("queue_id",), (1, 2))],
        lambda m: [
            GreaterThanOrEqual(("physical_offset",), m[50][1].commit_log_offset),
            LessThan(("physical_offset",), m[90][1].commit_log_offset),
        ],
        lambda m: [
            GreaterThanOrEqual(("store_timestamp",), _utc(m[100][1].store_timestamp)),
            LessThan(("store_timestamp",), _utc(m[140][1].store_timestamp)),
        ],
        lambda m: [EqualTo(("broker",), "elsewhere")],
        lambda m: [In(("physical_offset",), [m[7][1].commit_log_offset, m[300][1].commit_log_offset])],
    ],
    ids=["topic", "topic-queues", "offsets", "hour", "broker", "offset-list"],
)
def test_pushdown_reads_fewer_ranges_and_the_same_rows(sample_store, make_filters):
    filters = make_filters(sample_store.messages)
    plain = _reader(CommitLogDataSource, path=str(sample_store.root), maxPartitionBytes="4096")
    pushed = _pushed(sample_store, filters)
    all_ranges, kept = plain.plan(), pushed.plan()
    assert len(kept) < len(all_ranges)
    assert sum(r.end - r.start for r in kept) < sum(r.end - r.start for r in all_ranges)
    assert _spark_filter(_rows(pushed), filters) == _spark_filter(_rows(plain), filters)


def _utc(millis):
    return dt.datetime.fromtimestamp(millis / 1000, tz=dt.UTC)


@pytest.mark.spec("SDS-5")
def test_consumequeue_pushdown_prunes_files(sample_store):
    topic = sample_store.messages[0][1].topic
    reader = _reader(ConsumeQueueDataSource, path=str(sample_store.root), pushdown="true")
    everything = len(reader.partitions())
    reader.pushFilters([EqualTo(("topic",), topic), EqualTo(("queue_id",), 0)])
    files = [p.value for p in reader.partitions()]
    assert 0 < len(files) < everything and {(f.topic, f.queue_id) for f in files} == {(topic, 0)}


# -- in a local Spark session -------------------------------------------------------------------------------------
def _commitlog(spark, root, **options):
    return spark.read.format(COMMITLOG_FORMAT).options(**options).load(str(root))


def _damaged_copy(sample_store, tmp_path):
    """A copy whose second segment has a bad magic code in its second record; returns (root, segment, offset)."""
    root = tmp_path / "broker-a" / "store"
    shutil.copytree(sample_store.root / "commitlog", root / "commitlog")
    segment = sr.find_commitlog_segments(root)[1]
    pos = next(sr.iter_segment_records(segment)).total_size
    with open(segment.path, "r+b") as f:
        f.seek(pos + 4)
        f.write(b"\x00\x00\x00\x01")
    return root, segment, segment.start_offset + pos


@spark_only
def test_session_settings(spark):
    conf = spark.conf
    assert os.environ["PYSPARK_PYTHON"] and os.environ["SPARK_LOCAL_IP"]
    assert conf.get("spark.sql.shuffle.partitions") == "2"
    assert conf.get("spark.sql.session.timeZone") == "UTC"
    assert spark.sparkContext.master == "local[2]"
    assert spark.sparkContext.getConf().get("spark.ui.enabled") == "false"


@spark_only
def test_one_partition_per_segment(spark, sample_store):
    df = _commitlog(spark, sample_store.root)
    assert df.rdd.getNumPartitions() == len(sample_store.summary.segments)
    assert df.schema == sr.spark_schema(sr.COMMITLOG_COLUMNS)


@spark_only
@pytest.mark.spec("SDS-3")
def test_every_field_equals_message_decoder(spark, sample_store):
    df = _commitlog(spark, sample_store.root).selectExpr(
        "*", "unix_millis(born_timestamp) AS born_ms", "unix_millis(store_timestamp) AS store_ms"
    )
    rows = [r.asDict() for r in df.orderBy("physical_offset").collect()]
    assert len(rows) == len(sample_store.messages) == sample_store.summary.messages
    for row, (segment, msg) in zip(rows, sample_store.messages, strict=True):
        row["born_timestamp"] = row.pop("born_ms")
        row["store_timestamp"] = row.pop("store_ms")
        row["body"] = bytes(row["body"])
        assert row == expected_row(segment, msg)


@spark_only
def test_store_root_and_commitlog_dir_read_the_same(spark, sample_store):
    assert _commitlog(spark, sample_store.root / "commitlog").count() == sample_store.summary.messages


@spark_only
def test_consumequeue_equals_the_units(spark, sample_store):
    df = spark.read.format(CONSUMEQUEUE_FORMAT).load(str(sample_store.root))
    assert df.schema == sr.spark_schema(sr.CONSUMEQUEUE_COLUMNS)
    assert df.rdd.getNumPartitions() == len(sr.find_consume_queue_files(sample_store.root))
    got = {(r.topic, r.queue_id, r.queue_offset, r.commit_log_offset, r.size, r.tags_code) for r in df.collect()}
    expected = {
        (
            m.topic,
            m.queue_id,
            m.queue_offset,
            m.commit_log_offset,
            m.store_size,
            MessageExtBrokerInner.tags_string2tags_code(m.get_tags()),
        )
        for _, m in sample_store.messages
    }
    assert df.count() == len(got) == len(expected)
    assert got == expected


@spark_only
@pytest.mark.spec("SDS-6")
def test_corrupt_record_fails_naming_file_and_offset(spark, sample_store, tmp_path):
    root, segment, offset = _damaged_copy(sample_store, tmp_path)
    with pytest.raises(Exception) as caught:  # Spark wraps the worker's error (PythonException or Py4J)
        _commitlog(spark, root).count()
    text = str(caught.value)
    assert "BadMagicCodeError" in text
    assert f"CommitLog offset {offset} of commitlog/{segment.name}" in text


@spark_only
@pytest.mark.spec("SDS-7")
def test_permissive_returns_the_corrupt_span_as_a_row_and_keeps_the_rest(spark, sample_store, tmp_path):
    root, segment, offset = _damaged_copy(sample_store, tmp_path)
    df = _commitlog(spark, root, mode="PERMISSIVE", maxPartitionBytes="2000")
    bad = df.where("_corrupt IS NOT NULL").select("physical_offset", "segment", "_corrupt.*").collect()
    assert [(r.physical_offset, r.segment, r.offset, r.field, r.error) for r in bad] == [
        (offset, segment.name, offset, "MAGICCODE", "BadMagicCodeError")
    ]
    assert df.where("_corrupt IS NULL").count() == sample_store.summary.messages - 1


@spark_only
def test_unknown_mode_is_rejected(spark, sample_store):
    with pytest.raises(Exception, match="DROPMALFORMED"):
        _commitlog(spark, sample_store.root, mode="DROPMALFORMED").count()


@spark_only
def test_another_schema_is_rejected(spark, sample_store):
    with pytest.raises(Exception, match="fixed schema"):
        spark.read.format(COMMITLOG_FORMAT).schema("topic STRING").load(str(sample_store.root)).count()


@spark_only
def test_a_store_without_files_is_an_empty_table(spark, tmp_path):
    (tmp_path / "commitlog").mkdir()
    assert _commitlog(spark, tmp_path).count() == 0


@spark_only
@pytest.mark.spec("SDS-5")
def test_pushdown_in_spark_gives_the_same_rows_from_fewer_partitions(spark, sample_store):
    topic = sample_store.messages[0][1].topic
    query = f"topic = '{topic}' AND queue_id = 1 AND physical_offset >= 20000"
    pushed = _commitlog(spark, sample_store.root, maxPartitionBytes="4096", pushdown="true").where(query)
    plain = _commitlog(spark, sample_store.root, maxPartitionBytes="4096").where(query)
    assert pushed.rdd.getNumPartitions() < plain.rdd.getNumPartitions()
    key = ["physical_offset"]
    assert pushed.orderBy(key).collect() == plain.orderBy(key).collect()
    # the default plans every scan on its own: two differently filtered branches of one loaded DataFrame stay right
    both = _commitlog(spark, sample_store.root)
    by_topic = {
        t: both.where(f"topic = '{t}'").groupBy("broker").count().withColumnRenamed("count", t)
        for t in ("TopicOrders", "TopicPayments")
    }
    (row,) = by_topic["TopicOrders"].join(by_topic["TopicPayments"], "broker").collect()
    counts = {t: sum(1 for _, m in sample_store.messages if m.topic == t) for t in by_topic}
    assert (row.TopicOrders, row.TopicPayments) == (counts["TopicOrders"], counts["TopicPayments"])


@spark_only
@pytest.mark.spec("SDS-1", "SDS-2")
def test_every_format_reads_a_directory_of_brokers(spark, sample_store, two_brokers):
    from mqlab.spark import store_files

    stores = store_files.find_stores(two_brokers)
    for source in DATA_SOURCES[2:]:
        df = spark.read.format(source.name()).load(str(two_brokers))
        assert df.schema == source(CaseInsensitiveDict()).schema()
        one_store = len(_rows(_reader(source, path=str(stores[0].path))))
        assert df.count() == 2 * one_store
        if one_store:  # the sample store has no topics, groups or consumer offsets files
            assert {r.broker for r in df.select("broker").distinct().collect()} == {"broker-a", "broker-b"}


@spark_only
@pytest.mark.spec("SDS-8")
def test_column_functions_in_spark_equal_the_plain_functions(spark, sample_store):
    from mqlab.spark import functions as fn

    df = _commitlog(spark, sample_store.root).where("sys_flag & 1 = 1 OR queue_offset < 2")
    out = fn.properties_as_columns(df, ["TAGS"], prefix="p_").select(
        "body",
        "sys_flag",
        "msg_id",
        "uniq_key",
        "store_timestamp",
        "tags",
        "p_TAGS",
        fn.decompress_body_udf().alias("plain"),
        fn.decode_offset_msg_id_udf().alias("where"),
        fn.decode_uniq_key_udf().alias("uniq"),
        fn.index_key_hash_udf("topic", "uniq_key").alias("hash"),
        "topic",
    )
    rows = out.collect()
    assert any(r.sys_flag & 1 for r in rows)
    for r in rows:
        assert r.p_TAGS == r.tags
        assert r.plain == fn.decompress_body(bytes(r.body), r.sys_flag)
        assert r.where.asDict() == fn.decode_offset_msg_id(r.msg_id)
        expected = fn.decode_uniq_key(r.uniq_key, r.store_timestamp)
        expected["born_time"] = expected["born_time"].replace(tzinfo=None)  # Spark hands back naive UTC (session)
        assert r.uniq.asDict() == expected
        assert r.hash == fn.index_key_hash(r.topic, r.uniq_key)

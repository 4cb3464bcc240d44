"""The two data sources: planning and reading without Spark, then in a real local session (marked ``spark``)."""

from __future__ import annotations

import os
import pickle
import shutil

import pytest
from pyspark.sql.datasource import CaseInsensitiveDict, InputPartition
from pyspark.sql.types import StructType

from mqlab.spark import segment_reader as sr
from mqlab.spark.datasources import (
    COMMITLOG_FORMAT,
    CONSUMEQUEUE_FORMAT,
    CommitLogDataSource,
    ConsumeQueueDataSource,
    register,
    spark_session,
)
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from tests.spark.reference import expected_row

spark_only = pytest.mark.spark


# -- planning and reading, driven without a JVM ------------------------------------------------------------------
def _reader(source_class, **options):
    source = source_class(CaseInsensitiveDict(options))
    return source.reader(schema=source.schema())


def test_format_names_and_schemas():
    assert CommitLogDataSource.name() == COMMITLOG_FORMAT == "mqlab_commitlog"
    assert ConsumeQueueDataSource.name() == CONSUMEQUEUE_FORMAT == "mqlab_consumequeue"
    assert CommitLogDataSource({}).schema() == sr.spark_schema(sr.COMMITLOG_COLUMNS)
    assert ConsumeQueueDataSource({}).schema() == sr.spark_schema(sr.CONSUMEQUEUE_COLUMNS)


def test_commitlog_reader_plans_one_picklable_partition_per_segment(sample_store):
    reader = _reader(CommitLogDataSource, path=str(sample_store.root))
    partitions = reader.partitions()
    assert [p.value.name for p in partitions] == [s.name for s in sample_store.summary.segments]
    assert pickle.loads(pickle.dumps(partitions[0])).value == partitions[0].value
    counts = [sum(b.num_rows for b in reader.read(p)) for p in partitions]
    assert counts == [s.records for s in sample_store.summary.segments]


def test_consumequeue_reader_plans_one_partition_per_file(sample_store):
    reader = _reader(ConsumeQueueDataSource, path=str(sample_store.root / "consumequeue"))
    partitions = reader.partitions()
    assert [p.value for p in partitions] == sr.find_consume_queue_files(sample_store.root)
    assert sum(b.num_rows for p in partitions for b in reader.read(p)) == sample_store.summary.messages


@pytest.mark.parametrize("source_class", [CommitLogDataSource, ConsumeQueueDataSource])
def test_a_store_without_files_reads_nothing(tmp_path, source_class):
    (tmp_path / "commitlog").mkdir()
    (tmp_path / "consumequeue").mkdir()
    reader = _reader(source_class, path=str(tmp_path))
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
    ],
)
def test_bad_options_are_named(sample_store, options, message):
    if options:
        options["path"] = str(sample_store.root)
    with pytest.raises(ValueError, match=message):
        _reader(CommitLogDataSource, **options)


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
    assert session.dataSource.registered == [COMMITLOG_FORMAT, CONSUMEQUEUE_FORMAT]


# -- in a local Spark session -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    session = spark_session("mqlab-tests", tmp_path_factory.mktemp("spark-tmp"))
    register(session)
    yield session
    session.stop()


def _commitlog(spark, root, **options):
    return spark.read.format(COMMITLOG_FORMAT).options(**options).load(str(root))


def _damaged_copy(sample_store, tmp_path):
    """A copy whose second segment has a bad magic code in its second record; returns (root, segment, offset)."""
    root = tmp_path / "store"
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
def test_corrupt_record_fails_naming_file_and_offset(spark, sample_store, tmp_path):
    root, segment, offset = _damaged_copy(sample_store, tmp_path)
    with pytest.raises(Exception) as caught:  # Spark wraps the worker's error (PythonException or Py4J)
        _commitlog(spark, root).count()
    text = str(caught.value)
    assert "BadMagicCodeError" in text
    assert f"CommitLog offset {offset} of commitlog/{segment.name}" in text


@spark_only
def test_permissive_skips_the_rest_of_the_damaged_segment(spark, sample_store, tmp_path):
    root, segment, _ = _damaged_copy(sample_store, tmp_path)
    df = _commitlog(spark, root, mode="PERMISSIVE")
    counts = {r.segment: r["count"] for r in df.groupBy("segment").count().collect()}
    expected = {s.name: s.records for s in sample_store.summary.segments}
    expected[segment.name] = 1
    assert counts == expected


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

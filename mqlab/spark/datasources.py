"""PySpark Python Data Sources over every file of a RocketMQ store, and a helper that starts a quiet local session.

Java: none (teaching helper). The contract is docs/spec/spark-datasources.md (SDS-1, SDS-2, ...).

=============================  ================================================  ==================================
format                         one row per                                       one partition per
=============================  ================================================  ==================================
``mqlab_commitlog``            message record (or corrupt span, PERMISSIVE)      byte range of a segment
``mqlab_consumequeue``         ConsumeQueue unit                                 ConsumeQueue file
``mqlab_index``                IndexFile entry / non-empty slot / header         index file
                               (option ``table``: entries, slots, header)
``mqlab_topics``               topic of ``config/topics.json``                   store
``mqlab_subscription_groups``  group of ``config/subscriptionGroup.json``        store
``mqlab_consumer_offsets``     (topic, group, queue) of ``consumerOffset.json``  store
``mqlab_delay_offsets``        delay level of ``config/delayOffset.json``        store
``mqlab_checkpoint``           store (its ``checkpoint`` file)                   store
=============================  ================================================  ==================================

``load(path)``: a store root, one of its ``commitlog``/``consumequeue``/``index``/``config`` directories, or a
directory of brokers' stores (``<path>/broker-a/store``...); every table has a ``broker`` column
(``store_files.find_stores``). The columns are declared in ``segment_reader`` and ``store_files``.

Design choices:

- **CommitLog ranges.** A segment is cut into byte ranges of about ``maxPartitionBytes`` (default 64 MiB), each
  starting at a record start found by ``segment_reader.next_record_start``; a task reads the records that start
  in its range. Small segments stay one task each.
- **Pushdown.** ``pushFilters`` takes filters on ``broker``, ``topic``, ``queue_id``, ``physical_offset`` and
  ``store_timestamp``: ranges that cannot hold a match are not planned (offsets exactly, timestamps by each range's
  first and next record, topics and queues by the ConsumeQueues' offsets), and rows that cannot match are not
  built. Every filter is also handed back to Spark, which applies it again. Pushdown is opt-in (``pushdown=true``):
  Spark plans one read per loaded relation and query, so two scans of the *same* loaded DataFrame in one query (a
  self-join, a filtered and an unfiltered branch) would both get the pushed filters of one of them, and a later
  unfiltered query of that DataFrame reuses the last pruned read. Load a separate DataFrame for each filtered
  query. Spark refuses a reader with ``pushFilters`` unless ``spark.sql.python.filterPushdown.enabled`` is true
  (``spark_session`` sets it).
- **Corrupt records.** ``mode=FAILFAST`` (default) fails the task with the layout's named error, naming the file,
  the record's CommitLog offset and the field. ``mode=PERMISSIVE`` returns a row whose ``_corrupt`` struct holds the
  span's offset, length, field, error class and message (other columns null but ``physical_offset``, ``segment``,
  ``broker``), then goes on at the next valid record (``_corrupt`` is null on every other row).
- **CRC.** ``checkCRC`` (default ``true``, like the broker's ``checkCRCOnRecover``) compares BODYCRC with the body.
- **Body** is the stored bytes, still zlib-compressed when ``sys_flag & 1``: ``mqlab.spark.functions`` decodes.
- **Timestamps** are Spark ``timestamp`` (microseconds, UTC); the files hold epoch milliseconds.
- The schemas are fixed: passing ``.schema(...)`` with other columns is an error. There is no column pruning.

The module must be importable by Spark's Python workers: install the project (``pip install -e .``) or let
``spark_session`` put the package's directory on ``PYTHONPATH`` before the JVM starts.
"""

from __future__ import annotations

import bisect
import datetime as dt
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqlab.common.extras import needs_extra
from mqlab.spark import store_files
from mqlab.spark.segment_reader import (
    COMMITLOG_COLUMNS,
    CONSUMEQUEUE_COLUMNS,
    DEFAULT_BATCH_ROWS,
    Column,
    CommitLogRange,
    ReadMode,
    RecordFilter,
    commitlog_batches,
    consume_queue_units,
    consumequeue_batches,
    find_commitlog_segments,
    find_consume_queue_files,
    plan_ranges,
    spark_schema,
)

with needs_extra("spark", __name__):
    from pyspark.sql import SparkSession
    from pyspark.sql.datasource import (
        DataSource,
        DataSourceReader,
        EqualTo,
        Filter,
        GreaterThan,
        GreaterThanOrEqual,
        In,
        InputPartition,
        LessThan,
        LessThanOrEqual,
    )
    from pyspark.sql.types import StructType

if TYPE_CHECKING:
    import pyarrow as pa

COMMITLOG_FORMAT = "mqlab_commitlog"
CONSUMEQUEUE_FORMAT = "mqlab_consumequeue"
INDEX_FORMAT = "mqlab_index"
DEFAULT_MAX_PARTITION_BYTES = 64 << 20


# -- options -----------------------------------------------------------------------------------------------------
def _path(options: Mapping[str, str], name: str) -> str:
    path = options.get("path")
    if not path:
        raise ValueError(f"{name} needs a path: spark.read.format({name!r}).load('<store root>')")
    # Resolved on the driver, so workers find the files whatever their working directory.
    return str(Path(path).resolve())


def _flag(options: Mapping[str, str], key: str, default: bool) -> bool:
    text = options.get(key)
    if text is None:
        return default
    if text.strip().lower() in ("true", "false"):
        return text.strip().lower() == "true"
    raise ValueError(f"option {key}={text!r} is not true or false")


def _positive(options: Mapping[str, str], key: str, default: int | None) -> int | None:
    text = options.get(key)
    if text is None:
        return default
    if not text.strip().isdigit() or int(text) <= 0:
        raise ValueError(f"option {key}={text!r} is not a positive integer")
    return int(text)


def _check_schema(name: str, schema: StructType, columns: tuple[Column, ...]) -> None:
    if schema != spark_schema(columns):
        raise ValueError(f"{name} has a fixed schema ({spark_schema(columns).simpleString()}); do not pass another")


def _stores(options: Mapping[str, str], name: str) -> list[store_files.StoreRoot]:
    return store_files.find_stores(_path(options, name), options.get("broker"))


# -- pushdown ------------------------------------------------------------------------------------------------------
def _millis(value: Any, *, round_up: bool) -> int | None:
    """Epoch ms of a timestamp literal, rounded outward (a naive datetime is UTC, the session time zone we set)."""
    if not isinstance(value, dt.datetime):
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    micros = round(value.timestamp() * 1_000_000)
    return -(-micros // 1000) if round_up else micros // 1000


@dataclass
class Pushed:
    """The conditions taken from Spark's filters (all inclusive; ``None``: no condition)."""

    brokers: set[str] | None = None
    topics: set[str] | None = None
    queue_ids: set[int] | None = None
    offsets: set[int] | None = None  # exact physical offsets (``=`` and ``IN``)
    bounds: dict[str, list[int | None]] = field(
        default_factory=lambda: {"physical_offset": [None, None], "store_timestamp": [None, None]}
    )

    def _values(self, current: set | None, values: Iterable[Any], kind: type) -> set | None:
        found = {v for v in values if isinstance(v, kind) and not isinstance(v, bool)}
        return found if current is None else current & found

    def _bound(self, column: str, low: int | None, high: int | None) -> None:
        lo, hi = self.bounds[column]
        if low is not None:
            self.bounds[column][0] = low if lo is None else max(lo, low)
        if high is not None:
            self.bounds[column][1] = high if hi is None else min(hi, high)

    def take(self, f: Filter, *, ranged: bool) -> None:
        """Narrow the conditions by ``f`` if it is one this source understands (others change nothing)."""
        column = f.attribute[0] if len(f.attribute) == 1 else None
        values = (f.value,) if isinstance(f, EqualTo) else tuple(f.value) if isinstance(f, In) else None
        if values is not None and column in ("broker", "topic"):
            target = self._values(getattr(self, column + "s"), values, str)
            setattr(self, column + "s", target)
        elif values is not None and column == "queue_id":
            self.queue_ids = self._values(self.queue_ids, values, int)
        elif ranged and values is not None and column == "physical_offset":
            self.offsets = self._values(self.offsets, values, int)
        elif ranged and column in self.bounds:
            self._take_range(f, column, values)

    def _take_range(self, f: Filter, column: str, values: tuple | None) -> None:
        if column == "physical_offset":

            def low(v: Any) -> int | None:
                return v if isinstance(v, int) else None

            high = low
        else:

            def low(v: Any) -> int | None:
                return _millis(v, round_up=False)

            def high(v: Any) -> int | None:
                return _millis(v, round_up=True)

        if values is not None:
            lows, highs = [low(v) for v in values], [high(v) for v in values]
            if lows and None not in lows and None not in highs:
                self._bound(column, min(lows), max(highs))
        elif isinstance(f, GreaterThan | GreaterThanOrEqual):
            self._bound(column, low(f.value), None)
        elif isinstance(f, LessThan | LessThanOrEqual):
            self._bound(column, None, high(f.value))

    def record_filter(self) -> RecordFilter:
        """The per-record test for the worker."""
        (min_offset, max_offset), (min_ts, max_ts) = self.bounds["physical_offset"], self.bounds["store_timestamp"]
        return RecordFilter(
            offsets=None if self.offsets is None else frozenset(self.offsets),
            topics=None if self.topics is None else frozenset(self.topics),
            queue_ids=None if self.queue_ids is None else frozenset(self.queue_ids),
            min_offset=min_offset,
            max_offset=max_offset,
            min_timestamp=min_ts,
            max_timestamp=max_ts,
        )


def _push(reader: Any, filters: list[Filter], *, ranged: bool) -> Iterator[Filter]:
    """Record what can prune, and hand every filter back to Spark (it re-applies them all: pushdown only prunes)."""
    for f in filters:
        reader.pushed.take(f, ranged=ranged)
        yield f


# -- CommitLog -----------------------------------------------------------------------------------------------------
class CommitLogDataSource(DataSource):
    """``mqlab_commitlog``: one row per message record of the CommitLog (and per corrupt span, PERMISSIVE).

    Options: ``path`` (required), ``broker`` (name for a single store), ``mode`` (``FAILFAST``, ``PERMISSIVE``),
    ``checkCRC`` (``true``), ``maxPartitionBytes`` (64 MiB), ``batchRows`` (rows per Arrow batch, 4096),
    ``pushdown`` (``false``).
    """

    @classmethod
    def name(cls) -> str:
        """The format name for ``spark.read.format``."""
        return COMMITLOG_FORMAT

    def schema(self) -> StructType:
        """The columns of ``segment_reader.COMMITLOG_COLUMNS``."""
        return spark_schema(COMMITLOG_COLUMNS)

    def reader(self, schema: StructType) -> CommitLogReader:
        """A reader for the options given (Spark requires the parameter to be named ``schema``)."""
        if _flag(self.options, "pushdown", False):
            return CommitLogPushdownReader(self.options, schema)
        return CommitLogReader(self.options, schema)


class CommitLogReader(DataSourceReader):
    """Plans byte ranges of the segments (on the driver) and reads a range into Arrow batches (in a worker)."""

    def __init__(self, options: Mapping[str, str], schema: StructType):
        _check_schema(COMMITLOG_FORMAT, schema, COMMITLOG_COLUMNS)
        self.stores = _stores(options, COMMITLOG_FORMAT)
        self.mode = ReadMode.parse(options.get("mode"))
        self.check_crc = _flag(options, "checkCRC", True)
        self.batch_rows = _positive(options, "batchRows", DEFAULT_BATCH_ROWS)
        self.max_partition_bytes = _positive(options, "maxPartitionBytes", DEFAULT_MAX_PARTITION_BYTES)
        self.pushed = Pushed()

    def plan(self) -> list[CommitLogRange]:
        """The ranges to read, in broker and offset order (what ``partitions`` wraps)."""
        ranges = []
        for store in self.stores:
            if self.pushed.brokers is not None and store.broker not in self.pushed.brokers:
                continue
            wanted = _QueueIndex.of(store, self.pushed)
            for segment in find_commitlog_segments(store.path, store.broker):
                if not self._offsets_overlap(segment.start_offset, segment.start_offset + segment.size):
                    continue
                for rng in plan_ranges(segment, self.max_partition_bytes, check_crc=self.check_crc):
                    if self._may_match(rng, wanted):
                        ranges.append(rng)
        return ranges

    def _offsets_overlap(self, first: int, end: int) -> bool:
        low, high = self.pushed.bounds["physical_offset"]
        if self.pushed.offsets is not None:
            wanted = sorted(self.pushed.offsets)
            i = bisect.bisect_left(wanted, first)
            if not (i < len(wanted) and wanted[i] < end):
                return False
        return (low is None or end > low) and (high is None or first <= high)

    def _may_match(self, rng: CommitLogRange, wanted: _QueueIndex | None) -> bool:
        if not self._offsets_overlap(rng.first_offset, rng.end_offset):
            return False
        low, high = self.pushed.bounds["store_timestamp"]
        # Store timestamps grow along the CommitLog (taken inside the put lock), so a range's records lie between
        # its first record's and the next range's first record's; an unknown one (corrupt) bounds nothing.
        if low is not None and rng.next_timestamp is not None and rng.next_timestamp < low:
            return False
        if high is not None and rng.first_timestamp is not None and rng.first_timestamp > high:
            return False
        return wanted is None or wanted.may_hold(rng.first_offset, rng.end_offset)

    def partitions(self) -> list[InputPartition]:
        """One ``InputPartition`` per planned range."""
        return [InputPartition(rng) for rng in self.plan()]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """The records of one range (see ``segment_reader.iter_range_records``)."""
        if partition.value is None:
            return  # Spark plans one empty partition when ``partitions()`` finds nothing
        yield from commitlog_batches(
            partition.value,
            mode=self.mode,
            check_crc=self.check_crc,
            batch_rows=self.batch_rows,
            record_filter=self.pushed.record_filter(),
        )


class CommitLogPushdownReader(CommitLogReader):
    """``CommitLogReader`` that also takes Spark's filters (a separate class: Spark checks for the method)."""

    def pushFilters(self, filters: list[Filter]) -> Iterable[Filter]:  # noqa: N802 (Spark's method name)
        """Keep broker, topic, queue, offset and timestamp conditions for planning; return every filter."""
        return list(_push(self, filters, ranged=True))


@dataclass(frozen=True)
class _QueueIndex:
    """CommitLog offsets of the records a topic/queue filter wants, from the ConsumeQueues of one store."""

    offsets: list[int]
    dispatched_end: int  # CommitLog offset past the last record any ConsumeQueue lists

    @classmethod
    def of(cls, store: store_files.StoreRoot, pushed: Pushed) -> _QueueIndex | None:
        if pushed.topics is None and pushed.queue_ids is None:
            return None
        if not (Path(store.path) / "consumequeue").is_dir():
            return None  # no ConsumeQueues to prune with: read everything
        files = find_consume_queue_files(store.path, store.broker)
        offsets, dispatched_end, last_of_queue = [], 0, {}
        for queue_file in files:
            last_of_queue[(queue_file.topic, queue_file.queue_id)] = queue_file
            if (pushed.topics is None or queue_file.topic in pushed.topics) and (
                pushed.queue_ids is None or queue_file.queue_id in pushed.queue_ids
            ):
                offsets += consume_queue_units(queue_file)["commit_log_offset"].tolist()
        for queue_file in last_of_queue.values():  # units grow along a queue: its last file has its last unit
            units = consume_queue_units(queue_file)
            ends = units["commit_log_offset"] + units["size"]
            dispatched_end = max(dispatched_end, int(ends.max(initial=0)))
        return cls(sorted(offsets), dispatched_end)

    def may_hold(self, first: int, end: int) -> bool:
        """Whether ``[first, end)`` holds a wanted record, or records no ConsumeQueue lists yet."""
        if end > self.dispatched_end:
            return True
        i = bisect.bisect_left(self.offsets, first)
        return i < len(self.offsets) and self.offsets[i] < end


# -- ConsumeQueue --------------------------------------------------------------------------------------------------
class ConsumeQueueDataSource(DataSource):
    """``mqlab_consumequeue``: one row per ConsumeQueue unit of every topic and queue.

    Options: ``path`` (required), ``broker``, ``batchRows`` (4096), ``pushdown`` (``false``).
    """

    @classmethod
    def name(cls) -> str:
        """The format name for ``spark.read.format``."""
        return CONSUMEQUEUE_FORMAT

    def schema(self) -> StructType:
        """The columns of ``segment_reader.CONSUMEQUEUE_COLUMNS``."""
        return spark_schema(CONSUMEQUEUE_COLUMNS)

    def reader(self, schema: StructType) -> ConsumeQueueReader:
        """A reader for the options given."""
        if _flag(self.options, "pushdown", False):
            return ConsumeQueuePushdownReader(self.options, schema)
        return ConsumeQueueReader(self.options, schema)


class ConsumeQueueReader(DataSourceReader):
    """Plans one partition per ConsumeQueue file and reads its units."""

    def __init__(self, options: Mapping[str, str], schema: StructType):
        _check_schema(CONSUMEQUEUE_FORMAT, schema, CONSUMEQUEUE_COLUMNS)
        self.stores = _stores(options, CONSUMEQUEUE_FORMAT)
        self.batch_rows = _positive(options, "batchRows", DEFAULT_BATCH_ROWS)
        self.pushed = Pushed()

    def partitions(self) -> list[InputPartition]:
        """One ``InputPartition`` per ConsumeQueue file, by broker, topic, queue and offset."""
        p = self.pushed
        return [
            InputPartition(queue_file)
            for store in self.stores
            if (p.brokers is None or store.broker in p.brokers) and (Path(store.path) / "consumequeue").is_dir()
            for queue_file in find_consume_queue_files(store.path, store.broker)
            if (p.topics is None or queue_file.topic in p.topics)
            and (p.queue_ids is None or queue_file.queue_id in p.queue_ids)
        ]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """The valid units of one file (see ``segment_reader.iter_consume_queue_units``)."""
        if partition.value is None:
            return
        yield from consumequeue_batches(partition.value, batch_rows=self.batch_rows)


class ConsumeQueuePushdownReader(ConsumeQueueReader):
    """``ConsumeQueueReader`` that prunes files by broker, topic and queue."""

    def pushFilters(self, filters: list[Filter]) -> Iterable[Filter]:  # noqa: N802 (Spark's method name)
        """Keep broker, topic and queue conditions; return every filter."""
        return list(_push(self, filters, ranged=False))


# -- IndexFile -----------------------------------------------------------------------------------------------------
class IndexDataSource(DataSource):
    """``mqlab_index``: the IndexFiles' ``entries`` (default), non-empty ``slots`` or ``header`` (option ``table``).

    Options: ``path`` (required), ``broker``, ``table``, ``hashSlotNum`` (slots per file; default derived from the
    file size with the default 4 entries per slot).
    """

    @classmethod
    def name(cls) -> str:
        """The format name for ``spark.read.format``."""
        return INDEX_FORMAT

    def schema(self) -> StructType:
        """The columns of the table named by the option ``table``."""
        return spark_schema(store_files.INDEX_TABLES[_index_table(self.options)])

    def reader(self, schema: StructType) -> IndexReader:
        """A reader for the options given."""
        return IndexReader(self.options, schema)


def _index_table(options: Mapping[str, str]) -> str:
    table = options.get("table", "entries").strip().lower()
    if table not in store_files.INDEX_TABLES:
        raise ValueError(f"option table={table!r} is not one of {', '.join(store_files.INDEX_TABLES)}")
    return table


class IndexReader(DataSourceReader):
    """One partition per index file."""

    def __init__(self, options: Mapping[str, str], schema: StructType):
        self.table = _index_table(options)
        _check_schema(INDEX_FORMAT, schema, store_files.INDEX_TABLES[self.table])
        self.stores = _stores(options, INDEX_FORMAT)
        self.hash_slot_num = _positive(options, "hashSlotNum", None)

    def partitions(self) -> list[InputPartition]:
        """Every index file of every store."""
        return [
            InputPartition(ref)
            for store in self.stores
            for ref in store_files.find_index_files(store, self.hash_slot_num)
        ]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """The file's rows of the chosen table."""
        if partition.value is None:
            return
        yield from store_files.index_batches(partition.value, self.table)


# -- config JSON and the checkpoint --------------------------------------------------------------------------------
class _SmallTableSource(DataSource):
    """One row per entry of a small per-store file; one partition per store."""

    FORMAT = ""

    @classmethod
    def name(cls) -> str:
        """The format name for ``spark.read.format``."""
        return cls.FORMAT

    def schema(self) -> StructType:
        """The table's columns (``store_files``)."""
        return spark_schema(store_files.SMALL_TABLES[self.FORMAT][0])

    def reader(self, schema: StructType) -> SmallTableReader:
        """A reader for the options given."""
        return SmallTableReader(self.FORMAT, self.options, schema)


class SmallTableReader(DataSourceReader):
    """Reads one store's file per partition with ``store_files.small_table_batches``."""

    def __init__(self, format_name: str, options: Mapping[str, str], schema: StructType):
        _check_schema(format_name, schema, store_files.SMALL_TABLES[format_name][0])
        self.format_name = format_name
        self.stores = _stores(options, format_name)

    def partitions(self) -> list[InputPartition]:
        """One partition per store."""
        return [InputPartition(store) for store in self.stores]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """The store's rows."""
        if partition.value is None:
            return
        yield from store_files.small_table_batches(self.format_name, partition.value)


class TopicsDataSource(_SmallTableSource):
    """``mqlab_topics``: ``config/topics.json``, one row per topic config."""

    FORMAT = "mqlab_topics"


class SubscriptionGroupsDataSource(_SmallTableSource):
    """``mqlab_subscription_groups``: ``config/subscriptionGroup.json``, one row per group."""

    FORMAT = "mqlab_subscription_groups"


class ConsumerOffsetsDataSource(_SmallTableSource):
    """``mqlab_consumer_offsets``: ``config/consumerOffset.json``, one row per topic, group and queue."""

    FORMAT = "mqlab_consumer_offsets"


class DelayOffsetsDataSource(_SmallTableSource):
    """``mqlab_delay_offsets``: ``config/delayOffset.json``, one row per delay level."""

    FORMAT = "mqlab_delay_offsets"


class CheckpointDataSource(_SmallTableSource):
    """``mqlab_checkpoint``: the ``checkpoint`` file, one row per store."""

    FORMAT = "mqlab_checkpoint"


DATA_SOURCES: tuple[type[DataSource], ...] = (
    CommitLogDataSource,
    ConsumeQueueDataSource,
    IndexDataSource,
    TopicsDataSource,
    SubscriptionGroupsDataSource,
    ConsumerOffsetsDataSource,
    DelayOffsetsDataSource,
    CheckpointDataSource,
)


def register(spark: SparkSession) -> None:
    """Make every ``mqlab_*`` format of ``DATA_SOURCES`` known to ``spark.read.format``."""
    for source in DATA_SOURCES:
        spark.dataSource.register(source)


def _prepend_env_path(name: str, directory: str) -> None:
    parts = [p for p in os.environ.get(name, "").split(os.pathsep) if p]
    if directory not in parts:
        os.environ[name] = os.pathsep.join([directory, *parts])


def session_builder(
    app_name: str, tmp_dir: str | os.PathLike[str], *, master: str = "local[2]"
) -> SparkSession.Builder:
    """The builder ``spark_session`` starts: callers that need more settings add them before ``getOrCreate``.

    Before the JVM starts (environment variables only reach the JVM and its Python workers then):
    ``PYSPARK_PYTHON`` defaults to this interpreter (else workers start a Python without pyarrow),
    ``SPARK_LOCAL_IP`` defaults to 127.0.0.1 (else Spark warns about a loopback host name), and the directory
    holding the ``mqlab`` package is put on ``PYTHONPATH`` so workers can import the data sources.

    Settings: no web UI and no progress bar (they would print into notebook cells), 2 shuffle partitions (the data
    is small), session time zone UTC (timestamps print the same on every machine), Arrow for ``toPandas``, filter
    pushdown into Python data sources (``spark.sql.python.filterPushdown.enabled``), and
    ``spark.local.dir``, ``java.io.tmpdir`` and the warehouse under ``tmp_dir``.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    _prepend_env_path("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    tmp = Path(tmp_dir).resolve()
    tmp.mkdir(parents=True, exist_ok=True)
    return (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.python.filterPushdown.enabled", "true")
        .config("spark.local.dir", str(tmp))
        .config("spark.driver.extraJavaOptions", f"-Djava.io.tmpdir={tmp}")
        .config("spark.sql.warehouse.dir", str(tmp / "warehouse"))
    )


def spark_session(app_name: str, tmp_dir: str | os.PathLike[str], *, master: str = "local[2]") -> SparkSession:
    """A ``local[2]`` session (or ``master``) that is quiet and keeps its temporary files under ``tmp_dir``.

    The settings are ``session_builder``'s; the log level is set to ERROR. If a session already runs in this
    process, ``getOrCreate`` returns it and settings fixed at start-up stay as they were.
    """
    spark = session_builder(app_name, tmp_dir, master=master).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark

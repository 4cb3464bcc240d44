"""Two PySpark Python Data Sources over a store's files, and a helper that starts a quiet local session.

Java: none (teaching helper).

``spark.read.format("mqlab_commitlog").load(path)`` gives one row per message record; ``"mqlab_consumequeue"``
gives one row per ConsumeQueue unit. ``path`` is a store root (the directory holding ``commitlog/`` and
``consumequeue/``) or the ``commitlog`` / ``consumequeue`` directory itself. The columns are declared in
``segment_reader`` (``COMMITLOG_COLUMNS``, ``CONSUMEQUEUE_COLUMNS``).

Design choices:

- **One Spark partition per file.** A CommitLog segment is read front to back because a record's length is only
  known from its first 4 bytes, so a file is the natural unit of parallel work (as Spark does for unsplittable
  files). A ConsumeQueue file is a partition too.
- **Where a segment ends.** At its blank record (every full segment has one) or at zero bytes (the unwritten rest
  of the last segment), as ``CommitLog#checkMessageAndReturnSize`` sees it.
- **Corrupt records.** By default (``mode=FAILFAST``) the task fails with the layout's named error
  (``BadMagicCodeError``, ``TruncatedRecordError``, ``RecordSizeMismatchError``, ``BodyCrcMismatchError``, or
  ``MessageFormatError`` for a misplaced record), whose message names the file, the record's CommitLog offset and
  the field. With ``mode=PERMISSIVE`` the records before the corrupt one are kept and **the rest of that segment is
  dropped silently**: no row, column or log line says so. Compare counts with the ConsumeQueue to notice.
- **CRC.** ``checkCRC`` (default ``true``, like the broker's ``checkCRCOnRecover``) compares BODYCRC with the body.
- **Properties** are a ``map<string,string>`` in stored order; TAGS, KEYS and UNIQ_KEY are also columns of their own.
- **Body** is the stored bytes: still zlib-compressed when ``sys_flag & 1`` (so ``body_crc`` can be checked).
- **Timestamps** are Spark ``timestamp`` (microseconds, UTC); the files hold epoch milliseconds.
- The schema is fixed: passing ``.schema(...)`` with other columns is an error. Python data sources read every
  column (no column pruning), and no filters are pushed down.

The module must be importable by Spark's Python workers: install the project (``pip install -e .``) or let
``spark_session`` put the package's directory on ``PYTHONPATH`` before the JVM starts.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from pyspark.sql import SparkSession
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from mqlab.spark.segment_reader import (
    COMMITLOG_COLUMNS,
    CONSUMEQUEUE_COLUMNS,
    DEFAULT_BATCH_ROWS,
    Column,
    ReadMode,
    commitlog_batches,
    consumequeue_batches,
    find_commitlog_segments,
    find_consume_queue_files,
    spark_schema,
)

if TYPE_CHECKING:
    import pyarrow as pa

COMMITLOG_FORMAT = "mqlab_commitlog"
CONSUMEQUEUE_FORMAT = "mqlab_consumequeue"


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


def _batch_rows(options: Mapping[str, str]) -> int:
    text = options.get("batchRows", str(DEFAULT_BATCH_ROWS))
    if not text.isdigit() or int(text) <= 0:
        raise ValueError(f"option batchRows={text!r} is not a positive integer")
    return int(text)


def _check_schema(name: str, schema: StructType, columns: tuple[Column, ...]) -> None:
    if schema != spark_schema(columns):
        raise ValueError(f"{name} has a fixed schema ({spark_schema(columns).simpleString()}); do not pass another")


class CommitLogDataSource(DataSource):
    """``mqlab_commitlog``: one row per message record of the CommitLog.

    Options: ``path`` (required), ``mode`` (``FAILFAST`` or ``PERMISSIVE``), ``checkCRC`` (``true``),
    ``batchRows`` (rows per Arrow batch, 4096).
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
        return CommitLogReader(self.options, schema)


class CommitLogReader(DataSourceReader):
    """Plans one partition per segment (on the driver) and reads a segment into Arrow batches (in a worker)."""

    def __init__(self, options: Mapping[str, str], schema: StructType):
        _check_schema(COMMITLOG_FORMAT, schema, COMMITLOG_COLUMNS)
        self.path = _path(options, COMMITLOG_FORMAT)
        self.mode = ReadMode.parse(options.get("mode"))
        self.check_crc = _flag(options, "checkCRC", True)
        self.batch_rows = _batch_rows(options)

    def partitions(self) -> list[InputPartition]:
        """One ``InputPartition`` per CommitLog file, in offset order."""
        return [InputPartition(segment) for segment in find_commitlog_segments(self.path)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """The records of one segment (see ``segment_reader.iter_segment_records``)."""
        if partition.value is None:
            return  # Spark plans one empty partition when ``partitions()`` finds no files
        yield from commitlog_batches(
            partition.value, mode=self.mode, check_crc=self.check_crc, batch_rows=self.batch_rows
        )


class ConsumeQueueDataSource(DataSource):
    """``mqlab_consumequeue``: one row per ConsumeQueue unit of every topic and queue.

    Options: ``path`` (required), ``batchRows`` (4096).
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
        return ConsumeQueueReader(self.options, schema)


class ConsumeQueueReader(DataSourceReader):
    """Plans one partition per ConsumeQueue file and reads its units."""

    def __init__(self, options: Mapping[str, str], schema: StructType):
        _check_schema(CONSUMEQUEUE_FORMAT, schema, CONSUMEQUEUE_COLUMNS)
        self.path = _path(options, CONSUMEQUEUE_FORMAT)
        self.batch_rows = _batch_rows(options)

    def partitions(self) -> list[InputPartition]:
        """One ``InputPartition`` per ConsumeQueue file, by topic, queue and offset."""
        return [InputPartition(queue_file) for queue_file in find_consume_queue_files(self.path)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        """The valid units of one file (see ``segment_reader.iter_consume_queue_units``)."""
        if partition.value is None:
            return
        yield from consumequeue_batches(partition.value, batch_rows=self.batch_rows)


def register(spark: SparkSession) -> None:
    """Make ``mqlab_commitlog`` and ``mqlab_consumequeue`` known to ``spark.read.format``."""
    spark.dataSource.register(CommitLogDataSource)
    spark.dataSource.register(ConsumeQueueDataSource)


def _prepend_env_path(name: str, directory: str) -> None:
    parts = [p for p in os.environ.get(name, "").split(os.pathsep) if p]
    if directory not in parts:
        os.environ[name] = os.pathsep.join([directory, *parts])


def spark_session(app_name: str, tmp_dir: str | os.PathLike[str]) -> SparkSession:
    """A ``local[2]`` session that is quiet and keeps its temporary files under ``tmp_dir``.

    Before the JVM starts (environment variables only reach the JVM and its Python workers then):
    ``PYSPARK_PYTHON`` defaults to this interpreter (else workers start a Python without pyarrow),
    ``SPARK_LOCAL_IP`` defaults to 127.0.0.1 (else Spark warns about a loopback host name), and the directory
    holding the ``mqlab`` package is put on ``PYTHONPATH`` so workers can import the data sources.

    Settings: no web UI and no progress bar (they would print into notebook cells), 2 shuffle partitions (the data
    is small), session time zone UTC (timestamps print the same on every machine), Arrow for ``toPandas``, and
    ``spark.local.dir``, ``java.io.tmpdir`` and the warehouse under ``tmp_dir``. The log level is set to ERROR.
    If a session already runs in this process, ``getOrCreate`` returns it and settings fixed at start-up stay as they
    were.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    _prepend_env_path("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    tmp = Path(tmp_dir).resolve()
    tmp.mkdir(parents=True, exist_ok=True)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.local.dir", str(tmp))
        .config("spark.driver.extraJavaOptions", f"-Djava.io.tmpdir={tmp}")
        .config("spark.sql.warehouse.dir", str(tmp / "warehouse"))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark

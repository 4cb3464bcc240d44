"""Walk a store's CommitLog segments and ConsumeQueue files and turn them into Arrow record batches.

Java: none (teaching helper). The walk follows the store's own rules: ``CommitLog#checkMessageAndReturnSize`` (a
segment ends at its blank record, or where the bytes are zero because nothing was written there yet) and
``ConsumeQueue#recover`` (a queue file ends at the first unit whose offset is negative or whose size is not
positive). Nothing here needs Spark: ``datasources`` hands one byte range of a segment (or one queue file) to each
Spark task and calls these functions in the worker, and plain unit tests call them directly.

A CommitLog segment is cut into byte ranges at record starts. A record start is recognised by the record itself:
its MAGICCODE, a PHYSICALOFFSET equal to the position it sits at, and a record that decodes (``next_record_start``).
The same scan plans the cuts on the driver and, in PERMISSIVE mode, resynchronises after a corrupt span, which then
comes back as a row whose ``_corrupt`` column says where it starts, how long it is and why.

Each output table is declared once, as a tuple of ``Column`` (name, Spark type, Arrow type, meaning): the Spark
schema, the Arrow schema of the batches and the docs table all come from it. The Arrow types are the ones Spark
expects for the Spark types (``long`` → int64, ``int`` → int32, ``timestamp`` → ``timestamp[us, tz=UTC]``, ``binary``
→ binary); a batch whose types differ is rejected with ``DATA_SOURCE_RETURN_SCHEMA_MISMATCH``.
"""

from __future__ import annotations

import enum
import mmap
import os
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mqlab.common import util_all
from mqlab.common.extras import needs_extra
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message import message_const as mc
from mqlab.common.message.message_decoder import create_message_id, string2message_properties
from mqlab.common.message.message_errors import (
    BodyCrcMismatchError,
    MessageFormatError,
    RecordSizeMismatchError,
)
from mqlab.common.message.message_record_layout import (
    BLANK_MAGIC_CODE,
    MESSAGE_MAGIC_CODE,
    MESSAGE_MAGIC_CODE_POSITION,
    MESSAGE_PHYSIC_OFFSET_POSITION,
    RawRecord,
    decode_raw,
    host_from_field,
    position_of,
)
from mqlab.spark import record_columns
from mqlab.store.consume_queue import BLANK_UNIT, CQ_STORE_UNIT_SIZE, UNIT

with needs_extra("spark", __name__):
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    from pyspark.sql.types import (
        BinaryType,
        BooleanType,
        DataType,
        IntegerType,
        LongType,
        MapType,
        StringType,
        StructField,
        StructType,
        TimestampType,
    )

FILE_NAME = re.compile(r"^\d{20}$")  # a store file is named after its start offset (Java: UtilAll#offset2FileName)
DEFAULT_BATCH_ROWS = 4096
_BODY_CRC_POSITION = position_of("BODYCRC")
_HEAD = struct.Struct(">ii")  # TOTALSIZE, MAGICCODE: enough to tell a message, a blank record and unwritten space


class ReadMode(enum.Enum):
    """What to do with a corrupt CommitLog record (the option ``mode``, named after Spark's file sources' modes)."""

    FAILFAST = "FAILFAST"  # raise the record's MessageFormatError, naming the file and the offset (the default)
    PERMISSIVE = "PERMISSIVE"  # a row with ``_corrupt`` set for the bad span, then go on at the next valid record

    @classmethod
    def parse(cls, text: str | None) -> ReadMode:
        """The mode named by ``text`` (any case); ``None`` means FAILFAST.

        Raises:
            ValueError: not a known mode.
        """
        if text is None:
            return cls.FAILFAST
        try:
            return cls(text.strip().upper())
        except ValueError:
            known = ", ".join(m.value for m in cls)
            raise ValueError(f"option mode={text!r} is not one of {known}") from None


# -- the two tables, declared once -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Column:
    """One output column: its Spark type, the Arrow type Spark expects for it, and what it holds."""

    name: str
    spark_type: DataType
    arrow_type: pa.DataType
    meaning: str


# Each Spark type with the Arrow type Spark expects for it in a RecordBatch (the data sources' columns use these).
LONG = (LongType(), pa.int64())
INT = (IntegerType(), pa.int32())
STRING = (StringType(), pa.string())
TIMESTAMP = (TimestampType(), pa.timestamp("us", tz="UTC"))
BINARY = (BinaryType(), pa.binary())
STRING_MAP = (MapType(StringType(), StringType()), pa.map_(pa.string(), pa.string()))
BOOLEAN = (BooleanType(), pa.bool_())

# The ``_corrupt`` struct of the CommitLog table (named like Spark's ``_corrupt_record`` column of its JSON and CSV
# readers, but a struct: a binary record has no text to show, so it says where and why instead).
CORRUPT_FIELDS = (
    ("offset", *LONG, "CommitLog offset where the corrupt span starts"),
    ("length", *LONG, "bytes skipped until the next valid record (or the end of the range)"),
    ("field", *STRING, "record field at fault (TOTALSIZE, MAGICCODE, BODYCRC...), null if none"),
    ("error", *STRING, "the error's class name (BadMagicCodeError...)"),
    ("message", *STRING, "the error's message, naming the file and the offset"),
)
CORRUPT = (
    StructType([StructField(name, spark_type, True) for name, spark_type, _, _ in CORRUPT_FIELDS]),
    pa.struct([pa.field(name, arrow_type, True) for name, _, arrow_type, _ in CORRUPT_FIELDS]),
)

COMMITLOG_COLUMNS: tuple[Column, ...] = (
    Column("physical_offset", *LONG, "PHYSICALOFFSET: CommitLog offset of the record"),
    Column("total_size", *INT, "TOTALSIZE: record length in bytes"),
    Column("topic", *STRING, "TOPIC"),
    Column("queue_id", *INT, "QUEUEID"),
    Column("queue_offset", *LONG, "QUEUEOFFSET: index of the message in its ConsumeQueue"),
    Column("sys_flag", *INT, "SYSFLAG: compression, transaction type, IPv6 host bits"),
    Column("flag", *INT, "FLAG: the user's Message.flag"),
    Column("born_timestamp", *TIMESTAMP, "BORNTIMESTAMP: producer clock (stored in ms, UTC)"),
    Column("store_timestamp", *TIMESTAMP, "STORETIMESTAMP: broker clock inside the put lock (ms, UTC)"),
    Column("born_host", *STRING, "BORNHOST as ip:port ([ip]:port for IPv6)"),
    Column("store_host", *STRING, "STOREHOSTADDRESS as ip:port"),
    Column("body_crc", *INT, "BODYCRC: CRC-32 of the stored body, top bit cleared"),
    Column("reconsume_times", *INT, "RECONSUMETIMES"),
    Column("prepared_transaction_offset", *LONG, "PREPAREDTRANSACTIONOFFSET (0 for normal messages)"),
    Column("body", *BINARY, "BODY as stored: still compressed when sys_flag has 0x1"),
    Column("tags", *STRING, "property TAGS (null if absent)"),
    Column("keys", *STRING, "property KEYS, space-separated keys (null if absent)"),
    Column("uniq_key", *STRING, "property UNIQ_KEY: the producer's message id (null if absent)"),
    Column("properties", *STRING_MAP, "all properties, in stored order (MessageDecoder#string2messageProperties)"),
    Column("msg_id", *STRING, "offset message id: store host + physical offset, hex (MessageDecoder#createMessageId)"),
    Column("segment", *STRING, "name of the CommitLog file the record was read from"),
    Column("broker", *STRING, "broker whose store holds the file (its directory name, or the option broker)"),
    Column("_corrupt", *CORRUPT, "null for a record; for a corrupt span (PERMISSIVE): where, how long, why"),
)

CONSUMEQUEUE_COLUMNS: tuple[Column, ...] = (
    Column("topic", *STRING, "the topic (directory consumequeue/<topic>)"),
    Column("queue_id", *INT, "the queue (directory consumequeue/<topic>/<queueId>)"),
    Column("queue_offset", *LONG, "logical offset: index of the unit in the queue"),
    Column("commit_log_offset", *LONG, "unit field 1: CommitLog offset of the record"),
    Column("size", *INT, "unit field 2: the record's TOTALSIZE"),
    Column("tags_code", *LONG, "unit field 3: String.hashCode of TAGS (0 without tags)"),
    Column("segment", *STRING, "name of the ConsumeQueue file the unit was read from"),
    Column("broker", *STRING, "broker whose store holds the file"),
)


def spark_schema(columns: tuple[Column, ...]) -> StructType:
    """The Spark schema of a table (every column nullable, as Spark makes data source columns)."""
    return StructType([StructField(c.name, c.spark_type, nullable=True) for c in columns])


def arrow_schema(columns: tuple[Column, ...]) -> pa.Schema:
    """The Arrow schema the batches of a table carry."""
    return pa.schema([pa.field(c.name, c.arrow_type, nullable=True) for c in columns])


COMMITLOG_ARROW_SCHEMA = arrow_schema(COMMITLOG_COLUMNS)
CONSUMEQUEUE_ARROW_SCHEMA = arrow_schema(CONSUMEQUEUE_COLUMNS)


# -- finding the files -----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CommitLogSegment:
    """One CommitLog file (picklable, so it travels to the worker inside a ``CommitLogRange``)."""

    path: str
    name: str
    start_offset: int
    size: int
    broker: str = ""


@dataclass(frozen=True, slots=True)
class CommitLogRange:
    """Bytes ``[start, end)`` of a segment (positions in the file): the unit of work of one Spark task.

    ``start`` is a record start (or 0); the task reads every record that *starts* in the range, the last one
    possibly ending after ``end``. ``first_timestamp`` is the store timestamp of the record at ``start`` and
    ``next_timestamp`` that of the record at ``end`` (``None`` when unknown): pushdown prunes with them.
    """

    segment: CommitLogSegment
    start: int
    end: int
    first_timestamp: int | None = None
    next_timestamp: int | None = None

    @property
    def first_offset(self) -> int:
        """CommitLog offset of the range's first byte."""
        return self.segment.start_offset + self.start

    @property
    def end_offset(self) -> int:
        """CommitLog offset just past the range."""
        return self.segment.start_offset + self.end


@dataclass(frozen=True, slots=True)
class ConsumeQueueFile:
    """One ConsumeQueue file of ``topic``/``queue_id``."""

    path: str
    topic: str
    queue_id: int
    name: str
    start_offset: int  # in bytes of the queue's virtual space; unit N sits at byte N * 20
    size: int
    broker: str = ""


def broker_name_of(store_root: str | os.PathLike[str]) -> str:
    """The broker a store root belongs to: the parent's name for ``<broker>/store``, else the root's own name."""
    root = Path(store_root).resolve()
    return root.parent.name if root.name == "store" else root.name


def _store_dir(path: str | os.PathLike[str], sub: str) -> Path:
    """``path/sub`` when ``path`` is a store root, else ``path`` itself (already the ``sub`` directory)."""
    base = Path(path)
    if (base / sub).is_dir():
        return (base / sub).resolve()
    if base.is_dir():
        return base.resolve()
    raise FileNotFoundError(f"neither a store root nor a {sub} directory: {os.fspath(path)!r}")


def _default_broker(directory: Path, sub: str) -> str:
    return broker_name_of(directory.parent if directory.name == sub else directory)


def find_commitlog_segments(path: str | os.PathLike[str], broker: str | None = None) -> list[CommitLogSegment]:
    """The CommitLog files under a store root (or a ``commitlog`` directory), in offset order.

    ``broker`` names the store's broker in the rows (default: ``broker_name_of`` the store root).
    """
    directory = _store_dir(path, "commitlog")
    name = broker if broker is not None else _default_broker(directory, "commitlog")
    return [
        CommitLogSegment(str(f), f.name, int(f.name), f.stat().st_size, name)
        for f in sorted(directory.iterdir())
        if f.is_file() and FILE_NAME.match(f.name)
    ]


def find_consume_queue_files(path: str | os.PathLike[str], broker: str | None = None) -> list[ConsumeQueueFile]:
    """The ConsumeQueue files under a store root (or a ``consumequeue`` directory), by topic, queue and offset."""
    directory = _store_dir(path, "consumequeue")
    name = broker if broker is not None else _default_broker(directory, "consumequeue")
    found = []
    for topic_dir in sorted(d for d in directory.iterdir() if d.is_dir()):
        for queue_dir in sorted((d for d in topic_dir.iterdir() if d.is_dir() and d.name.isdigit()), key=_as_int):
            found += [
                ConsumeQueueFile(
                    str(f), topic_dir.name, int(queue_dir.name), f.name, int(f.name), f.stat().st_size, name
                )
                for f in sorted(queue_dir.iterdir())
                if f.is_file() and FILE_NAME.match(f.name)
            ]
    return found


def _as_int(path: Path) -> int:
    return int(path.name)


# -- CommitLog: records, record starts, ranges ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CorruptSpan:
    """Bytes that are not a valid record, from ``position`` (in the file) for ``length`` bytes, and why."""

    segment: CommitLogSegment
    position: int
    length: int
    error: MessageFormatError

    @property
    def offset(self) -> int:
        """CommitLog offset of the span's first byte."""
        return self.segment.start_offset + self.position


def _where(segment: CommitLogSegment, offset: int) -> str:
    return f"the record at CommitLog offset {offset} of commitlog/{segment.name}"


def iter_segment_records(
    segment: CommitLogSegment, *, mode: ReadMode = ReadMode.FAILFAST, check_crc: bool = True
) -> Iterator[RawRecord | CorruptSpan]:
    """The records of a whole segment (``iter_range_records`` over ``[0, size)``)."""
    yield from iter_range_records(CommitLogRange(segment, 0, segment.size), mode=mode, check_crc=check_crc)


def iter_range_records(
    commitlog_range: CommitLogRange, *, mode: ReadMode = ReadMode.FAILFAST, check_crc: bool = True
) -> Iterator[RawRecord | CorruptSpan]:
    """The records starting in a range, in order, up to the blank record or the unwritten (zero) space.

    A record is corrupt when ``decode_raw`` rejects it, when its PHYSICALOFFSET is not where it was found, when its
    BODYCRC does not match its body (if ``check_crc``, as recovery checks with ``checkCRCOnRecover``), or when a
    blank record's TOTALSIZE is not the rest of the file. In PERMISSIVE mode a corrupt record becomes a
    ``CorruptSpan`` running to the next record start (``next_record_start``) or to the end of the range, and the
    walk goes on there; so does a zero TOTALSIZE that a valid record follows (zeroed bytes inside written data).

    Raises:
        MessageFormatError: a corrupt record in FAILFAST mode; the message names the file, the record's CommitLog
            offset and the field.
    """
    segment = commitlog_range.segment
    if segment.size == 0 or commitlog_range.start >= commitlog_range.end:
        return
    with open(segment.path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        size = len(buf)
        end = min(commitlog_range.end, size)
        pos = commitlog_range.start
        while pos < end and pos + 4 <= size:
            item, pos = _step(buf, pos, end, segment, mode, check_crc)
            if item is None:
                return
            yield item


def _step(
    buf, pos: int, end: int, segment: CommitLogSegment, mode: ReadMode, check_crc: bool
) -> tuple[RawRecord | CorruptSpan | None, int]:
    """The item at ``pos`` (a record, or a corrupt span in PERMISSIVE mode) and where the next one starts.

    ``(None, pos)`` where the segment's data ends (the blank record or unwritten space).
    """
    size = len(buf)
    try:
        record = _next_record(buf, pos, size, segment, check_crc)
        if record is None and mode is ReadMode.PERMISSIVE and _TOTAL.unpack_from(buf, pos)[0] == 0:
            resume = next_record_start(buf, pos, segment, check_crc=check_crc)
            if resume is not None:
                raise MessageFormatError(
                    f"TOTALSIZE is 0 but a record starts at CommitLog offset {segment.start_offset + resume}",
                    field="TOTALSIZE",
                    position=segment.start_offset + pos,
                    where=_where(segment, segment.start_offset + pos),
                )
    except MessageFormatError as exc:
        if mode is ReadMode.FAILFAST:
            raise
        resume = next_record_start(buf, pos + 1, segment, check_crc=check_crc)
        stop = end if resume is None else min(resume, end)
        return CorruptSpan(segment, pos, stop - pos, exc), stop
    if record is None:
        return None, pos
    return record, pos + record.total_size


_TOTAL = struct.Struct(">i")
_MAGIC_BYTES = MESSAGE_MAGIC_CODE.to_bytes(4, "big", signed=True)
_PHYSICAL_OFFSET = struct.Struct(">q")


def next_record_start(buf, pos: int, segment: CommitLogSegment, *, check_crc: bool = True) -> int | None:
    """Position of the first valid record at or after ``pos`` in the segment's bytes ``buf``, or ``None``.

    A candidate is found by its MAGICCODE (a C-speed ``find``); it is a record start when its PHYSICALOFFSET equals
    the segment's start offset plus the candidate's position and the record decodes (and its BODYCRC matches, if
    ``check_crc``). A body that holds a byte-exact copy of a record written at that very offset could fool the
    scan; nothing else can.
    """
    search = pos + MESSAGE_MAGIC_CODE_POSITION
    size = len(buf)
    while True:
        found = buf.find(_MAGIC_BYTES, search)
        if found < 0:
            return None
        candidate = found - MESSAGE_MAGIC_CODE_POSITION
        field = candidate + MESSAGE_PHYSIC_OFFSET_POSITION
        if (
            field + 8 <= size
            and _PHYSICAL_OFFSET.unpack_from(buf, field)[0] == segment.start_offset + candidate
            and _is_record(buf, candidate, size, segment, check_crc)
        ):
            return candidate
        search = found + 1


def _is_record(buf, pos: int, size: int, segment: CommitLogSegment, check_crc: bool) -> bool:
    try:
        return _next_record(buf, pos, size, segment, check_crc) is not None
    except MessageFormatError:
        return False


def plan_ranges(segment: CommitLogSegment, max_bytes: int, *, check_crc: bool = True) -> list[CommitLogRange]:
    """Cut a segment into ranges of about ``max_bytes``, each starting at a record start.

    Cut ``i`` is the first record start at or after the previous cut plus ``max_bytes``, so with ``max_bytes=1``
    every record is a range of its own. The last range runs to the end of the file (its data ends at the blank
    record or the zero space). Each range carries the store timestamps of its first record and of the next range's.
    """
    if segment.size == 0:
        return []
    with open(segment.path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        cuts = [0]
        while cuts[-1] + max_bytes < segment.size:
            cut = next_record_start(buf, cuts[-1] + max_bytes, segment, check_crc=check_crc)
            if cut is None:
                break
            cuts.append(cut)
        stamps = [_store_timestamp_at(buf, cut, segment, check_crc) for cut in cuts]
    ends = [*cuts[1:], segment.size]
    nexts = [*stamps[1:], None]
    return [
        CommitLogRange(segment, start, end, first, following)
        for start, end, first, following in zip(cuts, ends, stamps, nexts, strict=True)
    ]


def _store_timestamp_at(buf, pos: int, segment: CommitLogSegment, check_crc: bool) -> int | None:
    try:
        record = _next_record(buf, pos, len(buf), segment, check_crc)
    except MessageFormatError:
        return None
    return None if record is None else record.store_timestamp


def _next_record(buf, pos: int, size: int, segment: CommitLogSegment, check_crc: bool) -> RawRecord | None:
    """The record at ``pos``, or ``None`` where the segment's data ends."""
    offset = segment.start_offset + pos
    where = _where(segment, offset)
    total = int.from_bytes(buf[pos : pos + 4], "big", signed=True)
    if total == 0:
        return None  # nothing was written here yet (the rest of a segment is zero-filled)
    if pos + _HEAD.size <= size and _HEAD.unpack_from(buf, pos)[1] == BLANK_MAGIC_CODE:
        if total != size - pos:
            raise RecordSizeMismatchError(
                f"blank record says {total} bytes but {size - pos} remain in the file",
                field="TOTALSIZE",
                position=offset,
                where=where,
            )
        return None
    record = decode_raw(buf, pos, where=where, base=segment.start_offset)
    if record.physical_offset != offset:
        raise MessageFormatError(
            f"PHYSICALOFFSET says {record.physical_offset}",
            field="PHYSICALOFFSET",
            position=offset + MESSAGE_PHYSIC_OFFSET_POSITION,
            where=where,
        )
    if check_crc and util_all.crc32(record.body) != record.body_crc:
        raise BodyCrcMismatchError(
            f"BODYCRC is {record.body_crc} but the body's CRC is {util_all.crc32(record.body)}",
            field="BODYCRC",
            position=offset + _BODY_CRC_POSITION,
            where=where,
        )
    return record


# -- CommitLog: rows ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RecordFilter:
    """What pushdown asks of the rows (``None``: no condition); ``datasources`` builds it from Spark's filters.

    Offsets and timestamps are inclusive bounds (timestamps in epoch ms). Rows failing it are skipped before their
    columns are built; Spark evaluates the same filters again, so skipping is an optimisation, never a semantic.
    """

    offsets: frozenset[int] | None = None
    topics: frozenset[str] | None = None
    queue_ids: frozenset[int] | None = None
    min_offset: int | None = None
    max_offset: int | None = None
    min_timestamp: int | None = None
    max_timestamp: int | None = None

    def accepts(self, r: RawRecord) -> bool:
        """Whether the record can satisfy the filters."""
        return (
            (self.offsets is None or r.physical_offset in self.offsets)
            and (self.min_offset is None or r.physical_offset >= self.min_offset)
            and (self.max_offset is None or r.physical_offset <= self.max_offset)
            and (self.min_timestamp is None or r.store_timestamp >= self.min_timestamp)
            and (self.max_timestamp is None or r.store_timestamp <= self.max_timestamp)
            and (self.queue_ids is None or r.queue_id in self.queue_ids)
            and (self.topics is None or r.topic.decode("utf-8", "replace") in self.topics)
        )

    @property
    def is_empty(self) -> bool:
        """No condition at all."""
        return self == RecordFilter()


_NAMES = tuple(c.name for c in COMMITLOG_COLUMNS)
_CORRUPT_ROW_BASE = tuple(None for _ in COMMITLOG_COLUMNS)


class _CommitLogRows:
    """Rows of one batch as tuples in column order (transposed once per batch: cheaper than a list per column)."""

    def __init__(self) -> None:
        self.rows: list[tuple] = []
        self._hosts: dict[bytes, tuple[str, InetSocketAddress]] = {}  # few distinct hosts; parse each once

    def _host(self, field_bytes: bytes) -> tuple[str, InetSocketAddress]:
        host = self._hosts.get(field_bytes)
        if host is None:
            address = host_from_field(field_bytes)
            host = self._hosts[field_bytes] = (str(address), address)
        return host

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def columns(self) -> dict[str, list]:
        """The rows as one sequence per column."""
        if not self.rows:
            return {name: [] for name in _NAMES}
        return dict(zip(_NAMES, zip(*self.rows, strict=True), strict=True))

    def add(self, r: RawRecord, segment: CommitLogSegment) -> None:
        properties = string2message_properties(r.properties.decode("utf-8", "replace"), dict)
        store_host_text, store_host = self._host(r.store_host)
        self.rows.append(
            (
                r.physical_offset,
                r.total_size,
                r.topic.decode("utf-8", "replace"),
                r.queue_id,
                r.queue_offset,
                r.sys_flag,
                r.flag,
                r.born_timestamp * 1000,  # ms on disk, µs in Spark
                r.store_timestamp * 1000,
                self._host(r.born_host)[0],
                store_host_text,
                r.body_crc,
                r.reconsume_times,
                r.prepared_transaction_offset,
                r.body,
                properties.get(mc.PROPERTY_TAGS),
                properties.get(mc.PROPERTY_KEYS),
                properties.get(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX),
                list(properties.items()),
                create_message_id(store_host, r.physical_offset),
                segment.name,
                segment.broker,
                None,
            )
        )

    def add_corrupt(self, span: CorruptSpan) -> None:
        row = dict(zip(_NAMES, _CORRUPT_ROW_BASE, strict=True))
        row["physical_offset"] = span.offset
        row["segment"] = span.segment.name
        row["broker"] = span.segment.broker
        row["_corrupt"] = {
            "offset": span.offset,
            "length": span.length,
            "field": span.error.field,
            "error": type(span.error).__name__,
            "message": str(span.error),
        }
        self.rows.append(tuple(row.values()))


def _to_batch(columns: dict[str, list], schema: pa.Schema) -> pa.RecordBatch:
    arrays = [_array(columns[f.name], f.type) for f in schema]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _array(values, arrow_type: pa.DataType) -> pa.Array:
    """``pa.array``, but a map column of (key, value) lists is built from flat lists (several times faster)."""
    if not pa.types.is_map(arrow_type) or any(v is None for v in values):
        return pa.array(values, type=arrow_type)
    offsets, keys, items = [0], [], []
    for pairs in values:
        for key, item in pairs:
            keys.append(key)
            items.append(item)
        offsets.append(len(keys))
    return pa.MapArray.from_arrays(
        pa.array(offsets, pa.int32()),
        pa.array(keys, arrow_type.key_type),
        pa.array(items, arrow_type.item_type),
        type=arrow_type,
    )


def commitlog_batches_by_record(
    source: CommitLogSegment | CommitLogRange,
    *,
    mode: ReadMode = ReadMode.FAILFAST,
    check_crc: bool = True,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    record_filter: RecordFilter | None = None,
) -> Iterator[pa.RecordBatch]:
    """``commitlog_batches`` the plain way: ``iter_range_records``, one Python row per record.

    The reference the fast path is tested against, and the shortest statement of what a row holds.
    """
    commitlog_range = source if isinstance(source, CommitLogRange) else CommitLogRange(source, 0, source.size)
    keep = None if record_filter is None or record_filter.is_empty else record_filter.accepts
    segment = commitlog_range.segment
    rows = _CommitLogRows()
    for item in iter_range_records(commitlog_range, mode=mode, check_crc=check_crc):
        if isinstance(item, CorruptSpan):
            rows.add_corrupt(item)
        elif keep is None or keep(item):
            rows.add(item, segment)
        else:
            continue
        if len(rows) >= batch_rows:
            yield _to_batch(rows.columns, COMMITLOG_ARROW_SCHEMA)
            rows = _CommitLogRows()
    if len(rows):
        yield _to_batch(rows.columns, COMMITLOG_ARROW_SCHEMA)


def commitlog_batches(
    source: CommitLogSegment | CommitLogRange,
    *,
    mode: ReadMode = ReadMode.FAILFAST,
    check_crc: bool = True,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    record_filter: RecordFilter | None = None,
) -> Iterator[pa.RecordBatch]:
    """The records of a segment or a range as Arrow batches of at most ``batch_rows`` rows.

    Windows of up to ``batch_rows`` records are decoded at once (``record_columns``); where a window stops at a
    record it does not accept as is, that one item goes through ``iter_range_records``' step (``decode_raw``),
    which raises its named error (FAILFAST) or makes it a corrupt span (PERMISSIVE), or finds the data's end. The
    rows are those of ``commitlog_batches_by_record``. Corrupt spans (PERMISSIVE) are rows too, whatever
    ``record_filter`` says: only Spark decides on them.
    """
    commitlog_range = source if isinstance(source, CommitLogRange) else CommitLogRange(source, 0, source.size)
    segment = commitlog_range.segment
    if segment.size == 0 or commitlog_range.start >= commitlog_range.end:
        return
    keep = None if record_filter is None or record_filter.is_empty else record_filter
    buf = _map(segment.path)  # unmapped when the last array viewing it is gone (after the last batch)
    window = _WindowReader(buf, segment, check_crc)
    size = len(buf)
    end = min(commitlog_range.end, size)
    pos = commitlog_range.start
    slow = _CommitLogRows()  # rows of items the step decided, kept in order with the windows' rows
    while pos < end and pos + 4 <= size:
        starts, _ = record_columns.walk(buf, pos, end, batch_rows)
        batch, good = window.read(starts, keep) if starts else (None, 0)
        if good:
            if len(slow):
                yield _to_batch(slow.columns, COMMITLOG_ARROW_SCHEMA)
                slow = _CommitLogRows()
            if batch.num_rows:
                yield batch
            pos = starts[good - 1] + int(window.last_total)
            continue
        item, pos = _step(buf, pos, end, segment, mode, check_crc)
        if item is None:
            break
        if isinstance(item, CorruptSpan):
            slow.add_corrupt(item)
        elif keep is None or keep.accepts(item):
            slow.add(item, segment)
        if len(slow) >= batch_rows:
            yield _to_batch(slow.columns, COMMITLOG_ARROW_SCHEMA)
            slow = _CommitLogRows()
    if len(slow):
        yield _to_batch(slow.columns, COMMITLOG_ARROW_SCHEMA)


_PROPERTIES_TYPE = dict((c.name, c.arrow_type) for c in COMMITLOG_COLUMNS)["properties"]
# The integer columns the window decodes, with the NumPy type of their Arrow type (int32 or int64).
_NUMPY_TYPES = {
    c.name: np.dtype(c.arrow_type.to_pandas_dtype())
    for c in COMMITLOG_COLUMNS
    if pa.types.is_integer(c.arrow_type) and c.name not in ("born_timestamp", "store_timestamp")
}


def _window_mask(keep: RecordFilter, ints: dict[str, np.ndarray], topic: pa.Array) -> np.ndarray | None:
    """``RecordFilter.accepts`` over a window's columns; ``None`` when every record passes."""
    offset, stamp, queue = ints["physical_offset"], ints["store_timestamp"], ints["queue_id"]
    mask = np.ones(len(offset), dtype=bool)
    if keep.offsets is not None:
        mask &= np.isin(offset, np.fromiter(keep.offsets, dtype=np.int64))
    for values, low, high in ((offset, keep.min_offset, keep.max_offset), (stamp, keep.min_timestamp,
                                                                            keep.max_timestamp)):  # fmt: skip
        if low is not None:
            mask &= values >= low
        if high is not None:
            mask &= values <= high
    if keep.queue_ids is not None:
        mask &= np.isin(queue, np.fromiter(keep.queue_ids, dtype=np.int64))
    if keep.topics is not None:
        mask &= pc.is_in(topic, pa.array(sorted(keep.topics), pa.string())).to_numpy(zero_copy_only=False)
    return None if mask.all() else mask


def _take(mask: np.ndarray, ints, fields, hosts, topic):
    rows = np.flatnonzero(mask)
    return (
        {name: values[rows] for name, values in ints.items()},
        {name: (p[rows], n[rows]) for name, (p, n) in fields.items()},
        {name: (p[rows], n[rows]) for name, (p, n) in hosts.items()},
        topic.take(pa.array(rows)),
    )


def _map(path: str) -> mmap.mmap:
    with open(path, "rb") as f:
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


class _WindowReader:
    """Turns windows of one segment's records into Arrow batches with ``record_columns``."""

    def __init__(self, buf: mmap.mmap, segment: CommitLogSegment, check_crc: bool):
        self.buf = buf
        self.arr = np.frombuffer(buf, dtype=np.uint8)
        self.data = pa.py_buffer(buf)
        self.segment = segment
        self.check_crc = check_crc
        self.hosts: dict[bytes, str] = {}
        self.last_total = 0

    def read(self, starts: list[int], keep: RecordFilter | None) -> tuple[pa.RecordBatch | None, int]:
        """The batch of the records the window accepts from ``starts`` on (``keep`` applied), and how many."""
        w = record_columns.decode_window(
            self.arr, np.asarray(starts, dtype=np.int64), self.segment.start_offset, check_crc=self.check_crc,
            buf=self.buf,
        )  # fmt: skip
        good = w.good
        if not good:
            return None, 0
        ints = {name: values[:good] for name, values in w.ints.items()}
        self.last_total = ints["total_size"][-1]
        fields = {name: (p[:good], n[:good]) for name, (p, n) in w.fields.items()}
        hosts = {name: (p[:good], n[:good]) for name, (p, n) in w.hosts.items()}
        topic = record_columns.utf8(self._slices(fields["topic"]))
        mask = None if keep is None else _window_mask(keep, ints, topic)
        if mask is not None:
            ints, fields, hosts, topic = _take(mask, ints, fields, hosts, topic)
        return self._batch(ints, fields, hosts, topic), good

    def _slices(self, field: tuple[np.ndarray, np.ndarray]) -> pa.Array:
        return record_columns.slices(self.data, self.arr, field[0], field[1])

    def _batch(self, ints, fields, hosts, topic) -> pa.RecordBatch:
        n = len(topic)
        properties = self._slices(fields["properties"])
        derived = record_columns.properties_columns(properties, _PROPERTIES_TYPE)
        if derived is None:
            derived = record_columns.properties_by_record(properties.to_pylist(), _PROPERTIES_TYPE)
        arrow = {name: pa.array(values.astype(_NUMPY_TYPES[name])) for name, values in ints.items()
                 if name in _NUMPY_TYPES}  # fmt: skip
        for name in ("born_timestamp", "store_timestamp"):
            arrow[name] = pa.array(ints[name] * 1000).view(TIMESTAMP[1])  # ms on disk, µs in Spark
        columns = {
            **arrow,
            **derived,
            "topic": topic,
            "born_host": record_columns.host_strings(self.arr, *hosts["born_host"], self.hosts),
            "store_host": record_columns.host_strings(self.arr, *hosts["store_host"], self.hosts),
            "body": self._slices(fields["body"]),
            "msg_id": record_columns.message_ids(self.arr, hosts["store_host"], ints["physical_offset"]),
            "segment": pa.repeat(self.segment.name, n),
            "broker": pa.repeat(self.segment.broker, n),
            "_corrupt": pa.nulls(n, CORRUPT[1]),
        }
        return pa.RecordBatch.from_arrays(
            [columns[f.name] for f in COMMITLOG_ARROW_SCHEMA], schema=COMMITLOG_ARROW_SCHEMA
        )


# -- ConsumeQueue ----------------------------------------------------------------------------------------------
def iter_consume_queue_units(queue_file: ConsumeQueueFile) -> Iterator[tuple[int, int, int, int]]:
    """``(queue_offset, commit_log_offset, size, tags_code)`` for each unit, up to the first invalid one.

    A unit is valid when its offset is >= 0 and its size > 0 (``ConsumeQueue#recover``). The filler units that
    ``ConsumeQueue#fillPreBlank`` writes before the first real unit of a queue that starts mid-file are skipped.
    Units carry no magic code or checksum, so a ConsumeQueue file has no "corrupt record" to report.
    """
    first_unit = queue_file.start_offset // CQ_STORE_UNIT_SIZE
    with open(queue_file.path, "rb") as f:
        data = f.read()
    for index, pos in enumerate(range(0, len(data) - CQ_STORE_UNIT_SIZE + 1, CQ_STORE_UNIT_SIZE)):
        unit = data[pos : pos + CQ_STORE_UNIT_SIZE]
        if unit == BLANK_UNIT:
            continue
        commit_log_offset, size, tags_code = UNIT.unpack(unit)
        if commit_log_offset < 0 or size <= 0:
            return
        yield first_unit + index, commit_log_offset, size, tags_code


# A ConsumeQueue unit as NumPy reads it, derived from the store's own ``UNIT`` struct (``>qiq``: 20 bytes).
_UNIT_DTYPE = np.dtype(
    [(name, ">" + code) for name, code in zip(("commit_log_offset", "size", "tags_code"), UNIT.format[1:], strict=True)]
)


def consume_queue_units(queue_file: ConsumeQueueFile) -> dict[str, np.ndarray]:
    """``iter_consume_queue_units`` as NumPy columns (``queue_offset``, ``commit_log_offset``, ``size``, ``tags_code``).

    The same rule, over the whole file at once: filler units skipped, everything from the first invalid unit on
    dropped.
    """
    data = Path(queue_file.path).read_bytes()
    count = len(data) // CQ_STORE_UNIT_SIZE
    units = np.frombuffer(data, dtype=_UNIT_DTYPE, count=count)
    offset, size, tags = (units[name].astype(np.int64) for name in _UNIT_DTYPE.names)
    filler = (offset == 0) & (size == 0x7FFFFFFF) & (tags == 0)  # BLANK_UNIT
    invalid = ~filler & ((offset < 0) | (size <= 0))
    stop = int(np.argmax(invalid)) if invalid.any() else count
    keep = np.flatnonzero(~filler[:stop])
    return {
        "queue_offset": queue_file.start_offset // CQ_STORE_UNIT_SIZE + keep,
        "commit_log_offset": offset[keep],
        "size": size[keep],
        "tags_code": tags[keep],
    }


def consumequeue_batches(
    queue_file: ConsumeQueueFile, *, batch_rows: int = DEFAULT_BATCH_ROWS
) -> Iterator[pa.RecordBatch]:
    """The units of one ConsumeQueue file as Arrow batches of at most ``batch_rows`` rows."""
    units = consume_queue_units(queue_file)
    total = len(units["size"])
    types = {c.name: c.arrow_type for c in CONSUMEQUEUE_COLUMNS}
    for first in range(0, total, batch_rows):
        n = min(batch_rows, total - first)
        columns = {name: pa.array(values[first : first + n], types[name]) for name, values in units.items()}
        columns["topic"] = pa.repeat(queue_file.topic, n)
        columns["queue_id"] = pa.repeat(pa.scalar(queue_file.queue_id, pa.int32()), n)
        columns["segment"] = pa.repeat(queue_file.name, n)
        columns["broker"] = pa.repeat(queue_file.broker, n)
        yield pa.RecordBatch.from_arrays(
            [columns[f.name] for f in CONSUMEQUEUE_ARROW_SCHEMA], schema=CONSUMEQUEUE_ARROW_SCHEMA
        )


def markdown_table(columns: tuple[Column, ...]) -> str:
    """The docs table of a table's columns (docs/spec/spark-datasources.md holds these, checked by a test)."""
    lines = ["| column | Spark type | meaning |", "|---|---|---|"]
    lines += [f"| `{c.name}` | `{c.spark_type.simpleString()}` | {c.meaning} |" for c in columns]
    return "\n".join(lines)

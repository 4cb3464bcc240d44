"""Walk a store's CommitLog segments and ConsumeQueue files and turn them into Arrow record batches.

Java: none (teaching helper). The walk follows the store's own rules: ``CommitLog#checkMessageAndReturnSize`` (a
segment ends at its blank record, or where the bytes are zero because nothing was written there yet) and
``ConsumeQueue#recover`` (a queue file ends at the first unit whose offset is negative or whose size is not
positive). Nothing here needs Spark: ``datasources`` hands one file to each Spark task and calls these functions in
the worker, and plain unit tests call them directly.

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

import pyarrow as pa
from pyspark.sql.types import (
    BinaryType,
    DataType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from mqlab.common import util_all
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
    MESSAGE_PHYSIC_OFFSET_POSITION,
    RawRecord,
    decode_raw,
    host_from_field,
    position_of,
)
from mqlab.store.consume_queue import BLANK_UNIT, CQ_STORE_UNIT_SIZE, UNIT

FILE_NAME = re.compile(r"^\d{20}$")  # a store file is named after its start offset (Java: UtilAll#offset2FileName)
DEFAULT_BATCH_ROWS = 4096
_BODY_CRC_POSITION = position_of("BODYCRC")
_HEAD = struct.Struct(">ii")  # TOTALSIZE, MAGICCODE: enough to tell a message, a blank record and unwritten space


class ReadMode(enum.Enum):
    """What to do with a corrupt CommitLog record (the option ``mode``, named after Spark's file sources' modes)."""

    FAILFAST = "FAILFAST"  # raise the record's MessageFormatError, naming the file and the offset (the default)
    PERMISSIVE = "PERMISSIVE"  # silently drop the rest of that segment and go on with the next one

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
)

CONSUMEQUEUE_COLUMNS: tuple[Column, ...] = (
    Column("topic", *STRING, "the topic (directory consumequeue/<topic>)"),
    Column("queue_id", *INT, "the queue (directory consumequeue/<topic>/<queueId>)"),
    Column("queue_offset", *LONG, "logical offset: index of the unit in the queue"),
    Column("commit_log_offset", *LONG, "unit field 1: CommitLog offset of the record"),
    Column("size", *INT, "unit field 2: the record's TOTALSIZE"),
    Column("tags_code", *LONG, "unit field 3: String.hashCode of TAGS (0 without tags)"),
    Column("segment", *STRING, "name of the ConsumeQueue file the unit was read from"),
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
    """One CommitLog file: the unit of work of one Spark task (picklable, so it travels to the worker)."""

    path: str
    name: str
    start_offset: int
    size: int


@dataclass(frozen=True, slots=True)
class ConsumeQueueFile:
    """One ConsumeQueue file of ``topic``/``queue_id``."""

    path: str
    topic: str
    queue_id: int
    name: str
    start_offset: int  # in bytes of the queue's virtual space; unit N sits at byte N * 20
    size: int


def _store_dir(path: str | os.PathLike[str], sub: str) -> Path:
    """``path/sub`` when ``path`` is a store root, else ``path`` itself (already the ``sub`` directory)."""
    base = Path(path)
    if (base / sub).is_dir():
        return (base / sub).resolve()
    if base.is_dir():
        return base.resolve()
    raise FileNotFoundError(f"neither a store root nor a {sub} directory: {os.fspath(path)!r}")


def find_commitlog_segments(path: str | os.PathLike[str]) -> list[CommitLogSegment]:
    """The CommitLog files under a store root (or a ``commitlog`` directory), in offset order."""
    directory = _store_dir(path, "commitlog")
    return [
        CommitLogSegment(str(f), f.name, int(f.name), f.stat().st_size)
        for f in sorted(directory.iterdir())
        if f.is_file() and FILE_NAME.match(f.name)
    ]


def find_consume_queue_files(path: str | os.PathLike[str]) -> list[ConsumeQueueFile]:
    """The ConsumeQueue files under a store root (or a ``consumequeue`` directory), by topic, queue and offset."""
    directory = _store_dir(path, "consumequeue")
    found = []
    for topic_dir in sorted(d for d in directory.iterdir() if d.is_dir()):
        for queue_dir in sorted((d for d in topic_dir.iterdir() if d.is_dir() and d.name.isdigit()), key=_as_int):
            found += [
                ConsumeQueueFile(str(f), topic_dir.name, int(queue_dir.name), f.name, int(f.name), f.stat().st_size)
                for f in sorted(queue_dir.iterdir())
                if f.is_file() and FILE_NAME.match(f.name)
            ]
    return found


def _as_int(path: Path) -> int:
    return int(path.name)


# -- CommitLog -------------------------------------------------------------------------------------------------
def iter_segment_records(
    segment: CommitLogSegment, *, mode: ReadMode = ReadMode.FAILFAST, check_crc: bool = True
) -> Iterator[RawRecord]:
    """The message records of one segment, in order, up to its blank record or its unwritten (zero) space.

    A record is corrupt when ``decode_raw`` rejects it, when its PHYSICALOFFSET is not where it was found, when its
    BODYCRC does not match its body (if ``check_crc``, as recovery checks with ``checkCRCOnRecover``), or when a
    blank record's TOTALSIZE is not the rest of the file.

    Raises:
        MessageFormatError: a corrupt record in FAILFAST mode; the message names the file, the record's CommitLog
            offset and the field. In PERMISSIVE mode the rest of the segment is dropped instead, and no row or log
            line says so.
    """
    if segment.size == 0:
        return
    with open(segment.path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        size = len(buf)
        pos = 0
        while pos + 4 <= size:
            try:
                record = _next_record(buf, pos, size, segment, check_crc)
            except MessageFormatError:
                if mode is ReadMode.PERMISSIVE:
                    return
                raise
            if record is None:
                return
            yield record
            pos += record.total_size


def _next_record(buf, pos: int, size: int, segment: CommitLogSegment, check_crc: bool) -> RawRecord | None:
    """The record at ``pos``, or ``None`` where the segment's data ends."""
    offset = segment.start_offset + pos
    where = f"the record at CommitLog offset {offset} of commitlog/{segment.name}"
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


class _CommitLogRows:
    """Column lists for one batch of CommitLog rows."""

    def __init__(self) -> None:
        self.columns: dict[str, list] = {c.name: [] for c in COMMITLOG_COLUMNS}
        self._hosts: dict[bytes, InetSocketAddress] = {}  # a store sees few distinct hosts; parse each once

    def _host(self, field_bytes: bytes) -> InetSocketAddress:
        host = self._hosts.get(field_bytes)
        if host is None:
            host = self._hosts[field_bytes] = host_from_field(field_bytes)
        return host

    def __len__(self) -> int:
        return len(self.columns["physical_offset"])

    def add(self, r: RawRecord, segment_name: str) -> None:
        properties = string2message_properties(r.properties.decode("utf-8", "replace"), dict)
        store_host = self._host(r.store_host)
        c = self.columns
        c["physical_offset"].append(r.physical_offset)
        c["total_size"].append(r.total_size)
        c["topic"].append(r.topic.decode("utf-8", "replace"))
        c["queue_id"].append(r.queue_id)
        c["queue_offset"].append(r.queue_offset)
        c["sys_flag"].append(r.sys_flag)
        c["flag"].append(r.flag)
        c["born_timestamp"].append(r.born_timestamp * 1000)  # ms on disk, µs in Spark
        c["store_timestamp"].append(r.store_timestamp * 1000)
        c["born_host"].append(str(self._host(r.born_host)))
        c["store_host"].append(str(store_host))
        c["body_crc"].append(r.body_crc)
        c["reconsume_times"].append(r.reconsume_times)
        c["prepared_transaction_offset"].append(r.prepared_transaction_offset)
        c["body"].append(r.body)
        c["tags"].append(properties.get(mc.PROPERTY_TAGS))
        c["keys"].append(properties.get(mc.PROPERTY_KEYS))
        c["uniq_key"].append(properties.get(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX))
        c["properties"].append(list(properties.items()))
        c["msg_id"].append(create_message_id(store_host, r.physical_offset))
        c["segment"].append(segment_name)


def _to_batch(columns: dict[str, list], schema: pa.Schema) -> pa.RecordBatch:
    arrays = [pa.array(columns[f.name], type=f.type) for f in schema]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def commitlog_batches(
    segment: CommitLogSegment,
    *,
    mode: ReadMode = ReadMode.FAILFAST,
    check_crc: bool = True,
    batch_rows: int = DEFAULT_BATCH_ROWS,
) -> Iterator[pa.RecordBatch]:
    """The records of one segment as Arrow batches of at most ``batch_rows`` rows (see ``iter_segment_records``)."""
    rows = _CommitLogRows()
    for record in iter_segment_records(segment, mode=mode, check_crc=check_crc):
        rows.add(record, segment.name)
        if len(rows) >= batch_rows:
            yield _to_batch(rows.columns, COMMITLOG_ARROW_SCHEMA)
            rows = _CommitLogRows()
    if len(rows):
        yield _to_batch(rows.columns, COMMITLOG_ARROW_SCHEMA)


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


def consumequeue_batches(
    queue_file: ConsumeQueueFile, *, batch_rows: int = DEFAULT_BATCH_ROWS
) -> Iterator[pa.RecordBatch]:
    """The units of one ConsumeQueue file as Arrow batches of at most ``batch_rows`` rows."""
    columns: dict[str, list] = {c.name: [] for c in CONSUMEQUEUE_COLUMNS}
    for queue_offset, commit_log_offset, size, tags_code in iter_consume_queue_units(queue_file):
        columns["topic"].append(queue_file.topic)
        columns["queue_id"].append(queue_file.queue_id)
        columns["queue_offset"].append(queue_offset)
        columns["commit_log_offset"].append(commit_log_offset)
        columns["size"].append(size)
        columns["tags_code"].append(tags_code)
        columns["segment"].append(queue_file.name)
        if len(columns["topic"]) >= batch_rows:
            yield _to_batch(columns, CONSUMEQUEUE_ARROW_SCHEMA)
            columns = {c.name: [] for c in CONSUMEQUEUE_COLUMNS}
    if columns["topic"]:
        yield _to_batch(columns, CONSUMEQUEUE_ARROW_SCHEMA)

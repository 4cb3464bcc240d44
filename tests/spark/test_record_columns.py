"""The vectorised CommitLog decoding (``record_columns``) gives the rows of the record-by-record path, every case."""

from __future__ import annotations

import shutil
import struct

import pyarrow as pa
import pytest

from mqlab.common import util_all
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message_errors import BadMagicCodeError, BodyCrcMismatchError
from mqlab.spark import record_columns
from mqlab.spark import segment_reader as sr


def _table(batches) -> pa.Table:
    return pa.Table.from_batches(list(batches), schema=sr.COMMITLOG_ARROW_SCHEMA)


def _both(source, **kwargs) -> tuple[pa.Table, pa.Table]:
    return _table(sr.commitlog_batches(source, **kwargs)), _table(sr.commitlog_batches_by_record(source, **kwargs))


def _assert_same(source, **kwargs) -> pa.Table:
    fast, plain = _both(source, **kwargs)
    for name in fast.column_names:
        assert fast[name].equals(plain[name]), name
    return fast


BORN = InetSocketAddress("10.0.0.2", 50000)
STORE = InetSocketAddress("10.0.0.1", 10911)


def _record(offset: int, *, properties: bytes, topic: bytes = b"T", body: bytes = b"hello", sys_flag: int = 0,
            born=BORN, store=STORE) -> bytes:  # fmt: skip
    return layout.pack(1, 0, 7, offset, sys_flag, 1_700_000_000_000, born.field_bytes, 1_700_000_000_123,
                       store.field_bytes, 0, 0, body, topic, properties, util_all.crc32(body))  # fmt: skip


def _segment(tmp_path, records: list[bytes], size: int = 4096) -> sr.CommitLogSegment:
    data = b"".join(records)
    path = tmp_path / "commitlog" / "00000000000000000000"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data + struct.pack(">ii", size - len(data), layout.BLANK_MAGIC_CODE) + bytes(size - len(data) - 8))
    return sr.find_commitlog_segments(tmp_path)[0]


def _store(tmp_path, made: list[tuple[dict, dict]]) -> sr.CommitLogSegment:
    records, offset = [], 0
    for kwargs, _ in made:
        record = _record(offset, **kwargs)
        records.append(record)
        offset += len(record)
    return _segment(tmp_path, records)


@pytest.fixture
def store_copy(sample_store, tmp_path):
    root = tmp_path / "broker-a" / "store"
    shutil.copytree(sample_store.root / "commitlog", root / "commitlog")
    return root


def _patch(path, position, data):
    with open(path, "r+b") as f:
        f.seek(position)
        f.write(data)


@pytest.mark.spec("SDS-10")
@pytest.mark.parametrize("batch_rows", [1, 7, 4096])
def test_windows_give_the_record_by_record_rows_of_the_sample_store(sample_store, batch_rows):
    for segment in sr.find_commitlog_segments(sample_store.root):
        fast = _assert_same(segment, batch_rows=batch_rows)
        assert all(b.num_rows <= batch_rows for b in sr.commitlog_batches(segment, batch_rows=batch_rows))
        assert fast.num_rows == next(s.records for s in sample_store.summary.segments if s.name == segment.name)


@pytest.mark.spec("SDS-10")
def test_ranges_cut_inside_a_segment_give_the_same_rows(sample_store):
    segment = sr.find_commitlog_segments(sample_store.root)[0]
    whole = _table(sr.commitlog_batches(segment))
    for max_bytes in (1, 333, 5000):
        split = pa.concat_tables([_table(sr.commitlog_batches(r)) for r in sr.plan_ranges(segment, max_bytes)])
        assert split.equals(whole)


@pytest.mark.spec("SDS-10")
@pytest.mark.parametrize(
    ("field", "position", "data", "error"),
    [
        ("MAGICCODE", 4, b"\x00\x00\x00\x01", BadMagicCodeError),
        ("BODYCRC", 88, None, BodyCrcMismatchError),  # a flipped body byte
        ("TOTALSIZE", 0, b"\x00\x00\x00\x00\x00\x00\x00\x00", None),  # zeroed bytes inside written data
        ("PHYSICALOFFSET", layout.MESSAGE_PHYSIC_OFFSET_POSITION, struct.pack(">q", 12), Exception),
    ],
)
def test_a_damaged_record_gives_the_same_rows_and_errors(sample_store, store_copy, field, position, data, error):
    segment = sr.find_commitlog_segments(sample_store.root)[1]
    second = next(sr.iter_segment_records(segment)).total_size
    path = store_copy / "commitlog" / segment.name
    at = second + position
    _patch(path, at, data if data is not None else bytes([path.read_bytes()[at] ^ 0x20]))
    damaged = sr.find_commitlog_segments(store_copy)[1]
    fast = _assert_same(damaged, mode=sr.ReadMode.PERMISSIVE, batch_rows=5)
    assert fast.filter(pa.compute.is_valid(fast["_corrupt"])).num_rows == 1
    if error is not None:
        with pytest.raises(error) as fast_error:
            _table(sr.commitlog_batches(damaged))
        with pytest.raises(error) as plain_error:
            _table(sr.commitlog_batches_by_record(damaged))
        assert str(fast_error.value) == str(plain_error.value)


@pytest.mark.spec("SDS-10")
def test_unusual_records_give_the_same_rows(tmp_path):
    v6 = InetSocketAddress("fe80::1", 4242)
    segment = _store(
        tmp_path,
        [
            ({"properties": b"TAGS\x01a\x02KEYS\x01k1 k2\x02UNIQ_KEY\x01U1"}, {}),
            ({"properties": b""}, {}),  # no properties: an empty map, null tags
            ({"properties": b"\x02\x01x\x02y\x01\x02TAGS\x01b\x01c\x02\x02"}, {}),  # segments the parser skips
            ({"properties": b"TAGS\x01a\x02TAGS\x01b", "body": b""}, {}),  # a key twice: first place, last value
            ({"properties": b"KEYS\x01\xff\xfe", "topic": b"\xc3("}, {}),  # not UTF-8: replaced
            ({"properties": b"TAGS\x01v6", "sys_flag": 0x30, "born": v6, "store": v6, "body": b"x" * 40}, {}),
            ({"properties": b"TAGS\x01mixed", "sys_flag": 0x10, "born": v6}, {}),
            ({"properties": b"TAGS\x01z" * 3, "body": b"0123456789ab"}, {}),  # a 12-byte body: stored inline
        ],
    )
    for batch_rows in (1, 3, 100):
        fast = _assert_same(segment, batch_rows=batch_rows)
    rows = fast.to_pylist()
    assert [r["tags"] for r in rows] == ["a", None, "b\x01c", "b", None, "v6", "mixed", "zTAGS\x01zTAGS\x01z"]
    assert rows[3]["properties"] == [("TAGS", "b")]
    assert rows[4]["topic"] == "\ufffd(" and rows[5]["store_host"] == "[fe80::1]:4242"
    assert rows[5]["msg_id"] == util_all.bytes2string(v6.field_bytes + rows[5]["physical_offset"].to_bytes(8, "big"))


@pytest.mark.spec("SDS-10")
def test_the_record_filter_keeps_the_same_rows(sample_store):
    segment = sr.find_commitlog_segments(sample_store.root)[0]
    records = list(sr.iter_segment_records(segment))
    wanted = sr.RecordFilter(
        topics=frozenset({records[0].topic.decode()}),
        queue_ids=frozenset({records[0].queue_id, records[1].queue_id}),
        min_offset=records[2].physical_offset,
        max_timestamp=records[-3].store_timestamp,
    )
    fast = _assert_same(segment, record_filter=wanted, batch_rows=16)
    assert 0 < fast.num_rows < len(records)
    assert _assert_same(segment, record_filter=sr.RecordFilter(offsets=frozenset({1, 2}))).num_rows == 0


def test_walk_stops_before_a_size_that_is_not_positive():
    buf = struct.pack(">i", 8) + bytes(4) + struct.pack(">i", 6) + bytes(2) + struct.pack(">i", -1)
    assert record_columns.walk(buf, 0, len(buf), 100) == ([0, 8], 14)
    assert record_columns.walk(buf, 0, len(buf), 1) == ([0], 8)
    assert record_columns.walk(buf, 0, 8, 100) == ([0], 8)  # a record starting at end is the next range's

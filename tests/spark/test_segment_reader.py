"""The file walk behind the data sources, without Spark: segments, stop rules, corrupt records, batches, units."""

from __future__ import annotations

import itertools
import shutil
import struct

import pytest
from pyspark.sql.pandas.types import to_arrow_schema

from mqlab.common.message.message_errors import (
    BadMagicCodeError,
    BodyCrcMismatchError,
    MessageFormatError,
    RecordSizeMismatchError,
    TruncatedRecordError,
)
from mqlab.common.message.message_record_layout import MESSAGE_PHYSIC_OFFSET_POSITION
from mqlab.spark import segment_reader as sr
from mqlab.store.consume_queue import BLANK_UNIT, UNIT
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from tests.spark.reference import expected_row


@pytest.fixture
def store_copy(sample_store, tmp_path):
    """A copy of the sample store's CommitLog that a test may damage."""
    root = tmp_path / "broker-a" / "store"
    shutil.copytree(sample_store.root / "commitlog", root / "commitlog")
    return root


def _patch(path, position, data):
    with open(path, "r+b") as f:
        f.seek(position)
        f.write(data)


def _segment(root, index):
    return sr.find_commitlog_segments(root)[index]


def _records(segment, **kwargs):
    return list(sr.iter_segment_records(segment, **kwargs))


# -- schemas -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("columns", [sr.COMMITLOG_COLUMNS, sr.CONSUMEQUEUE_COLUMNS], ids=["commitlog", "consumequeue"])
def test_arrow_schema_is_what_spark_expects_for_the_spark_schema(columns):
    assert sr.arrow_schema(columns).equals(to_arrow_schema(sr.spark_schema(columns), timezone="UTC"))


def test_column_names_are_unique():
    for columns in (sr.COMMITLOG_COLUMNS, sr.CONSUMEQUEUE_COLUMNS):
        names = [c.name for c in columns]
        assert len(names) == len(set(names))


# -- finding files -------------------------------------------------------------------------------------------------
def test_segments_in_offset_order_from_root_or_commitlog_dir(sample_store):
    segments = sr.find_commitlog_segments(sample_store.root)
    assert [s.name for s in segments] == [s.name for s in sample_store.summary.segments]
    assert [s.start_offset for s in segments] == [s.start_offset for s in sample_store.summary.segments]
    assert {s.size for s in segments} == {64 * 1024}
    assert sr.find_commitlog_segments(sample_store.root / "commitlog") == segments


def test_other_files_are_ignored(store_copy):
    (store_copy / "commitlog" / "notes.txt").write_text("not a segment")
    assert len(sr.find_commitlog_segments(store_copy)) == len(list((store_copy / "commitlog").iterdir())) - 1


def test_missing_directory_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nowhere"):
        sr.find_commitlog_segments(tmp_path / "nowhere")


def test_consume_queue_files_by_topic_queue_offset(sample_store):
    files = sr.find_consume_queue_files(sample_store.root)
    keys = [(f.topic, f.queue_id, f.start_offset) for f in files]
    assert keys == sorted(keys)
    assert {(f.topic, f.queue_id) for f in files} == {q for q, _ in sample_store.summary.per_queue}
    assert any(f.start_offset > 0 for f in files)  # busy queues span two files


# -- CommitLog records -----------------------------------------------------------------------------------------
def test_each_segment_stops_at_its_blank_record_or_zero_bytes(sample_store):
    for segment, expected in zip(
        sr.find_commitlog_segments(sample_store.root), sample_store.summary.segments, strict=True
    ):
        records = _records(segment)
        assert len(records) == expected.records
        assert sum(r.total_size for r in records) == expected.used_bytes


def test_rows_equal_message_decoder(sample_store):
    rows = []
    for segment in sr.find_commitlog_segments(sample_store.root):
        for batch in sr.commitlog_batches(segment):
            rows += batch.to_pylist()
    assert len(rows) == len(sample_store.messages)
    for row, (segment, msg) in zip(rows, sample_store.messages, strict=True):
        row["born_timestamp"] = int(row["born_timestamp"].timestamp() * 1000)
        row["store_timestamp"] = int(row["store_timestamp"].timestamp() * 1000)
        row["properties"] = dict(row["properties"])
        assert row == expected_row(segment, msg)


def test_properties_keep_their_stored_order(sample_store):
    segment = sr.find_commitlog_segments(sample_store.root)[0]
    row = next(sr.commitlog_batches(segment)).slice(0, 1).to_pylist()[0]
    stored = _records(segment)[0].properties.decode()
    assert "\x02".join(f"{k}\x01{v}" for k, v in row["properties"]) == stored


def test_batches_hold_at_most_batch_rows(sample_store):
    segment = sr.find_commitlog_segments(sample_store.root)[0]
    sizes = [b.num_rows for b in sr.commitlog_batches(segment, batch_rows=10)]
    assert max(sizes) == 10 and sum(sizes) == sample_store.summary.segments[0].records
    assert all(b.schema.equals(sr.COMMITLOG_ARROW_SCHEMA) for b in sr.commitlog_batches(segment, batch_rows=10))


def test_empty_and_zero_filled_files_have_no_records(tmp_path):
    (tmp_path / "commitlog").mkdir()
    (tmp_path / "commitlog" / "00000000000000000000").write_bytes(b"")
    (tmp_path / "commitlog" / "00000000000000065536").write_bytes(bytes(65536))
    assert [_records(s) for s in sr.find_commitlog_segments(tmp_path)] == [[], []]
    assert list(sr.commitlog_batches(sr.find_commitlog_segments(tmp_path)[1])) == []


# -- corrupt records -------------------------------------------------------------------------------------------
def _second_record_of_segment_1(sample_store):
    segment = sr.find_commitlog_segments(sample_store.root)[1]
    first = _records(segment)[0]
    return segment, first.total_size  # position of the second record inside the file


def test_bad_magic_code_names_file_and_offset(sample_store, store_copy):
    segment, pos = _second_record_of_segment_1(sample_store)
    _patch(store_copy / "commitlog" / segment.name, pos + 4, b"\x00\x00\x00\x01")
    with pytest.raises(BadMagicCodeError) as caught:
        _records(_segment(store_copy, 1))
    text = str(caught.value)
    assert f"commitlog/{segment.name}" in text
    assert f"CommitLog offset {segment.start_offset + pos}" in text
    assert "MAGICCODE" in text


@pytest.mark.spec("SDS-7")
def test_permissive_gives_a_corrupt_row_and_resyncs_at_the_next_record(sample_store, store_copy):
    segment, pos = _second_record_of_segment_1(sample_store)
    bad_size = _records(segment)[1].total_size
    _patch(store_copy / "commitlog" / segment.name, pos + 4, b"\x00\x00\x00\x01")
    items = _records(_segment(store_copy, 1), mode=sr.ReadMode.PERMISSIVE)
    spans = [i for i in items if isinstance(i, sr.CorruptSpan)]
    assert len(items) == sample_store.summary.segments[1].records  # every record but one, plus one span
    assert [(s.position, s.length, s.error.field) for s in spans] == [(pos, bad_size, "MAGICCODE")]
    assert isinstance(spans[0].error, BadMagicCodeError)
    rows = [
        r for b in sr.commitlog_batches(_segment(store_copy, 1), mode=sr.ReadMode.PERMISSIVE) for r in b.to_pylist()
    ]
    (bad,) = [r for r in rows if r["_corrupt"] is not None]
    assert bad["_corrupt"]["offset"] == bad["physical_offset"] == segment.start_offset + pos
    assert (bad["_corrupt"]["length"], bad["_corrupt"]["error"]) == (bad_size, "BadMagicCodeError")
    assert f"CommitLog offset {segment.start_offset + pos} of commitlog/{segment.name}" in bad["_corrupt"]["message"]
    assert bad["topic"] is None and bad["segment"] == segment.name and bad["broker"] == "broker-a"


@pytest.mark.spec("SDS-7")
def test_zeroed_bytes_inside_written_data_are_a_corrupt_span_when_permissive(sample_store, store_copy):
    segment, pos = _second_record_of_segment_1(sample_store)
    _patch(store_copy / "commitlog" / segment.name, pos, bytes(8))
    assert len(_records(_segment(store_copy, 1))) == 1  # FAILFAST: zero TOTALSIZE ends the data, as recovery does
    items = _records(_segment(store_copy, 1), mode=sr.ReadMode.PERMISSIVE)
    (span,) = [i for i in items if isinstance(i, sr.CorruptSpan)]
    assert (span.position, span.error.field) == (pos, "TOTALSIZE")
    assert len(items) == sample_store.summary.segments[1].records


@pytest.mark.spec("SDS-7")
def test_a_corrupt_tail_runs_to_the_end_of_the_range(sample_store, store_copy):
    last = sample_store.summary.segments[0]
    _patch(store_copy / "commitlog" / last.name, last.used_bytes, struct.pack(">i", last.free_bytes - 4))
    items = _records(_segment(store_copy, 0), mode=sr.ReadMode.PERMISSIVE)
    span = items[-1]
    assert isinstance(span, sr.CorruptSpan) and span.error.field == "TOTALSIZE"
    assert (span.position, span.position + span.length) == (last.used_bytes, last.file_size)


# -- record starts and ranges ------------------------------------------------------------------------------------
@pytest.mark.spec("SDS-4")
def test_next_record_start_finds_the_next_boundary_from_every_byte(sample_store):
    segment = _segment(sample_store.root, 0)
    starts, pos = [], 0
    for record in _records(segment):
        starts.append(pos)
        pos += record.total_size
    with open(segment.path, "rb") as f:
        buf = f.read()
    expected = iter(starts)
    want = next(expected)
    for position in range(0, starts[-1] + 1):
        if position > want:
            want = next(expected)
        assert sr.next_record_start(buf, position, segment) == want
    assert sr.next_record_start(buf, starts[-1] + 1, segment) is None


@pytest.mark.spec("SDS-4")
@pytest.mark.parametrize("max_bytes", [1, 97, 4096, 1 << 30])
def test_ranges_cut_at_record_starts_read_exactly_the_unsplit_records(sample_store, max_bytes):
    for segment in sr.find_commitlog_segments(sample_store.root):
        whole = [r.physical_offset for r in _records(segment)]
        ranges = sr.plan_ranges(segment, max_bytes)
        assert ranges[0].start == 0 and ranges[-1].end == segment.size
        assert all(a.end == b.start for a, b in itertools.pairwise(ranges))
        split = [r.physical_offset for rng in ranges for r in sr.iter_range_records(rng)]
        assert split == whole
        if max_bytes == 1:
            assert [rng.first_offset for rng in ranges] == whole  # every record boundary is a range edge
            assert [rng.first_timestamp for rng in ranges] == [r.store_timestamp for r in _records(segment)]
            assert [rng.next_timestamp for rng in ranges[:-1]] == [rng.first_timestamp for rng in ranges[1:]]


@pytest.mark.spec("SDS-7")
def test_permissive_ranges_around_a_corrupt_record_equal_the_unsplit_read(sample_store, store_copy):
    segment, pos = _second_record_of_segment_1(sample_store)
    _patch(store_copy / "commitlog" / segment.name, pos + 4, b"\x00\x00\x00\x01")
    damaged = _segment(store_copy, 1)

    def key(item):
        if isinstance(item, sr.CorruptSpan):
            return ("corrupt", item.offset, item.length)
        return ("record", item.physical_offset)

    whole = [key(i) for i in _records(damaged, mode=sr.ReadMode.PERMISSIVE)]
    for max_bytes in (1, 50, 333):
        ranges = sr.plan_ranges(damaged, max_bytes)
        split = [key(i) for rng in ranges for i in sr.iter_range_records(rng, mode=sr.ReadMode.PERMISSIVE)]
        assert split == whole


@pytest.mark.spec("SDS-5")
def test_record_filter_keeps_only_matching_records(sample_store):
    segment = _segment(sample_store.root, 0)
    records = _records(segment)
    topic = records[0].topic.decode()
    wanted = sr.RecordFilter(topics=frozenset({topic}), queue_ids=frozenset({records[0].queue_id}))
    rows = [r for b in sr.commitlog_batches(segment, record_filter=wanted) for r in b.to_pylist()]
    assert rows and {(r["topic"], r["queue_id"]) for r in rows} == {(topic, records[0].queue_id)}
    assert len(rows) == sum(1 for r in records if wanted.accepts(r))
    window = sr.RecordFilter(min_offset=records[3].physical_offset, max_offset=records[5].physical_offset)
    assert [r.physical_offset for r in records if window.accepts(r)] == [r.physical_offset for r in records[3:6]]
    assert sr.RecordFilter().is_empty and not window.is_empty


def test_total_size_past_the_file_end_is_truncation(sample_store, store_copy):
    segment, pos = _second_record_of_segment_1(sample_store)
    _patch(store_copy / "commitlog" / segment.name, pos, struct.pack(">i", 70000))
    with pytest.raises(TruncatedRecordError, match=f"CommitLog offset {segment.start_offset + pos}"):
        _records(_segment(store_copy, 1))


def test_flipped_body_byte_fails_the_crc_check_unless_disabled(sample_store, store_copy):
    segment, pos = _second_record_of_segment_1(sample_store)
    path = store_copy / "commitlog" / segment.name
    body_at = pos + 88  # IPv4 hosts: the body starts at byte 88 of the record
    _patch(path, body_at, bytes([path.read_bytes()[body_at] ^ 0x20]))
    with pytest.raises(BodyCrcMismatchError, match="BODYCRC"):
        _records(_segment(store_copy, 1))
    assert len(_records(_segment(store_copy, 1), check_crc=False)) == sample_store.summary.segments[1].records


def test_record_at_the_wrong_offset_is_corrupt(sample_store, store_copy):
    segment, pos = _second_record_of_segment_1(sample_store)
    _patch(store_copy / "commitlog" / segment.name, pos + MESSAGE_PHYSIC_OFFSET_POSITION, struct.pack(">q", 12))
    with pytest.raises(MessageFormatError, match="PHYSICALOFFSET"):
        _records(_segment(store_copy, 1))


def test_blank_record_must_span_the_rest_of_the_file(sample_store, store_copy):
    first = sample_store.summary.segments[0]
    _patch(store_copy / "commitlog" / first.name, first.used_bytes, struct.pack(">i", first.free_bytes - 4))
    with pytest.raises(RecordSizeMismatchError, match="blank record"):
        _records(_segment(store_copy, 0))


@pytest.mark.parametrize(
    ("text", "mode"),
    [(None, sr.ReadMode.FAILFAST), ("permissive", sr.ReadMode.PERMISSIVE), (" FAILFAST ", sr.ReadMode.FAILFAST)],
)
def test_mode_option(text, mode):
    assert sr.ReadMode.parse(text) is mode


def test_unknown_mode_is_rejected():
    with pytest.raises(ValueError, match="DROPMALFORMED"):
        sr.ReadMode.parse("DROPMALFORMED")


# -- ConsumeQueue units ----------------------------------------------------------------------------------------
def test_units_point_at_the_records_with_java_tags_codes(sample_store):
    units = {}
    for queue_file in sr.find_consume_queue_files(sample_store.root):
        for queue_offset, offset, size, tags_code in sr.iter_consume_queue_units(queue_file):
            units[(queue_file.topic, queue_file.queue_id, queue_offset)] = (offset, size, tags_code)
    expected = {
        (m.topic, m.queue_id, m.queue_offset): (
            m.commit_log_offset,
            m.store_size,
            MessageExtBrokerInner.tags_string2tags_code(m.get_tags()),
        )
        for _, m in sample_store.messages
    }
    assert units == expected


def test_prefill_units_are_skipped_and_an_invalid_unit_ends_the_file(tmp_path):
    queue_dir = tmp_path / "consumequeue" / "T" / "3"
    queue_dir.mkdir(parents=True)
    units = [BLANK_UNIT, BLANK_UNIT, UNIT.pack(500, 90, 7), UNIT.pack(590, 91, 0), bytes(20), UNIT.pack(700, 9, 1)]
    (queue_dir / "00000000000000002000").write_bytes(b"".join(units))
    (queue_file,) = sr.find_consume_queue_files(tmp_path / "consumequeue")
    assert (queue_file.topic, queue_file.queue_id) == ("T", 3)
    assert list(sr.iter_consume_queue_units(queue_file)) == [(102, 500, 90, 7), (103, 590, 91, 0)]
    (batch,) = sr.consumequeue_batches(queue_file)
    assert batch.schema.equals(sr.CONSUMEQUEUE_ARROW_SCHEMA)
    assert batch.column("queue_offset").to_pylist() == [102, 103]


@pytest.mark.parametrize(
    "units",
    [
        [UNIT.pack(1, 2, 3), BLANK_UNIT, UNIT.pack(4, 5, 6)],  # a filler between units is skipped too
        [UNIT.pack(-1, 9, 0), UNIT.pack(8, 9, 0)],  # a negative offset first: no units
        [UNIT.pack(8, 9, 0), UNIT.pack(9, 0, 0), UNIT.pack(10, 9, 0)],  # size 0 ends the file
        [BLANK_UNIT] * 3,
        [UNIT.pack(8, 9, -5), b"\x01" * 7],  # a partial unit at the end is not a unit
    ],
)
def test_consumequeue_batches_give_the_units_of_the_unit_walk(tmp_path, units):
    queue_dir = tmp_path / "consumequeue" / "T" / "0"
    queue_dir.mkdir(parents=True)
    (queue_dir / "00000000000000000040").write_bytes(b"".join(units))
    (queue_file,) = sr.find_consume_queue_files(tmp_path / "consumequeue")
    rows = [r for b in sr.consumequeue_batches(queue_file, batch_rows=1) for r in b.to_pylist()]
    assert [(r["queue_offset"], r["commit_log_offset"], r["size"], r["tags_code"]) for r in rows] == list(
        sr.iter_consume_queue_units(queue_file)
    )
    assert all((r["topic"], r["queue_id"], r["segment"]) == ("T", 0, "00000000000000000040") for r in rows)

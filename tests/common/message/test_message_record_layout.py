"""The record table (message_record_layout) against the spec page, the fact sheet, and its own encoder/decoder."""

import re
import struct
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message_errors import (
    BadMagicCodeError,
    MessageFormatError,
    PropertiesTooLongError,
    RecordSizeMismatchError,
    TopicTooLongError,
    TruncatedRecordError,
)
from tests.strategies import commit_log_records

ROOT = Path(__file__).resolve().parents[3]
SPEC = ROOT / "docs" / "spec" / "message-model.md"

KIND_WORDS = {
    "int": layout.FieldKind.INT,
    "long": layout.FieldKind.LONG,
    "host": layout.FieldKind.HOST,
    "int length + bytes": layout.FieldKind.BODY,
    "byte length + bytes": layout.FieldKind.TOPIC,
    "short length + bytes": layout.FieldKind.PROPERTIES,
}


def spec_record_table() -> list[list[str]]:
    """Rows of the 17-field table on the spec page (cells stripped)."""
    rows = []
    for line in SPEC.read_text(encoding="utf-8").splitlines():
        if re.match(r"^\|\s*\d+\s*\|\s*[A-Z]+\s*\|", line):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def evaluate(expression: str, b: int, t: int) -> int:
    """An offset cell such as ``89 + b + t``."""
    assert re.fullmatch(r"\d+( \+ [bt])*", expression), expression
    values = {"b": b, "t": t}
    return sum(values[term] if term in values else int(term) for term in expression.split(" + "))


@pytest.mark.spec("MSG-5")
def test_spec_page_table_matches_the_layout():
    rows = spec_record_table()
    assert [int(row[0]) for row in rows] == list(range(1, 18))
    assert [row[1] for row in rows] == [f.name for f in layout.FIELDS]
    assert [KIND_WORDS[row[2]] for row in rows] == [f.kind for f in layout.FIELDS]
    for b, t, p in [(0, 0, 0), (14, 9, 90), (1000, 127, 32767)]:
        for column, sys_flag in ((3, 0), (4, 0x30)):
            spans = layout.spans(sys_flag, b, t, p)
            assert [evaluate(row[column], b, t) for row in rows] == [s.offset for s in spans], (column, b, t)


@pytest.mark.spec("MSG-5")
def test_field_order_and_numbers():
    assert [f.number for f in layout.FIELDS] == list(range(1, 18))
    assert [f.name for f in layout.FIELDS][:3] == ["TOTALSIZE", "MAGICCODE", "BODYCRC"]
    assert [f.name for f in layout.FIELDS][-3:] == ["BODY", "TOPIC", "PROPERTIES"]


@pytest.mark.spec("MSG-5", "MSG-6")
def test_v4_offsets_of_the_fact_sheet():
    offsets = {s.field.name: s.offset for s in layout.spans(0, 14, 9, 90)}
    assert offsets == {
        "TOTALSIZE": 0,
        "MAGICCODE": 4,
        "BODYCRC": 8,
        "QUEUEID": 12,
        "FLAG": 16,
        "QUEUEOFFSET": 20,
        "PHYSICALOFFSET": 28,
        "SYSFLAG": 36,
        "BORNTIMESTAMP": 40,
        "BORNHOST": 48,
        "STORETIMESTAMP": 56,
        "STOREHOSTADDRESS": 64,
        "RECONSUMETIMES": 72,
        "PREPAREDTRANSACTIONOFFSET": 76,
        "BODY": 84,
        "TOPIC": 102,
        "PROPERTIES": 112,
    }


@pytest.mark.spec("MSG-6")
@pytest.mark.parametrize(("sys_flag", "overhead"), [(0, 91), (0x10, 103), (0x20, 103), (0x30, 115), (0x3F, 115)])
def test_fixed_overhead(sys_flag, overhead):
    assert layout.cal_msg_length(sys_flag, 0, 0, 0) == overhead
    assert layout.cal_msg_length(sys_flag, 14, 9, 90) == overhead + 113


@pytest.mark.spec("MSG-6")
@given(st.integers(0, 63), st.integers(0, 10**6), st.integers(0, 127), st.integers(0, 32767))
def test_length_formula_of_cal_msg_length(sys_flag, b, t, p):
    born = 20 if sys_flag & 0x10 else 8
    store = 20 if sys_flag & 0x20 else 8
    expected = 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + born + 8 + store + 4 + 8 + 4 + b + 1 + t + 2 + p
    assert layout.cal_msg_length(sys_flag, b, t, p) == expected


@pytest.mark.spec("MSG-6")
def test_host_family_must_agree_with_sysflag():
    record = layout.CommitLogRecord(born_host=InetSocketAddress("::1", 1), topic=b"T")
    with pytest.raises(ValueError, match="BORNHOST is IPv6"):
        layout.encode(record)
    record = layout.CommitLogRecord(sys_flag=0x20, topic=b"T")
    with pytest.raises(ValueError, match="STOREHOSTADDRESS is IPv4"):
        layout.encode(record)


@pytest.mark.spec("MSG-7")
def test_named_positions():
    assert layout.MESSAGE_MAGIC_CODE_POSITION == 4
    assert layout.MESSAGE_FLAG_POSITION == 16
    assert layout.QUEUE_OFFSET_POSITION == 20
    assert layout.MESSAGE_PHYSIC_OFFSET_POSITION == 28
    assert layout.SYSFLAG_POSITION == 36
    assert layout.BORN_TIMESTAMP_POSITION == 40
    assert layout.store_timestamp_position(0) == 56
    assert layout.store_timestamp_position(0x10) == 68
    assert layout.store_timestamp_position(0x20) == 56
    with pytest.raises(KeyError):
        layout.position_of("NOSUCHFIELD")


@pytest.mark.spec("MSG-8")
def test_magic_codes():
    assert layout.MESSAGE_MAGIC_CODE == -626843481
    assert layout.MESSAGE_MAGIC_CODE & 0xFFFFFFFF == 0xDAA320A7
    assert layout.BLANK_MAGIC_CODE == -875286124
    assert layout.BLANK_MAGIC_CODE & 0xFFFFFFFF == 0xCBD43194


@pytest.mark.spec("MSG-12")
def test_limits_are_exact():
    ok = layout.CommitLogRecord(topic=b"t" * 127, properties=b"p" * 32767)
    record, end = layout.decode(layout.encode(ok))
    assert (len(record.topic), len(record.properties), end) == (127, 32767, 91 + 127 + 32767)
    with pytest.raises(TopicTooLongError, match="128 bytes") as topic_error:
        layout.encode(layout.CommitLogRecord(topic=b"t" * 128))
    assert topic_error.value.field == "TOPIC"
    with pytest.raises(PropertiesTooLongError, match="32768 bytes") as props_error:
        layout.encode(layout.CommitLogRecord(topic=b"t", properties=b"p" * 32768))
    assert props_error.value.field == "PROPERTIES"


@pytest.mark.spec("MSG-13")
@given(commit_log_records())
def test_records_round_trip(record):
    data = layout.encode(record)
    assert len(data) == layout.cal_msg_length(
        record.sys_flag, len(record.body), len(record.topic), len(record.properties)
    )
    decoded, end = layout.decode(data)
    assert end == len(data)
    record.total_size = len(data)
    assert decoded == record


@pytest.mark.spec("MSG-13")
@given(commit_log_records(), st.binary(max_size=20), st.binary(max_size=20))
def test_decode_at_an_offset_inside_a_larger_buffer(record, before, after):
    data = layout.encode(record)
    decoded, end = layout.decode(before + data + after, len(before))
    assert end == len(before) + len(data)
    assert decoded.body == record.body and decoded.properties == record.properties


# -- bad input ---------------------------------------------------------------------------------------------------
# The fact sheet's golden record (§1.12), as 4.9.3's MessageDecoder#encode writes it.
GOLDEN = bytes.fromhex(
    "000000CCDAA320A769C865ED00000001000000000000000000000000000000000000000000000000000001802BA9F400"
    "7F0000010000D903000001802BA9F47BC0A8010A00002A9F0000000000000000000000000000000E48656C6C6F20526F"
    "636B65744D5109546F70696354657374005A4B455953014F72646572494430303102554E49515F4B4559014330413830"
    "31363433303339364430364436394330303046343234303030303102434C55535445520144656661756C74436C757374"
    "657202544147530154616741"
)


def field_names():
    return {f.name for f in layout.FIELDS}


@pytest.mark.spec("MSG-17")
@pytest.mark.parametrize("cut", sorted({0, 1, 3} | {s.offset for s in layout.spans(0, 14, 9, 90)} | {203}))
def test_cut_at_every_field_boundary_is_a_truncated_record(cut):
    with pytest.raises(TruncatedRecordError) as error:
        layout.decode(GOLDEN[:cut], where="00000000000000000000")
    err = error.value
    assert err.field is not None and err.position is not None
    assert any(name in err.field for name in field_names())
    assert 0 <= err.position < len(GOLDEN)
    assert f"field {err.field}" in str(err)
    assert f"at byte {err.position}" in str(err)
    assert "in 00000000000000000000" in str(err)


@pytest.mark.spec("MSG-17")
@given(st.integers(0, len(GOLDEN) - 1), st.integers(0, 10_000))
def test_any_cut_is_a_named_format_error_at_a_position_inside_the_record(cut, base):
    with pytest.raises(TruncatedRecordError) as error:
        layout.decode(GOLDEN[:cut], base=base)
    assert base <= error.value.position < base + len(GOLDEN)


@pytest.mark.spec("MSG-16")
def test_wrong_magic_code_is_named():
    bad = GOLDEN[:4] + struct.pack(">i", 0x12345678) + GOLDEN[8:]
    with pytest.raises(BadMagicCodeError, match="magic code 0x12345678") as error:
        layout.decode(b"\x00" * 10 + bad, 10, base=1000)
    assert (error.value.field, error.value.position) == ("MAGICCODE", 1014)


@pytest.mark.spec("MSG-16")
def test_blank_magic_code_is_reported_as_a_blank_record():
    blank = struct.pack(">ii", 64, layout.BLANK_MAGIC_CODE) + bytes(56)
    with pytest.raises(BadMagicCodeError, match="blank") as error:
        layout.decode(blank)
    assert (error.value.field, error.value.position) == ("MAGICCODE", 4)


@pytest.mark.spec("MSG-17")
def test_totalsize_longer_than_the_fields_is_a_size_mismatch():
    bad = struct.pack(">i", 250) + GOLDEN[4:] + bytes(46)
    with pytest.raises(RecordSizeMismatchError, match="TOTALSIZE says 250") as error:
        layout.decode(bad)
    assert (error.value.field, error.value.position) == ("TOTALSIZE", 0)


@pytest.mark.spec("MSG-17")
@pytest.mark.parametrize("total", [-5, 0, 20, 150, 203, 250])
def test_any_wrong_totalsize_is_a_named_error(total):
    bad = struct.pack(">i", total) + GOLDEN[4:]
    with pytest.raises((TruncatedRecordError, RecordSizeMismatchError)) as error:
        layout.decode(bad)
    assert error.value.field is not None
    assert 0 <= error.value.position < len(GOLDEN)


@pytest.mark.spec("MSG-17")
@pytest.mark.parametrize(("field", "position", "fmt"), [("BODY", 84, ">i"), ("PROPERTIES", 112, ">h")])
def test_negative_lengths_are_size_mismatches(field, position, fmt):
    bad = bytearray(GOLDEN)
    struct.pack_into(fmt, bad, position, -1)
    with pytest.raises(MessageFormatError) as error:
        layout.decode(bytes(bad))
    assert error.value.field is not None


def test_decode_skips_the_body_when_asked():
    record, end = layout.decode(GOLDEN, read_body=False)
    assert end == 204
    assert record.body == b""
    assert record.topic == b"TopicTest"


# -- decode_dispatch_fields: the store's fast path must agree with decode_raw --------------------------------------
def _dispatch_view(raw: layout.RawRecord, buf: bytes, offset: int) -> tuple:
    """What decode_dispatch_fields returns, rebuilt from decode_raw's fields (positions recomputed)."""
    body_start = offset + 88
    topic_start = body_start + raw.body_length + 1
    properties_start = topic_start + len(raw.topic) + 2
    return (
        raw.body_crc,
        raw.queue_id,
        raw.queue_offset,
        raw.physical_offset,
        raw.sys_flag,
        raw.store_timestamp,
        raw.prepared_transaction_offset,
        body_start,
        raw.body_length,
        topic_start,
        len(raw.topic),
        properties_start,
        len(raw.properties),
    )


def _check_dispatch_fields(buf: bytes, offset: int) -> None:
    total = struct.unpack_from(">i", buf, offset)[0] if offset + 4 <= len(buf) else 0
    fast = layout.decode_dispatch_fields(buf, offset, total)
    try:
        raw = layout.decode_raw(buf, offset)
    except MessageFormatError:
        assert fast is None  # a record decode_raw rejects is never taken by the fast path
        return
    if raw.sys_flag & 0x30:
        assert fast is None  # IPv6 hosts are left to decode_raw
    else:
        assert fast == _dispatch_view(raw, buf, offset)


@given(commit_log_records(), st.integers(0, 3))
def test_decode_dispatch_fields_agrees_with_decode_raw(record, pad):
    data = bytes(pad) + layout.encode(record) + bytes(pad)
    _check_dispatch_fields(data, pad)


@given(commit_log_records(), st.data())
def test_decode_dispatch_fields_refuses_what_decode_raw_refuses(record, data):
    encoded = bytearray(layout.encode(record))
    mutation = data.draw(st.sampled_from(["truncate", "total", "body", "topic", "properties"]))
    if mutation == "truncate":
        encoded = encoded[: data.draw(st.integers(8, len(encoded) - 1))]
    elif mutation == "total":
        struct.pack_into(">i", encoded, 0, data.draw(st.integers(-5, len(encoded) + 5)))
    else:
        spans = {s.field.name: s for s in layout.spans(record.sys_flag, len(record.body), len(record.topic), 1)}
        name = {"body": "BODY", "topic": "TOPIC", "properties": "PROPERTIES"}[mutation]
        code = {"body": ">i", "topic": ">b", "properties": ">h"}[mutation]
        limits = {"body": (-3, 2**31 - 1), "topic": (-128, 127), "properties": (-(2**15), 2**15 - 1)}[mutation]
        struct.pack_into(code, encoded, spans[name].offset, data.draw(st.integers(*limits)))
    _check_dispatch_fields(bytes(encoded), 0)

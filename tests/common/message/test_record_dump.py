import pytest
from hypothesis import given

from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message_errors import TruncatedRecordError
from mqlab.common.message.record_dump import (
    describe_sys_flag,
    describe_timestamp,
    dump_record,
    format_dump,
    show_separators,
)
from tests.strategies import commit_log_records

GOLDEN = bytes.fromhex(
    "000000CCDAA320A769C865ED00000001000000000000000000000000000000000000000000000000000001802BA9F400"
    "7F0000010000D903000001802BA9F47BC0A8010A00002A9F0000000000000000000000000000000E48656C6C6F20526F"
    "636B65744D5109546F70696354657374005A4B455953014F72646572494430303102554E49515F4B4559014330413830"
    "31363433303339364430364436394330303046343234303030303102434C55535445520144656661756C74436C757374"
    "657202544147530154616741"
)


def test_lines_of_the_golden_record():
    lines = dump_record(GOLDEN)
    assert [(line.number, line.name, line.offset, len(line.raw)) for line in lines] == [
        (1, "TOTALSIZE", 0, 4),
        (2, "MAGICCODE", 4, 4),
        (3, "BODYCRC", 8, 4),
        (4, "QUEUEID", 12, 4),
        (5, "FLAG", 16, 4),
        (6, "QUEUEOFFSET", 20, 8),
        (7, "PHYSICALOFFSET", 28, 8),
        (8, "SYSFLAG", 36, 4),
        (9, "BORNTIMESTAMP", 40, 8),
        (10, "BORNHOST", 48, 8),
        (11, "STORETIMESTAMP", 56, 8),
        (12, "STOREHOSTADDRESS", 64, 8),
        (13, "RECONSUMETIMES", 72, 4),
        (14, "PREPAREDTRANSACTIONOFFSET", 76, 8),
        (15, "BODYLENGTH", 84, 4),
        (15, "BODY", 88, 14),
        (16, "TOPICLENGTH", 102, 1),
        (16, "TOPIC", 103, 9),
        (17, "PROPERTIESLENGTH", 112, 2),
        (17, "PROPERTIES", 114, 90),
    ]
    values = {line.name: line.value for line in lines}
    assert values["TOTALSIZE"] == "204"
    assert values["MAGICCODE"] == "0xDAA320A7 (message)"
    assert values["SYSFLAG"] == "0x0 = TRANSACTION_NOT_TYPE"
    assert values["BORNTIMESTAMP"] == "1650000000000 = 2022-04-15 05:20:00.000 UTC"
    assert values["STOREHOSTADDRESS"] == "192.168.1.10:10911"
    assert values["BODY"] == '"Hello RocketMQ"'
    assert values["PROPERTIES"].startswith("KEYS␁OrderID001␂UNIQ_KEY␁")


@given(commit_log_records())
def test_the_lines_cover_the_record_exactly(record):
    data = layout.encode(record)
    lines = dump_record(data)
    assert b"".join(line.raw for line in lines) == data
    assert [line.offset for line in lines] == [sum(len(x.raw) for x in lines[:i]) for i in range(len(lines))]
    assert len(format_dump(lines).splitlines()) >= len(lines) + 1


def test_format_wraps_long_fields():
    text = format_dump(dump_record(GOLDEN))
    rows = text.splitlines()
    assert rows[0].split() == ["#", "field", "offset", "size", "bytes", "(hex)", "value"]
    assert rows[1].split() == ["1", "TOTALSIZE", "0", "4", "000000CC", "204"]
    assert len(rows) == 1 + 20 + 5  # 90 properties bytes take 6 rows of 16
    assert rows[-1].strip() == "02544147530154616741"


def test_descriptions():
    assert describe_sys_flag(0x30) == "0x30 = BORNHOST_V6_FLAG | STOREHOSTADDRESS_V6_FLAG | TRANSACTION_NOT_TYPE"
    assert describe_sys_flag(0x0D) == "0xd = COMPRESSED_FLAG | TRANSACTION_ROLLBACK_TYPE"
    assert describe_sys_flag(0x102) == "0x102 = MULTI_TAGS_FLAG | TRANSACTION_NOT_TYPE | unknown bits 0x100"
    assert describe_timestamp(0) == "0 = 1970-01-01 00:00:00.000 UTC"
    assert describe_timestamp(2**62) == str(2**62)
    assert show_separators("a\x01b\x02c") == "a␁b␂c"


def test_binary_and_empty_fields():
    record = layout.CommitLogRecord(body=b"\xff\xfe", topic=b"T", properties=b"")
    values = {line.name: line.value for line in dump_record(layout.encode(record))}
    assert values["BODY"] == "(2 bytes, not UTF-8)"
    assert values["PROPERTIES"] == "(empty)"
    record = layout.CommitLogRecord(body=b"\x00\x01", topic=b"T")
    assert {line.name: line.value for line in dump_record(layout.encode(record))}["BODY"] == "(2 bytes, not printable)"


def test_invalid_records_are_refused():
    with pytest.raises(TruncatedRecordError):
        dump_record(GOLDEN[:100])

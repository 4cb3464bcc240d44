from datetime import UTC, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.common import util_all


def test_hex_helpers():
    assert util_all.bytes2string(bytes([0xC0, 0xA8, 0x01, 0x0A])) == "C0A8010A"
    assert util_all.string2bytes("c0a8010a") == bytes([0xC0, 0xA8, 0x01, 0x0A])
    assert util_all.string2bytes("") is None
    assert util_all.string2bytes(None) is None


@given(st.binary())
def test_hex_round_trip(data):
    text = util_all.bytes2string(data)
    assert text == text.upper()
    assert (util_all.string2bytes(text) or b"") == data


def test_offset_to_file_name():
    assert util_all.offset2file_name(0) == "00000000000000000000"
    assert util_all.offset2file_name(1073741824) == "00000000001073741824"
    with pytest.raises(ValueError):
        util_all.offset2file_name(-1)


def test_human_strings_use_the_given_zone():
    assert util_all.time_millis_to_human_string(1650000000123, UTC) == "20220415052000123"
    assert util_all.time_millis_to_human_string(1650000000123, timezone(timedelta(hours=8))) == "20220415132000123"
    assert util_all.time_millis_to_human_string3(1650000000123, UTC) == "20220415052000"


def test_is_it_time_to_do():
    assert util_all.is_it_time_to_do("04", 4)
    assert util_all.is_it_time_to_do("04;12", 12)
    assert util_all.is_it_time_to_do("04;x", 4)  # an earlier match returns before the bad entry is parsed
    with pytest.raises(ValueError, match="not an hour"):
        util_all.is_it_time_to_do("04;x", 5)  # as Integer.parseInt throws in Java


def test_compress_is_zlib_and_matches_java_for_this_body():
    body = b"Hello world Hello world Hello world"
    # java.util.zip.Deflater(5) through UtilAll#compress on OpenJDK 17.
    assert util_all.compress(body, 5) == bytes.fromhex("785EF348CDC9C95728CF2FCA4951F0C0CE0600E6F30CF5")
    assert util_all.uncompress(util_all.compress(body, 5)) == body


# Character.isWhitespace decides UtilAll#isBlank; values printed by 4.9.3's UtilAll#isBlank.
JAVA_IS_BLANK = {
    "": True,
    " ": True,
    "\u00a0": False,
    "\u0085": False,
    "\u3000": True,
    "\u2028": True,
    "\u200b": False,
    "\u001c": True,
    "\t\n": True,
    "\u2007": False,
    "\u202f": False,
    "\u000b": True,
    "\u0001": False,
    "a": False,
}


@pytest.mark.spec("MSG-24")
@pytest.mark.parametrize(("text", "blank"), JAVA_IS_BLANK.items())
def test_is_blank_like_java(text, blank):
    assert util_all.is_blank(text) is blank


def test_is_blank_none():
    assert util_all.is_blank(None)


@pytest.mark.spec("ID-6")
def test_ip_strings_like_java():
    assert util_all.ip_to_ipv4_str(bytes([192, 168, 1, 100])) == "192.168.1.100"
    assert util_all.ip_to_ipv4_str(bytes(16)) is None
    ip6 = bytes.fromhex("24084004018081003FAA1DDE2B3F898A")
    assert util_all.ip_to_ipv6_str(ip6) == "2408:4004:0180:8100:3faa:1dde:2b3f:898a"
    assert util_all.ip_to_ipv6_str(bytes(4)) is None

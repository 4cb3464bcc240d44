import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.common.jdk.string_hash import (
    java_int_abs,
    java_string_compare,
    java_string_hash,
    java_string_hash_by_prefix,
    to_int32,
    utf16_code_units,
)

# Printed by String#hashCode on OpenJDK 17.
JAVA_HASHES = {
    "TagA": 2598919,
    "TopicTest#OrderID001": -1231272886,
    "polygenelubricants": -2147483648,
    "KEYS": 2303476,
    "TAGS": 2567193,
    "WAIT": 2656629,
    "UNIQ_KEY": 488471169,
    "CLUSTER": 1590074842,
    "Aa": 2112,
    "BB": 2112,
    "": 0,
    "\U0001f600": 1772899,  # one emoji = two UTF-16 code units
    "a\U0001f600b": 57849694,
    "\U0001d11e": 1772394,
    "\u4e2d\u6587": 646394,
    "\u00e9t\u00e9": 227742,
    "\ud83d": 55357,  # a lone high surrogate, which a Java String may hold
    "\uffff": 65535,
    "TopicTest": -1902610879,
    "OrderID188": -1566895736,
    "DELAY": 64930147,
    "REAL_TOPIC": -245408978,
    "REAL_QID": -76236021,
    "AaAaAaAa": -540425984,
    "AaAaAaBB": -540425984,
}


@pytest.mark.spec("PROP-4")
@pytest.mark.parametrize(("text", "expected"), JAVA_HASHES.items())
def test_string_hash_equals_java(text, expected):
    assert java_string_hash(text) == expected


@pytest.mark.spec("PROP-4")
def test_characters_above_the_bmp_count_as_two_code_units():
    assert utf16_code_units("\U0001f600") == [0xD83D, 0xDE00]
    assert utf16_code_units("a\U0001f600b") == [0x61, 0xD83D, 0xDE00, 0x62]
    assert java_string_hash("\U0001f600") == 31 * 0xD83D + 0xDE00


@pytest.mark.spec("PROP-4")
@given(st.text())
def test_string_hash_is_the_polynomial_over_utf16_units(text):
    h = 0
    for unit in utf16_code_units(text):
        h = (31 * h + unit) % 2**32
    assert java_string_hash(text) == to_int32(h)
    assert -(2**31) <= java_string_hash(text) < 2**31


@pytest.mark.spec("PROP-4")
@pytest.mark.parametrize(("text", "expected"), JAVA_HASHES.items())
def test_string_hash_by_prefix_equals_java(text, expected):
    assert java_string_hash_by_prefix(text) == expected


@pytest.mark.spec("PROP-4")
@given(
    st.lists(st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=6), min_size=1, max_size=5),
    st.lists(st.text(min_size=10, max_size=300), min_size=1, max_size=4),
)
def test_string_hash_by_prefix_is_the_hash_whatever_the_prefixes_seen(prefixes, suffixes):
    # Keys that share a prefix (remembered after the first) and keys that do not, ASCII or not, short or long.
    for suffix in suffixes:
        for prefix in prefixes:
            key = "TopicTest#" + prefix + suffix
            assert java_string_hash_by_prefix(key) == java_string_hash(key)
            assert java_string_hash_by_prefix(key) == java_string_hash_by_prefix(key)


@pytest.mark.spec("PROP-4")
def test_math_abs_of_min_value_stays_negative():
    assert java_int_abs(java_string_hash("polygenelubricants")) == -(2**31)
    assert java_int_abs(-5) == 5
    assert java_int_abs(2**31 - 1) == 2**31 - 1


def test_to_int32_wraps_like_a_java_int():
    assert to_int32(2**31) == -(2**31)
    assert to_int32(2**32 + 7) == 7
    assert to_int32(-1) == -1


@pytest.mark.spec("MSG-22")
def test_compare_is_by_utf16_code_unit_not_code_point():
    # Python puts U+FFFF before an emoji (code points); Java puts it after (0xFFFF > high surrogate 0xD83D).
    assert "\uffff" < "\U0001f600"
    assert java_string_compare("\uffff", "\U0001f600") > 0
    assert java_string_compare("abc", "abd") == -1
    assert java_string_compare("ab", "abc") < 0
    assert java_string_compare("same", "same") == 0


@given(st.text(), st.text())
def test_compare_agrees_with_utf16_ordering(a, b):
    expected = utf16_code_units(a) > utf16_code_units(b)
    result = java_string_compare(a, b)
    assert (result > 0) == expected
    assert (result == 0) == (a == b)


def _horner(s: str) -> int:
    """The textbook loop, as the reference for the one-pass sum."""
    h = 0
    for c in utf16_code_units(s):
        h = (31 * h + c) & 0xFFFFFFFF
    return to_int32(h)


@given(st.text(max_size=300))
def test_java_string_hash_matches_the_loop_at_any_length(text):
    # Up to 256 code units the hash is one dot product with precomputed powers of 31; longer strings loop.
    assert java_string_hash(text) == _horner(text)


@pytest.mark.parametrize("length", [0, 1, 255, 256, 257, 1000])
def test_java_string_hash_around_the_power_table_size(length):
    text = "".join(chr(33 + (i * 7) % 90) for i in range(length))
    assert java_string_hash(text) == _horner(text)

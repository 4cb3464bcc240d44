"""Java's ``String.hashCode`` and ``String.compareTo`` over UTF-16 code units.

Java: java.lang.String#hashCode, java.lang.String#compareTo (JDK semantics RocketMQ relies on)
Used for tags codes (ConsumeQueue), index keys (IndexFile), HashMap bucket order (properties) and
MessageQueue ordering.
"""

from __future__ import annotations

_MASK32 = 0xFFFFFFFF


def utf16_code_units(s: str) -> list[int]:
    """The UTF-16 code units Java stores for ``s`` (characters above U+FFFF become surrogate pairs)."""
    data = s.encode("utf-16-be", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


def to_int32(value: int) -> int:
    """Wrap any integer to a Java ``int`` (32-bit two's complement)."""
    value &= _MASK32
    return value - (1 << 32) if value & 0x80000000 else value


def java_string_hash(s: str) -> int:
    """Java's ``String.hashCode``: ``h = 31*h + c`` over UTF-16 code units, wrapped to a signed 32-bit int.

    Java: java.lang.String#hashCode
    """
    # ASCII bytes iterate as ints, one code unit per character: the fast path for topic names and keys.
    units = s.encode("ascii") if s.isascii() else utf16_code_units(s)
    h = 0
    for c in units:
        h = (31 * h + c) & _MASK32
    return to_int32(h)


def java_string_compare(a: str, b: str) -> int:
    """Java's ``String.compareTo``: lexicographic by UTF-16 code unit, then by length.

    Python compares strings by code point, which disagrees with Java only when a character above U+FFFF meets one
    in U+E000..U+FFFF; this helper keeps Java's answer everywhere.

    Java: java.lang.String#compareTo
    """
    if a.isascii() and b.isascii():
        return (a > b) - (a < b)
    ua, ub = utf16_code_units(a), utf16_code_units(b)
    for x, y in zip(ua, ub, strict=False):
        if x != y:
            return x - y
    return len(ua) - len(ub)


def java_int_abs(value: int) -> int:
    """Java's ``Math.abs(int)``: like ``abs`` except ``Integer.MIN_VALUE`` stays negative.

    Java: java.lang.Math#abs(int)
    """
    return to_int32(abs(value))

"""Java's ``String.hashCode`` and ``String.compareTo`` over UTF-16 code units.

Java: java.lang.String#hashCode, java.lang.String#compareTo (JDK semantics RocketMQ relies on)
Used for tags codes (ConsumeQueue), index keys (IndexFile), HashMap bucket order (properties) and
MessageQueue ordering.
"""

from __future__ import annotations

from operator import mul

_MASK32 = 0xFFFFFFFF
# 31**k mod 2**32 for k = 0..255: with these, a hash is one dot product (see java_string_hash).
_POWERS_OF_31 = [pow(31, k, 1 << 32) for k in range(256)]


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
    if len(units) <= len(_POWERS_OF_31):
        # Horner's loop h = 31*h + c unrolled: h = sum(c[i] * 31**(n-1-i)), computed in one C-level pass
        # (``map``/``sum``) over the reversed units instead of one Python iteration per character.
        h = sum(map(mul, units[::-1], _POWERS_OF_31)) & _MASK32
    else:
        h = 0
        for c in units:
            h = (31 * h + c) & _MASK32
    return h - (1 << 32) if h & 0x80000000 else h


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

"""Java's ``String.hashCode`` and ``String.compareTo`` over UTF-16 code units.

Java: java.lang.String#hashCode, java.lang.String#compareTo (JDK semantics RocketMQ relies on)
Used for tags codes (ConsumeQueue), index keys (IndexFile), HashMap bucket order (properties) and
MessageQueue ordering.
"""

from __future__ import annotations

from operator import mul

from mqlab.common.bounded_cache import BoundedCache

_MASK32 = 0xFFFFFFFF
# 31**k mod 2**32 for k = 0..255, as floats: with these, a hash is one dot product (see java_string_hash).
# A product c * 31**k with an ASCII c is below 2**39 and a sum of 256 of them below 2**47, so a double holds
# every partial sum exactly, and float products and sums skip the big-integer arithmetic of two-digit ints.
_POWERS_OF_31 = [float(pow(31, k, 1 << 32)) for k in range(256)]
# The same as ints, for other UTF-16 code units (up to 0xFFFF: their sums would not stay exact in a double).
_INT_POWERS_OF_31 = [pow(31, k, 1 << 32) for k in range(256)]


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
    h = _unsigned_hash(s)
    return h - (1 << 32) if h & 0x80000000 else h


def _unsigned_hash(s: str) -> int:
    """``String.hashCode`` as an unsigned 32-bit value."""
    # Horner's loop h = 31*h + c unrolled: h = sum(c[i] * 31**(n-1-i)), computed in one C-level pass
    # (``map``/``sum``) over the reversed code units instead of one Python iteration per character.
    if len(s) <= len(_POWERS_OF_31):
        if s.isascii():  # ASCII bytes iterate as ints, one code unit per character
            return _ascii_sum(s) & _MASK32
        return sum(map(mul, utf16_code_units(s)[::-1], _INT_POWERS_OF_31)) & _MASK32
    h = 0
    for c in utf16_code_units(s):
        h = (31 * h + c) & _MASK32
    return h


def _ascii_sum(s: str) -> int:
    """The hash polynomial of an ASCII string of at most 256 characters, not yet reduced to 32 bits."""
    return int(sum(map(mul, s.encode("ascii")[::-1], _POWERS_OF_31)))


# hash(prefix) * 31**SHARED_SUFFIX of keys without their last SHARED_SUFFIX characters, by that prefix.
SHARED_SUFFIX = 12
_POWER_OF_SUFFIX = pow(31, SHARED_SUFFIX, 1 << 32)
_PREFIX_HASHES: BoundedCache[str, int] = BoundedCache()


def java_string_hash_by_prefix(s: str) -> int:
    """``java_string_hash(s)``, remembering the hash of all but the last 12 characters of ``s``.

    Index keys share long prefixes: ``topic#`` then a UNIQ_KEY whose first 20 hex digits are the producer's
    address, pid and class-loader hash (MessageClientIDSetter), or a business key such as ``ORDER-00000042``.
    The polynomial splits at any point: ``hash(p + q) = hash(p) * 31**len(q) + hash(q)`` (mod 2**32), so only the
    last 12 characters are hashed when the prefix was seen before. Same value as ``java_string_hash``.

    Java: java.lang.String#hashCode (the memo is a Python speed aid)
    """
    if not SHARED_SUFFIX < len(s) <= len(_POWERS_OF_31) or not s.isascii():
        return java_string_hash(s)  # short, long, or non-ASCII (whose suffix may hold more code units)
    prefix = s[:-SHARED_SUFFIX]
    shifted = _PREFIX_HASHES.get(prefix)  # hash(prefix) * 31**12, the prefix's share of the whole hash
    if shifted is None:
        shifted = _PREFIX_HASHES.put(prefix, _unsigned_hash(prefix) * _POWER_OF_SUFFIX)
    # The suffix's polynomial (_ascii_sum, inlined): its last 12 bytes, reversed, against 31**0, 31**1, ...
    h = (shifted + int(sum(map(mul, s.encode("ascii")[: -SHARED_SUFFIX - 1 : -1], _POWERS_OF_31)))) & _MASK32
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

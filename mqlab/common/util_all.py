"""Small byte, name and time helpers used all over RocketMQ.

Java: org.apache.rocketmq.common.UtilAll (rocketmq-all-4.9.3)
Left out: disk usage (the runtime reports it), process and network lookups (the runtime supplies host identity).
"""

from __future__ import annotations

import unicodedata
import zlib
from datetime import datetime, timedelta, tzinfo

from zlib_ng.zlib_ng import crc32 as _crc32

# Characters ``Character.isWhitespace`` accepts besides the Unicode space separators (Zs, Zl, Zp), and the
# no-break spaces it refuses. Python's ``str.isspace`` differs on both sides (it accepts U+00A0 and U+0085).
_JAVA_EXTRA_WHITESPACE = frozenset("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f")
_JAVA_NO_BREAK_SPACES = frozenset("\u00a0\u2007\u202f")


def crc32(data: bytes | None) -> int:
    """CRC-32 (IEEE, as ``java.util.zip.CRC32``) with the top bit cleared, so it fits a positive Java int.

    Java: UtilAll#crc32. ``java.util.zip.CRC32`` is a CPU intrinsic in the JVM (carry-less multiplication);
    zlib-ng's ``crc32`` is its counterpart here, the same CRC as ``zlib.crc32`` at several times its speed.
    """
    if data is None:
        return 0
    return _crc32(data) & 0x7FFFFFFF


def bytes2string(data: bytes) -> str:
    """Upper-case hex, two characters per byte.

    Java: UtilAll#bytes2string
    """
    return data.hex().upper()


def string2bytes(hex_string: str | None) -> bytes | None:
    """Inverse of ``bytes2string``; ``None`` for ``None`` or ``""`` as in Java.

    Java: UtilAll#string2bytes
    """
    if not hex_string:
        return None
    return bytes.fromhex(hex_string.upper())


def offset2file_name(offset: int) -> str:
    """A store file's name: its start offset as 20 zero-padded decimal digits.

    Java: UtilAll#offset2FileName
    """
    if offset < 0:
        raise ValueError(f"a file offset cannot be negative: {offset}")
    return f"{offset:020d}"


def time_millis_to_human_string(millis: int, tz: tzinfo) -> str:
    """``yyyyMMddHHmmssSSS`` in the given time zone (Java uses the JVM's default zone; the runtime supplies one).

    Java: UtilAll#timeMillisToHumanString
    """
    moment = datetime.fromtimestamp(millis / 1000, tz)
    return moment.strftime("%Y%m%d%H%M%S") + f"{millis % 1000:03d}"


def time_millis_to_human_string3(millis: int, tz: tzinfo) -> str:
    """``yyyyMMddHHmmss`` in the given time zone.

    Java: UtilAll#timeMillisToHumanString3
    """
    return datetime.fromtimestamp(millis / 1000, tz).strftime("%Y%m%d%H%M%S")


def parse_date_yyyymmddhhmmss(text: str | None, tz: tzinfo) -> int | None:
    """``yyyyMMddHHmmss`` in ``tz`` → epoch ms, read leniently as Java's ``SimpleDateFormat`` does; None if unreadable.

    Java: UtilAll#parseDate(date, YYYYMMDDHHMMSS) (a lenient SimpleDateFormat in the JVM's time zone). The six
    fields are read as 4, 2, 2, 2, 2 and 2 digits; what follows them is ignored (``DateFormat#parse`` need not use
    the whole text); out-of-range values roll over (``20240230120000`` is 1 March 2024 12:00, month 13 is January
    of the next year, day 00 the last day of the month before, hour 24 the next day).
    """
    if text is None or len(text) < 14 or not (text[:14].isascii() and text[:14].isdigit()):
        return None
    year, month, day = int(text[0:4]), int(text[4:6]), int(text[6:8])
    hour, minute, second = int(text[8:10]), int(text[10:12]), int(text[12:14])
    year, month_index = divmod(year * 12 + month - 1, 12)
    if year < 1:
        return None  # before the Gregorian year 1: Java would read it as an era BC date; no consumer means that
    moment = datetime(year, month_index + 1, 1, tzinfo=tz) + timedelta(
        days=day - 1, hours=hour, minutes=minute, seconds=second
    )
    return int(moment.timestamp() * 1000)


def is_it_time_to_do(when: str, hour: int) -> bool:
    """Whether ``hour`` (0-23, local) is one of the ``;``-separated hours in ``when`` (e.g. ``deleteWhen="04"``).

    Java: UtilAll#isItTimeToDo (the current hour is passed in instead of read from the clock)

    Raises:
        ValueError: an entry before the matching one is not a number (Java's ``Integer.parseInt`` throws too, which
            aborts the cleaning pass that asked).
    """
    for part in when.split(";"):
        try:
            value = int(part)
        except ValueError as exc:
            raise ValueError(f"deleteWhen entry {part!r} of {when!r} is not an hour") from exc
        if value == hour:
            return True
    return False


def compress(data: bytes, level: int) -> bytes:
    """Zlib-format deflate, as ``DeflaterOutputStream(new Deflater(level))``.

    Java: UtilAll#compress
    """
    return zlib.compress(data, level)


def uncompress(data: bytes) -> bytes:
    """Inflate a zlib stream, as ``InflaterInputStream``.

    Java: UtilAll#uncompress
    """
    return zlib.decompress(data)


def _java_is_whitespace(ch: str) -> bool:
    """``Character.isWhitespace`` for one character."""
    if ch in _JAVA_EXTRA_WHITESPACE:
        return True
    return unicodedata.category(ch) in ("Zs", "Zl", "Zp") and ch not in _JAVA_NO_BREAK_SPACES


def is_blank(s: str | None) -> bool:
    """``None``, empty, or whitespace only, by Java's ``Character.isWhitespace`` (so U+00A0 is not blank).

    Java: UtilAll#isBlank
    """
    return s is None or all(_java_is_whitespace(ch) for ch in s)


def ip_to_ipv4_str(ip: bytes) -> str | None:
    """Dotted IPv4 text of 4 raw bytes (``None`` for any other length).

    Java: UtilAll#ipToIPv4Str
    """
    if len(ip) != 4:
        return None
    return ".".join(str(b) for b in ip)


def ip_to_ipv6_str(ip: bytes) -> str | None:
    """Full IPv6 text of 16 raw bytes: eight groups of four lower-case hex digits, zeros kept, no ``::``.

    Java: UtilAll#ipToIPv6Str (each byte is written as two hex digits, so ``fe80::1`` reads
    ``fe80:0000:0000:0000:0000:0000:0000:0001``)
    """
    if len(ip) != 16:
        return None
    return ":".join(f"{ip[i]:02x}{ip[i + 1]:02x}" for i in range(0, 16, 2))


def get_disk_partition_space_used_percent(total: int, free: int, usable: int) -> float:
    """Used fraction (0..1) of a partition, rounded up to 0.01; -1 when the size is unknown.

    ``used = total - free``; the ratio is ``used / (used + usable)`` so blocks reserved for root count as used.

    Java: UtilAll#getDiskPartitionSpaceUsedPercent (4.9.3; the space figures come from the runtime)
    """
    if total <= 0:
        return -1.0
    used = total - free
    entire = used + usable
    if entire <= 0:
        return -1.0
    percent = used * 100 // entire + (1 if used * 100 % entire else 0)
    return percent / 100.0

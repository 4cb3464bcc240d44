"""Small byte, name and time helpers used all over RocketMQ.

Java: org.apache.rocketmq.common.UtilAll (rocketmq-all-4.9.3)
Left out: disk usage (the runtime reports it), process and network lookups (the runtime supplies host identity).
"""

from __future__ import annotations

import zlib
from datetime import datetime, tzinfo


def crc32(data: bytes | None) -> int:
    """CRC-32 (IEEE, as ``java.util.zip.CRC32``) with the top bit cleared, so it fits a positive Java int.

    Java: UtilAll#crc32
    """
    if data is None:
        return 0
    return zlib.crc32(data) & 0x7FFFFFFF


def bytes2string(data: bytes) -> str:
    """Upper-case hex, two characters per byte.

    Java: UtilAll#bytes2string
    """
    return data.hex().upper()


def string2bytes(hex_string: str | None) -> bytes | None:
    """Inverse of :func:`bytes2string`; ``None`` for ``None`` or ``""`` as in Java.

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


def is_it_time_to_do(when: str, hour: int) -> bool:
    """Whether ``hour`` (0-23, local) is one of the ``;``-separated hours in ``when`` (e.g. ``deleteWhen="04"``).

    Java: UtilAll#isItTimeToDo (the current hour is passed in instead of read from the clock)
    """
    for part in when.split(";"):
        try:
            if int(part) == hour:
                return True
        except ValueError:
            continue  # Java also ignores entries that are not numbers
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


def is_blank(s: str | None) -> bool:
    """``None``, empty, or whitespace only.

    Java: UtilAll#isBlank
    """
    return s is None or s.strip() == ""


def ip_to_ipv4_str(ip: bytes) -> str | None:
    """Dotted IPv4 text of 4 raw bytes (``None`` for any other length).

    Java: UtilAll#ipToIPv4Str
    """
    if len(ip) != 4:
        return None
    return ".".join(str(b) for b in ip)


def ip_to_ipv6_str(ip: bytes) -> str | None:
    """Full, uncompressed IPv6 text of 16 raw bytes, lower-case groups without leading zeros trimmed away.

    Java: UtilAll#ipToIPv6Str (eight ``%x`` groups joined by ``:``; no ``::`` compression)
    """
    if len(ip) != 16:
        return None
    return ":".join(f"{int.from_bytes(ip[i : i + 2], 'big'):x}" for i in range(0, 16, 2))

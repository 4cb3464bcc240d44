"""The default hash of the ring: the first four bytes of an MD5 digest, read as an unsigned 32-bit number.

Java: org.apache.rocketmq.common.consistenthash.ConsistentHashRouter$MD5Hash (rocketmq-all-4.9.3; a private
nested class of ConsistentHashRouter, promoted here so tests can call it)

Java digests ``key.getBytes()``, i.e. the key in the JVM's default charset. mqlab fixes that charset to UTF-8, the
default of every Linux JVM with a UTF-8 locale and of every JDK from 18 on. A JVM started with another default
charset (``-Dfile.encoding=ISO-8859-1``, a POSIX locale on JDK 17) hashes non-ASCII consumer ids and topic names
differently, so the members of one consumer group could disagree about the ring; mqlab does not model that.
"""

from __future__ import annotations

import hashlib


def java_utf8_bytes(key: str) -> bytes:
    """``key.getBytes(UTF_8)`` as Java computes it, lone surrogates included.

    A Python string may hold surrogate code points that Java would read as one UTF-16 pair (then they encode as one
    4-byte character) or as a lone surrogate (then Java's encoder writes ``?``). Re-reading the UTF-16 form joins
    the pairs; encoding with ``replace`` turns what is left alone into ``?``, as Java does.
    """
    if key.isascii():
        return key.encode("ascii")
    joined = key.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")
    return joined.encode("utf-8", "replace")


class MD5Hash:
    """``MD5(key)[0:4]`` as a big-endian unsigned int: a ring position in ``0 .. 2**32 - 1``."""

    def hash(self, key: str) -> int:
        """The ring position of ``key``.

        Java: ConsistentHashRouter$MD5Hash#hash
        """
        # Java ORs each digest byte masked with 0xFF into a long after a left shift of 8, four times: the sign of
        # the bytes never leaks, so the value is never negative and never above 2**32 - 1.
        return int.from_bytes(hashlib.md5(java_utf8_bytes(key)).digest()[:4], "big")

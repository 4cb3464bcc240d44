import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.common.consistenthash.md5_hash import MD5Hash, java_utf8_bytes

# ConsistentHashRouter$MD5Hash#hash of the compiled 4.9.3 class (JDK 17, file.encoding=UTF-8).
JAVA_HASHES = [
    ("", 3558706393),
    ("a", 214005177),
    ("CID-0-0", 1900518137),
    ("10.0.0.1@1001-0", 1664424904),
    ("MessageQueue [topic=TopicTest, brokerName=hz@broker-a, queueId=0]", 2021252174),
    ("消费者", 76758481),
    ("\U0001f600", 704834243),
    ("\ud83d\ude00", 704834243),  # the same character written as a UTF-16 pair: Java sees one string
    ("\ud800", 3510991730),  # a lone surrogate: Java's encoder writes '?'
    ("x\udc00y", 4261721551),
    ("\udc00\ud800", 3926129848),  # low before high is no pair: two '?'
    ("é", 1725812119),
]


@pytest.mark.spec("ALLOC-9")
@pytest.mark.parametrize(("key", "expected"), JAVA_HASHES)
def test_hash_like_java(key, expected):
    assert MD5Hash().hash(key) == expected


@pytest.mark.spec("ALLOC-9")
def test_lone_surrogates_become_question_marks():
    assert java_utf8_bytes("\ud800") == b"?"
    assert MD5Hash().hash("\ud800") == MD5Hash().hash("?")
    assert java_utf8_bytes("\ud83d\ude00") == "\U0001f600".encode()


@pytest.mark.spec("ALLOC-9")
@given(st.text())
def test_first_four_digest_bytes_unsigned(key):
    h = MD5Hash().hash(key)
    assert 0 <= h < 2**32
    assert h == int.from_bytes(hashlib.md5(key.encode("utf-8")).digest()[:4], "big")  # text() has no surrogates

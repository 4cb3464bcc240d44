import pytest
from hypothesis import given

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from tests.strategies import hosts


def test_ipv4_and_ipv6_bytes_and_text():
    v4 = InetSocketAddress("192.168.1.10", 10911)
    assert not v4.is_ipv6
    assert v4.address_bytes == bytes([192, 168, 1, 10])
    assert str(v4) == "192.168.1.10:10911"
    v6 = InetSocketAddress("FE80:0:0::1", 10911)
    assert v6.is_ipv6
    assert v6.host == "fe80::1"  # normalised
    assert v6.address_bytes == bytes.fromhex("FE800000000000000000000000000001")
    assert str(v6) == "[fe80::1]:10911"


def test_parse():
    assert InetSocketAddress.parse("127.0.0.1:9876") == InetSocketAddress("127.0.0.1", 9876)
    assert InetSocketAddress.parse("[::1]:10911") == InetSocketAddress("::1", 10911)
    for bad in ("127.0.0.1", "host:port", "name:1"):
        with pytest.raises(ValueError):
            InetSocketAddress.parse(bad)


def test_bad_values():
    with pytest.raises(ValueError, match="port"):
        InetSocketAddress("127.0.0.1", 65536)
    with pytest.raises(ValueError, match="IP"):
        InetSocketAddress("localhost", 1)
    with pytest.raises(ValueError, match="4 or 16"):
        InetSocketAddress.from_bytes(b"\x01\x02\x03", 1)


@given(hosts)
def test_bytes_round_trip(host):
    assert InetSocketAddress.from_bytes(host.address_bytes, host.port) == host
    assert InetSocketAddress.parse(str(host)) == host

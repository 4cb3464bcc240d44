"""An IP address and a port: the host fields of a CommitLog record and of message ids.

Java: java.net.InetSocketAddress (teaching stand-in; RocketMQ stores ``getAddress().getAddress()`` + port)
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from functools import cached_property, lru_cache


@lru_cache(maxsize=4096)
def _parse_host(host: str) -> tuple[str, bytes]:
    """The canonical text and the raw bytes of an IP address (cached: a process meets few distinct hosts)."""
    try:
        parsed = ipaddress.ip_address(host)
    except ValueError as exc:
        raise ValueError(f"not an IP address: {host!r}") from exc
    return str(parsed), parsed.packed


@lru_cache(maxsize=4096)
def _host_of_bytes(address: bytes) -> str:
    return str(ipaddress.ip_address(address))


@dataclass(frozen=True, slots=False)
class InetSocketAddress:
    """An IPv4 or IPv6 address with a port, as RocketMQ writes it: raw address bytes then a 4-byte port."""

    host: str
    port: int

    def __post_init__(self) -> None:
        host, packed = _parse_host(self.host)
        if not 0 <= self.port <= 0xFFFF:
            raise ValueError(f"port out of range 0..65535: {self.port}")
        object.__setattr__(self, "host", host)
        self.__dict__["address_bytes"] = packed  # the cached_property below, filled from the parse

    @cached_property
    def is_ipv6(self) -> bool:
        """Whether the address is IPv6 (then it takes 16 bytes in a record, else 4)."""
        return len(self.address_bytes) == 16

    @cached_property
    def address_bytes(self) -> bytes:
        """The raw address: 4 bytes (IPv4) or 16 bytes (IPv6), as ``InetAddress#getAddress``."""
        return _parse_host(self.host)[1]

    @cached_property
    def field_bytes(self) -> bytes:
        """Address bytes then the port as a 4-byte int: a record's host field and the head of a message id."""
        return self.address_bytes + self.port.to_bytes(4, "big")

    @classmethod
    def from_bytes(cls, address: bytes, port: int) -> InetSocketAddress:
        """Build from raw address bytes (4 or 16) and a port."""
        if len(address) not in (4, 16):
            raise ValueError(f"an IP address has 4 or 16 bytes, not {len(address)}")
        return cls(_host_of_bytes(bytes(address)), port)

    @classmethod
    def parse(cls, text: str) -> InetSocketAddress:
        """Parse ``"ip:port"`` or ``"[ipv6]:port"`` (the form RocketMQ uses for broker and client addresses)."""
        host, sep, port = text.rpartition(":")
        if not sep or not port.isdigit():
            raise ValueError(f"expected 'ip:port', got {text!r}")
        return cls(host.strip("[]"), int(port))

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if self.is_ipv6 else f"{self.host}:{self.port}"

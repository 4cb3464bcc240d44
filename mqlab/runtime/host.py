"""Who a node is: its IP, process id and class-loader hash (the parts of UNIQ_KEY and client ids).

Java: none (RocketMQ reads these from ``UtilAll#getIP``, ``UtilAll#getPid`` and the class loader).
"""

from __future__ import annotations

import ipaddress
import os
import random
import socket
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HostIdentity:
    """The identity a node shows: fixed in simulation, read from the machine in real runs."""

    ip: str
    pid: int
    class_loader_hash: int
    hostname: str

    @property
    def ip_bytes(self) -> bytes:
        """Raw address bytes (4 or 16)."""
        return ipaddress.ip_address(self.ip).packed

    @classmethod
    def of_this_machine(cls, rng: random.Random) -> HostIdentity:
        """This process's identity; the class-loader hash (arbitrary in Java) is drawn from ``rng``."""
        return cls(
            ip=pick_local_ip(_candidate_addresses()),
            pid=os.getpid(),
            class_loader_hash=rng.randint(-(2**31), 2**31 - 1),
            hostname=socket.gethostname(),
        )


def _candidate_addresses() -> list[str]:
    try:
        _, _, addresses = socket.gethostbyname_ex(socket.gethostname())
    except OSError:
        addresses = []
    return addresses


def pick_local_ip(addresses: list[str]) -> str:
    """Prefer the first public IPv4 address, then the first private one, as ``UtilAll#getIP`` does.

    Loopback and link-local addresses are skipped; with nothing left, ``127.0.0.1``.
    """
    private = None
    for text in addresses:
        try:
            ip = ipaddress.ip_address(text)
        except ValueError:
            continue
        if ip.version != 4 or ip.is_loopback or ip.is_link_local or ip.is_unspecified:
            continue
        if not ip.is_private:
            return text
        if private is None:
            private = text
    return private or "127.0.0.1"

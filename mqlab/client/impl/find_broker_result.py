"""The answer of a broker-address lookup for pulling or offsets: the address, and whether it is a slave.

A consumer asks ``MQClientInstance#findBrokerAddressInSubscribe`` for a broker name and an id (0, the master, unless
the last pull suggested a slave); the result says where to go and whether that broker is a slave, in which case the
pull must not carry the commit offset (only a master stores offsets).

Java: org.apache.rocketmq.client.impl.FindBrokerResult (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FindBrokerResult:
    """``broker_addr`` (``"ip:port"``), ``slave`` (its id is not 0), ``broker_version`` (from heartbeats, else 0)."""

    broker_addr: str
    slave: bool
    broker_version: int = 0

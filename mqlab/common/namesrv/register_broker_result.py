"""What a slave learns when it registers: its master's address and HA address.

Java: org.apache.rocketmq.common.namesrv.RegisterBrokerResult (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class RegisterBrokerResult:
    """Empty for masters."""

    ha_server_addr: str | None = None
    master_addr: str | None = None
    kv_table: dict[str, str] | None = None

"""Brokers and clusters as the name server knows them (GET_BROKER_CLUSTER_INFO).

Java: org.apache.rocketmq.common.protocol.body.ClusterInfo (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.common.protocol.route.broker_data import BrokerData


@dataclass(slots=True)
class ClusterInfo:
    """``broker_addr_table`` (broker name → BrokerData), ``cluster_addr_table`` (cluster → broker names)."""

    broker_addr_table: dict[str, BrokerData] = field(default_factory=dict)
    cluster_addr_table: dict[str, set[str]] = field(default_factory=dict)

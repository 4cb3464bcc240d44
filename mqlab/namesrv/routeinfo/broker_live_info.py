"""When a broker last registered, with which topic-config version, over which connection.

Java: org.apache.rocketmq.namesrv.routeinfo.BrokerLiveInfo (inner class of RouteInfoManager's file, rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqlab.common.data_version import DataVersion


@dataclass(slots=True)
class BrokerLiveInfo:
    """An entry of ``brokerLiveTable``."""

    last_update_timestamp: int
    data_version: DataVersion
    channel: Any
    ha_server_addr: str | None

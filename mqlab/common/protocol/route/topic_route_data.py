"""A topic's route: which brokers hold its queues, and their addresses.

Java: org.apache.rocketmq.common.protocol.route.TopicRouteData (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlab.common.protocol.route.broker_data import BrokerData
from mqlab.common.protocol.route.queue_data import QueueData
from mqlab.remoting.protocol import remoting_serializable


@dataclass(slots=True)
class TopicRouteData:
    """The body of GET_ROUTEINFO_BY_TOPIC's response."""

    order_topic_conf: str | None = None
    queue_datas: list[QueueData] = field(default_factory=list)
    broker_datas: list[BrokerData] = field(default_factory=list)
    filter_server_table: dict[str, list[str] | None] = field(default_factory=dict)

    def encode(self) -> bytes:
        """The fastjson JSON body. Java: RemotingSerializable#encode."""
        return remoting_serializable.encode(self)

    @classmethod
    def decode(cls, body: bytes) -> TopicRouteData:
        """From a response body (fastjson's bare numeric keys accepted)."""
        data = remoting_serializable.from_json(body)
        return cls.from_json(data)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TopicRouteData:
        """From decoded JSON."""
        return cls(
            data.get("orderTopicConf"),
            [QueueData.from_json(q) for q in data.get("queueDatas") or []],
            [BrokerData.from_json(b) for b in data.get("brokerDatas") or []],
            dict(data.get("filterServerTable") or {}),
        )

    def clone_topic_route_data(self) -> TopicRouteData:
        """A deep copy. Java: TopicRouteData#cloneTopicRouteData."""
        return TopicRouteData(
            self.order_topic_conf,
            [
                QueueData(q.broker_name, q.read_queue_nums, q.write_queue_nums, q.perm, q.topic_sys_flag)
                for q in self.queue_datas
            ],
            [b.clone() for b in self.broker_datas],
            {k: list(v) if v is not None else None for k, v in self.filter_server_table.items()},
        )

"""A consumer group's settings on a broker: may it consume, how often to retry, which broker when slow.

Java: org.apache.rocketmq.common.subscription.SubscriptionGroupConfig (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqlab.common.mix_all import MASTER_ID


@dataclass(slots=True)
class SubscriptionGroupConfig:
    """Defaults as 4.9.3 (retryMaxTimes 16 is overridden by clients ≥ 3.4.9 that send their own)."""

    group_name: str | None = None
    consume_enable: bool = True
    consume_from_min_enable: bool = True
    consume_broadcast_enable: bool = True
    retry_queue_nums: int = 1
    retry_max_times: int = 16
    broker_id: int = MASTER_ID
    which_broker_when_consume_slowly: int = 1
    notify_consumer_ids_changed_enable: bool = True

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SubscriptionGroupConfig:
        """From decoded fastjson JSON."""
        default = cls()
        return cls(
            data.get("groupName"),
            bool(data.get("consumeEnable", default.consume_enable)),
            bool(data.get("consumeFromMinEnable", default.consume_from_min_enable)),
            bool(data.get("consumeBroadcastEnable", default.consume_broadcast_enable)),
            int(data.get("retryQueueNums", default.retry_queue_nums)),
            int(data.get("retryMaxTimes", default.retry_max_times)),
            int(data.get("brokerId", default.broker_id)),
            int(data.get("whichBrokerWhenConsumeSlowly", default.which_broker_when_consume_slowly)),
            bool(data.get("notifyConsumerIdsChangedEnable", default.notify_consumer_ids_changed_enable)),
        )

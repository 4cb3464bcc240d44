"""What the broker does when a consumer group changes: tell every member to rebalance now.

Java: org.apache.rocketmq.broker.client.DefaultConsumerIdsChangeListener (rocketmq-all-4.9.3)
Left out: REGISTER and UNREGISTER feed the ConsumerFilterManager (SQL92 filtering), which mqlab does not have.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.broker.client.consumer_group_event import ConsumerGroupEvent

if TYPE_CHECKING:
    from mqlab.broker.client.net.broker2_client import Broker2Client
    from mqlab.common.broker_config import BrokerConfig


class DefaultConsumerIdsChangeListener:
    """The ``ConsumerManager``'s listener (called as ``listener(event, group, payload)``).

    Args:
        broker_config: ``notifyConsumerIdsChangedEnable``.
        broker2_client: sends NOTIFY_CONSUMER_IDS_CHANGED.
    """

    def __init__(self, broker_config: BrokerConfig, broker2_client: Broker2Client):
        self.broker_config = broker_config
        self.broker2_client = broker2_client

    def __call__(self, event: ConsumerGroupEvent, group: str, *args: Any) -> int:
        """The ConsumerManager calls the listener directly; same as ``handle``."""
        return self.handle(event, group, *args)

    def handle(self, event: ConsumerGroupEvent | None, group: str, *args: Any) -> int:
        """CHANGE: notify each channel of the group (when enabled). Returns the number of notices sent.

        Java: DefaultConsumerIdsChangeListener#handle
        """
        if event is None:
            return 0
        if event is ConsumerGroupEvent.CHANGE:
            if not args:
                return 0
            channels = args[0]
            sent = 0
            if channels is not None and self.broker_config.notify_consumer_ids_changed_enable:
                for channel in channels:
                    sent += bool(self.broker2_client.notify_consumer_ids_changed(channel, group))
            return sent
        # REGISTER / UNREGISTER: Java registers SQL92 filters with the ConsumerFilterManager here.
        return 0

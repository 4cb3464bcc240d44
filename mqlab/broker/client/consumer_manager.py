"""Every consumer group with live connections; tells the group when its membership changes.

Java: org.apache.rocketmq.broker.client.ConsumerManager (rocketmq-all-4.9.3)

A heartbeat that adds a connection or changes the set of subscribed topics fires CHANGE, and the broker sends
NOTIFY_CONSUMER_IDS_CHANGED to every member so they rebalance at once instead of waiting up to 20 s.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from mqlab.broker.client.client_channel_info import ClientChannelInfo
from mqlab.broker.client.consumer_group_event import ConsumerGroupEvent
from mqlab.broker.client.consumer_group_info import ConsumerGroupInfo
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData

CHANNEL_EXPIRED_TIMEOUT = 1000 * 120

ConsumerIdsChangeListener = Callable[[ConsumerGroupEvent, str, Any], None]


class ConsumerManager:
    """Consumer groups of one broker.

    Args:
        consumer_ids_change_listener: ``(event, group, payload)``; Java: ConsumerIdsChangeListener#handle.
        now_ms: the clock.
        close_channel: closes an expired connection.
    """

    def __init__(
        self,
        consumer_ids_change_listener: ConsumerIdsChangeListener,
        now_ms: Callable[[], int],
        close_channel: Callable[[Any], None] = lambda channel: None,
    ):
        self.consumer_table: JavaHashMap[str, ConsumerGroupInfo] = JavaHashMap(initial_capacity=1024)
        self.listener = consumer_ids_change_listener
        self.now_ms = now_ms
        self.close_channel = close_channel
        self._lock = threading.RLock()

    def find_channel(self, group: str, client_id: str) -> ClientChannelInfo | None:
        """Java: ConsumerManager#findChannel."""
        info = self.consumer_table.get(group)
        return info.find_channel(client_id) if info is not None else None

    def find_subscription_data(self, group: str, topic: str) -> SubscriptionData | None:
        """Java: ConsumerManager#findSubscriptionData."""
        info = self.consumer_table.get(group)
        return info.find_subscription_data(topic) if info is not None else None

    def get_consumer_group_info(self, group: str) -> ConsumerGroupInfo | None:
        """Java: ConsumerManager#getConsumerGroupInfo."""
        return self.consumer_table.get(group)

    def register_consumer(
        self,
        group: str,
        client_channel_info: ClientChannelInfo,
        consume_type: ConsumeType,
        message_model: MessageModel,
        consume_from_where: ConsumeFromWhere,
        sub_list: Iterable[SubscriptionData],
        is_notify_consumer_ids_changed_enable: bool,
    ) -> bool:
        """A consumer's heartbeat; returns whether the group changed. Java: ConsumerManager#registerConsumer."""
        now = self.now_ms()
        with self._lock:
            info = self.consumer_table.get(group)
            if info is None:
                info = self.consumer_table[group] = ConsumerGroupInfo(
                    group, consume_type, message_model, consume_from_where
                )
            r1 = info.update_channel(client_channel_info, consume_type, message_model, consume_from_where, now)
            r2 = info.update_subscription(sub_list, now)
        if (r1 or r2) and is_notify_consumer_ids_changed_enable:
            self.listener(ConsumerGroupEvent.CHANGE, group, info.get_all_channel())
        self.listener(ConsumerGroupEvent.REGISTER, group, list(sub_list))
        return r1 or r2

    def unregister_consumer(
        self, group: str, client_channel_info: ClientChannelInfo, is_notify_consumer_ids_changed_enable: bool
    ) -> None:
        """UNREGISTER_CLIENT from a consumer. Java: ConsumerManager#unregisterConsumer."""
        with self._lock:
            info = self.consumer_table.get(group)
            if info is None:
                return
            info.unregister_channel(client_channel_info)
            if not info.channel_info_table:
                del self.consumer_table[group]
                gone = True
            else:
                gone = False
        if gone:
            self.listener(ConsumerGroupEvent.UNREGISTER, group, None)
        if is_notify_consumer_ids_changed_enable:
            self.listener(ConsumerGroupEvent.CHANGE, group, info.get_all_channel())

    def do_channel_close_event(self, remote_addr: str, channel: Any) -> None:
        """A connection closed: remove it from every group, notifying the remaining members.

        Java: ConsumerManager#doChannelCloseEvent
        """
        for group, info in list(self.consumer_table.items()):
            if info.do_channel_close_event(remote_addr, channel):
                if not info.channel_info_table:
                    with self._lock:
                        self.consumer_table.pop(group, None)
                    self.listener(ConsumerGroupEvent.UNREGISTER, group, None)
                self.listener(ConsumerGroupEvent.CHANGE, group, info.get_all_channel())

    def scan_not_active_channel(self) -> list[str]:
        """Drop connections silent for more than 120 s; returns their client ids. Java: #scanNotActiveChannel."""
        removed = []
        now = self.now_ms()
        for group, info in list(self.consumer_table.items()):
            for key, channel_info in list(info.channel_info_table.items()):
                if now - channel_info.last_update_timestamp > CHANNEL_EXPIRED_TIMEOUT:
                    self.close_channel(channel_info.channel)
                    del info.channel_info_table[key]
                    removed.append(channel_info.client_id)
            if not info.channel_info_table:
                with self._lock:
                    self.consumer_table.pop(group, None)
        return removed

    def query_topic_consume_by_who(self, topic: str) -> set[str]:
        """Groups subscribing to a topic. Java: ConsumerManager#queryTopicConsumeByWho."""
        return {group for group, info in self.consumer_table.items() if info.find_subscription_data(topic) is not None}

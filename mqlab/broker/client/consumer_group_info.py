"""One consumer group on the broker: its connections and its subscriptions.

Java: org.apache.rocketmq.broker.client.ConsumerGroupInfo (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mqlab.broker.client.client_channel_info import ClientChannelInfo
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData


class ConsumerGroupInfo:
    """Members (channel → ClientChannelInfo) and subscriptions (topic → SubscriptionData) of a group."""

    def __init__(
        self,
        group_name: str,
        consume_type: ConsumeType,
        message_model: MessageModel,
        consume_from_where: ConsumeFromWhere,
    ):
        self.group_name = group_name
        self.consume_type = consume_type
        self.message_model = message_model
        self.consume_from_where = consume_from_where
        self.subscription_table: JavaHashMap[str, SubscriptionData] = JavaHashMap()
        self.channel_info_table: dict[int, ClientChannelInfo] = {}  # keyed by id(channel): channels hash by identity
        self.last_update_timestamp = 0

    def find_channel(self, client_id: str) -> ClientChannelInfo | None:
        """The connection of a client. Java: ConsumerGroupInfo#findChannel."""
        for info in self.channel_info_table.values():
            if info.client_id == client_id:
                return info
        return None

    def get_all_channel(self) -> list[Any]:
        """Java: ConsumerGroupInfo#getAllChannel."""
        return [info.channel for info in self.channel_info_table.values()]

    def get_all_client_id(self) -> list[str]:
        """Java: ConsumerGroupInfo#getAllClientId (unordered in Java; clients sort)."""
        return [info.client_id for info in self.channel_info_table.values()]

    def unregister_channel(self, info: ClientChannelInfo) -> None:
        """Java: ConsumerGroupInfo#unregisterChannel."""
        self.channel_info_table.pop(id(info.channel), None)

    def do_channel_close_event(self, remote_addr: str, channel: Any) -> bool:
        """Drop the connection; whether it was a member. Java: ConsumerGroupInfo#doChannelCloseEvent."""
        return self.channel_info_table.pop(id(channel), None) is not None

    def update_channel(
        self,
        info_new: ClientChannelInfo,
        consume_type: ConsumeType,
        message_model: MessageModel,
        consume_from_where: ConsumeFromWhere,
        now_ms: int,
    ) -> bool:
        """Record a heartbeat; ``True`` when the connection is new to the group. Java: #updateChannel."""
        updated = False
        self.consume_type, self.message_model, self.consume_from_where = consume_type, message_model, consume_from_where
        key = id(info_new.channel)
        info_old = self.channel_info_table.get(key)
        if info_old is None:
            self.channel_info_table[key] = info_new
            updated = True
            info_old = info_new
        elif info_old.client_id != info_new.client_id:
            self.channel_info_table[key] = info_new
        self.last_update_timestamp = now_ms
        info_old.last_update_timestamp = now_ms
        return updated

    def update_subscription(self, sub_list: Iterable[SubscriptionData], now_ms: int) -> bool:
        """Take the heartbeat's subscriptions; ``True`` if a topic was added or dropped.

        A newer ``subVersion`` for a known topic replaces it without counting as a change (as in 4.9.3).

        Java: ConsumerGroupInfo#updateSubscription
        """
        subs = list(sub_list)
        updated = False
        for sub in subs:
            old = self.subscription_table.get(sub.topic or "")
            if old is None:
                self.subscription_table[sub.topic or ""] = sub
                updated = True
            elif sub.sub_version > old.sub_version:
                self.subscription_table[sub.topic or ""] = sub
        topics = {sub.topic for sub in subs}
        for topic in list(self.subscription_table):
            if topic not in topics:
                del self.subscription_table[topic]
                updated = True
        self.last_update_timestamp = now_ms
        return updated

    def find_subscription_data(self, topic: str) -> SubscriptionData | None:
        """Java: ConsumerGroupInfo#findSubscriptionData."""
        return self.subscription_table.get(topic)

    def get_subscribe_topics(self) -> list[str]:
        """Java: ConsumerGroupInfo#getSubscribeTopics."""
        return list(self.subscription_table)

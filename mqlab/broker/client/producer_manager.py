"""Producer connections per producer group (used to ask producers about transactions and for admin views).

Java: org.apache.rocketmq.broker.client.ProducerManager (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from mqlab.broker.client.client_channel_info import ClientChannelInfo
from mqlab.common.jdk.hash_map import JavaHashMap

CHANNEL_EXPIRED_TIMEOUT = 1000 * 120
GET_AVAILABLE_CHANNEL_RETRY_COUNT = 3


class ProducerManager:
    """``group_channel_table``: group → (channel → ClientChannelInfo)."""

    def __init__(self, now_ms: Callable[[], int], close_channel: Callable[[Any], None] = lambda channel: None):
        self.group_channel_table: JavaHashMap[str, dict[int, ClientChannelInfo]] = JavaHashMap()
        self.now_ms = now_ms
        self.close_channel = close_channel
        self._lock = threading.RLock()
        self._counter = 0  # Java: positiveAtomicCounter

    def register_producer(self, group: str, client_channel_info: ClientChannelInfo) -> None:
        """A producer's heartbeat. Java: ProducerManager#registerProducer."""
        with self._lock:
            channels = self.group_channel_table.get(group)
            if channels is None:
                channels = self.group_channel_table[group] = {}
            info = channels.get(id(client_channel_info.channel))
            if info is None:
                channels[id(client_channel_info.channel)] = info = client_channel_info
            info.last_update_timestamp = self.now_ms()

    def unregister_producer(self, group: str, client_channel_info: ClientChannelInfo) -> None:
        """Java: ProducerManager#unregisterProducer."""
        with self._lock:
            channels = self.group_channel_table.get(group)
            if channels is not None:
                channels.pop(id(client_channel_info.channel), None)
                if not channels:
                    del self.group_channel_table[group]

    def do_channel_close_event(self, remote_addr: str, channel: Any) -> None:
        """Java: ProducerManager#doChannelCloseEvent."""
        with self._lock:
            for channels in self.group_channel_table.values():
                channels.pop(id(channel), None)

    def scan_not_active_channel(self) -> list[str]:
        """Drop producers silent for more than 120 s. Java: ProducerManager#scanNotActiveChannel."""
        removed = []
        now = self.now_ms()
        with self._lock:
            for channels in self.group_channel_table.values():
                for key, info in list(channels.items()):
                    if now - info.last_update_timestamp > CHANNEL_EXPIRED_TIMEOUT:
                        self.close_channel(info.channel)
                        del channels[key]
                        removed.append(info.client_id)
        return removed

    def get_available_channel(self, group: str | None) -> Any | None:
        """A live connection of the group, for the broker's transaction checks.

        Round robin: start at the next counter value modulo the group's size; up to three tries take the first
        open channel; else None. (Java falls back to the last active but unwritable channel it saw; an mqlab
        connection is writable whenever it is open, so there is no such channel.)

        Java: ProducerManager#getAvailableChannel
        """
        if group is None:
            return None
        with self._lock:
            channels = self.group_channel_table.get(group)
            channel_list = [info.channel for info in channels.values()] if channels else []
        size = len(channel_list)
        if size == 0:
            return None
        self._counter = (self._counter + 1) & 0x7FFFFFFF  # Java: PositiveAtomicCounter#incrementAndGet
        index = self._counter % size
        for _ in range(GET_AVAILABLE_CHANNEL_RETRY_COUNT):
            channel = channel_list[index]
            if getattr(channel, "is_open", True):
                return channel
            index = (index + 1) % size
        return None

"""Committed consumer offsets per ``topic@group`` and queue; persisted every 5 s and at shutdown.

Java: org.apache.rocketmq.broker.offset.ConsumerOffsetManager (rocketmq-all-4.9.3)

File ``config/consumerOffset.json``: ``{"offsetTable":{"TopicTest@group":{0:12,1:7}}}`` (fastjson writes the
queue ids as bare numbers).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mqlab.broker.broker_path_config_helper import get_consumer_offset_path
from mqlab.common.config_manager import ConfigManager
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.remoting.protocol import remoting_serializable

TOPIC_GROUP_SEPARATOR = "@"


class ConsumerOffsetManager(ConfigManager):
    """``offset_table``: ``"topic@group"`` → (queue id → next offset to consume)."""

    def __init__(self, store_root: str | Path):
        self.store_root = Path(store_root)
        self.offset_table: JavaHashMap[str, JavaHashMap[int, int]] = JavaHashMap(initial_capacity=512)
        self._lock = threading.RLock()

    def commit_offset(self, client_host: str, group: str, topic: str, queue_id: int, offset: int) -> None:
        """Record a group's offset (a smaller one than before is accepted, as in Java). Java: #commitOffset."""
        key = topic + TOPIC_GROUP_SEPARATOR + group
        with self._lock:
            table = self.offset_table.get(key)
            if table is None:
                table = self.offset_table[key] = JavaHashMap(initial_capacity=32)
            table[queue_id] = offset

    def query_offset(self, group: str, topic: str, queue_id: int) -> int:
        """The committed offset, or -1. Java: ConsumerOffsetManager#queryOffset."""
        table = self.offset_table.get(topic + TOPIC_GROUP_SEPARATOR + group)
        if table is None:
            return -1
        offset = table.get(queue_id)
        return -1 if offset is None else offset

    def query_offsets(self, group: str, topic: str) -> dict[int, int] | None:
        """All queues of a group and topic. Java: ConsumerOffsetManager#queryOffset(group, topic)."""
        return self.offset_table.get(topic + TOPIC_GROUP_SEPARATOR + group)

    def which_topic_by_consumer(self, group: str) -> set[str]:
        """Topics a group has offsets for. Java: #whichTopicByConsumer."""
        return {k.split(TOPIC_GROUP_SEPARATOR)[0] for k in self.offset_table if _split(k) and _split(k)[1] == group}

    def which_group_by_topic(self, topic: str) -> set[str]:
        """Groups with offsets for a topic. Java: #whichGroupByTopic."""
        return {_split(k)[1] for k in self.offset_table if _split(k) and _split(k)[0] == topic}

    def scan_unsubscribed_topic(
        self, has_subscription: Callable[[str, str], bool], min_offset_in_queue: Callable[[str, int], int]
    ) -> list[str]:
        """Forget ``topic@group`` entries nobody subscribes to whose offsets are all at or below the queue minimum.

        Java: ConsumerOffsetManager#scanUnsubscribedTopic (and #offsetBehindMuchThanData)
        """
        removed = []
        with self._lock:
            for key, table in list(self.offset_table.items()):
                parts = _split(key)
                if not parts:
                    continue
                topic, group = parts
                behind = bool(table) and all(off <= min_offset_in_queue(topic, qid) for qid, off in table.items())
                if not has_subscription(group, topic) and behind:
                    del self.offset_table[key]
                    removed.append(key)
        return removed

    def remove_offset(self, group: str) -> None:
        """Forget every offset of a group. Java: ConsumerOffsetManager#removeOffset."""
        with self._lock:
            for key in list(self.offset_table):
                parts = _split(key)
                if parts and parts[1] == group:
                    del self.offset_table[key]

    def clone_offset(self, src_group: str, dest_group: str, topic: str) -> None:
        """Java: ConsumerOffsetManager#cloneOffset."""
        with self._lock:
            src = self.offset_table.get(topic + TOPIC_GROUP_SEPARATOR + src_group)
            if src is not None:
                self.offset_table[topic + TOPIC_GROUP_SEPARATOR + dest_group] = JavaHashMap.copy_of(src)

    # -- ConfigManager ---------------------------------------------------------------------------------------
    def config_file_path(self) -> Path:
        """``config/consumerOffset.json``."""
        return get_consumer_offset_path(self.store_root)

    def fastjson_fields(self) -> list[tuple[str, Any]]:
        """The persisted property."""
        return [("offsetTable", self.offset_table)]

    def encode(self, pretty_format: bool = False) -> str:
        """Java: ConsumerOffsetManager#encode."""
        with self._lock:
            return remoting_serializable.to_json(self, pretty=pretty_format)

    def decode(self, json_string: str) -> None:
        """Java: ConsumerOffsetManager#decode."""
        data = remoting_serializable.from_json(json_string) or {}
        with self._lock:
            for key, table in (data.get("offsetTable") or {}).items():
                self.offset_table[str(key)] = JavaHashMap({int(q): int(o) for q, o in (table or {}).items()})


def _split(key: str) -> tuple[str, str] | None:
    parts = key.split(TOPIC_GROUP_SEPARATOR)
    return (parts[0], parts[1]) if len(parts) == 2 else None

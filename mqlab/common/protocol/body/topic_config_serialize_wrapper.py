"""The broker's topic table with its data version (``topics.json`` and the REGISTER_BROKER body).

Java: org.apache.rocketmq.common.protocol.body.TopicConfigSerializeWrapper (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlab.common.data_version import DataVersion
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.topic_config import TopicConfig


@dataclass(slots=True)
class TopicConfigSerializeWrapper:
    """``topic_config_table`` (topic → TopicConfig) and ``data_version``."""

    topic_config_table: JavaHashMap[str, TopicConfig] = field(default_factory=JavaHashMap)
    data_version: DataVersion = field(default_factory=DataVersion)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> TopicConfigSerializeWrapper:
        """From decoded JSON."""
        data = data or {}
        table: JavaHashMap[str, TopicConfig] = JavaHashMap()
        for name, config in (data.get("topicConfigTable") or {}).items():
            table[str(name)] = TopicConfig.from_json(config)
        return cls(table, DataVersion.from_json(data.get("dataVersion")))

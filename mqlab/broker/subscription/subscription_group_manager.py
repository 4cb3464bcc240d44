"""Consumer groups known to the broker; unknown groups are created on first use (``autoCreateSubscriptionGroup``).

Java: org.apache.rocketmq.broker.subscription.SubscriptionGroupManager (rocketmq-all-4.9.3)

Persisted as ``config/subscriptionGroup.json`` (``{"dataVersion":...,"subscriptionGroupTable":{...}}``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqlab.broker.broker_path_config_helper import get_subscription_group_path
from mqlab.common import mix_all
from mqlab.common.config_manager import ConfigManager
from mqlab.common.data_version import DataVersion
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.subscription.subscription_group_config import SubscriptionGroupConfig
from mqlab.common.topic import topic_validator
from mqlab.remoting.protocol import remoting_serializable

if TYPE_CHECKING:
    from mqlab.common.broker_config import BrokerConfig


class SubscriptionGroupManager(ConfigManager):
    """Group table of one broker."""

    def __init__(self, broker_config: BrokerConfig, store_root: str | Path, now_ms: Callable[[], int]):
        self.broker_config = broker_config
        self.store_root = Path(store_root)
        self.now_ms = now_ms
        self.subscription_group_table: JavaHashMap[str, SubscriptionGroupConfig] = JavaHashMap(initial_capacity=1024)
        self.data_version = DataVersion(now_ms())  # Java stamps the creation time
        self._lock = threading.RLock()
        self._init()

    def _init(self) -> None:
        """The groups every broker knows (Java: SubscriptionGroupManager#init)."""
        for group in (mix_all.TOOLS_CONSUMER_GROUP, mix_all.FILTERSRV_CONSUMER_GROUP, mix_all.SELF_TEST_CONSUMER_GROUP):
            self.subscription_group_table[group] = SubscriptionGroupConfig(group)
        for group in (
            mix_all.ONS_HTTP_PROXY_GROUP,
            mix_all.CID_ONSAPI_PULL_GROUP,
            mix_all.CID_ONSAPI_PERMISSION_GROUP,
            mix_all.CID_ONSAPI_OWNER_GROUP,
        ):
            self.subscription_group_table[group] = SubscriptionGroupConfig(group, consume_broadcast_enable=True)

    def update_subscription_group_config(self, config: SubscriptionGroupConfig) -> None:
        """Add or replace a group. Java: SubscriptionGroupManager#updateSubscriptionGroupConfig."""
        with self._lock:
            self.subscription_group_table[config.group_name or ""] = config
            self.data_version.next_version(self.now_ms())
        self.persist()

    def disable_consume(self, group_name: str) -> None:
        """Java: SubscriptionGroupManager#disableConsume."""
        with self._lock:
            config = self.subscription_group_table.get(group_name)
            if config is not None:
                config.consume_enable = False
                self.data_version.next_version(self.now_ms())

    def find_subscription_group_config(self, group: str) -> SubscriptionGroupConfig | None:
        """The group's config, created with defaults when auto-creation is on (or for ``CID_RMQ_SYS_`` groups).

        Java: SubscriptionGroupManager#findSubscriptionGroupConfig
        """
        config = self.subscription_group_table.get(group)
        if config is None and topic_validator.validate_group(group) is not None:
            return None  # mqlab: never auto-create a group whose name is invalid (HARD-1)
        if config is None and (
            self.broker_config.auto_create_subscription_group or mix_all.is_sys_consumer_group(group)
        ):
            with self._lock:
                config = self.subscription_group_table.get(group)
                if config is None:
                    config = self.subscription_group_table[group] = SubscriptionGroupConfig(group)
                self.data_version.next_version(self.now_ms())
            self.persist()
        return config

    def delete_subscription_group_config(self, group: str) -> None:
        """Java: SubscriptionGroupManager#deleteSubscriptionGroupConfig."""
        with self._lock:
            removed = self.subscription_group_table.pop(group, None)
            if removed is not None:
                self.data_version.next_version(self.now_ms())
        if removed is not None:
            self.persist()

    # -- ConfigManager ---------------------------------------------------------------------------------------
    def config_file_path(self) -> Path:
        """``config/subscriptionGroup.json``."""
        return get_subscription_group_path(self.store_root)

    def fastjson_fields(self) -> list[tuple[str, Any]]:
        """The two persisted properties (fastjson serialises the manager itself in Java)."""
        return [("dataVersion", self.data_version), ("subscriptionGroupTable", self.subscription_group_table)]

    def encode(self, pretty_format: bool = False) -> str:
        """Java: SubscriptionGroupManager#encode."""
        with self._lock:
            return remoting_serializable.to_json(self, pretty=pretty_format)

    def decode(self, json_string: str) -> None:
        """Merge the file's groups. Java: SubscriptionGroupManager#decode."""
        data = remoting_serializable.from_json(json_string) or {}
        with self._lock:
            for name, config in (data.get("subscriptionGroupTable") or {}).items():
                self.subscription_group_table[str(name)] = SubscriptionGroupConfig.from_json(config)
            self.data_version.assign_new_one(DataVersion.from_json(data.get("dataVersion")))

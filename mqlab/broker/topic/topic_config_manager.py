"""The broker's topics: the built-in ones, TBW102 for auto-creation, and every topic created since.

Java: org.apache.rocketmq.broker.topic.TopicConfigManager (rocketmq-all-4.9.3)

Persisted as ``config/topics.json`` (``{"dataVersion":{...},"topicConfigTable":{...}}``). Every change bumps the
data version; creating a topic while sending triggers an immediate registration with the name servers (the
``register_broker_all`` callback).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mqlab.broker.broker_path_config_helper import get_topic_config_path
from mqlab.common.config_manager import ConfigManager
from mqlab.common.constant import perm_name
from mqlab.common.data_version import DataVersion
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.mix_all import get_reply_topic
from mqlab.common.protocol.body.topic_config_serialize_wrapper import TopicConfigSerializeWrapper
from mqlab.common.topic import topic_validator as tv
from mqlab.common.topic_config import TopicConfig
from mqlab.remoting.protocol import remoting_serializable

if TYPE_CHECKING:
    from mqlab.common.broker_config import BrokerConfig

SCHEDULE_TOPIC_QUEUE_NUM = 18
LOCK_TIMEOUT_MILLIS = 3000


class TopicConfigManager(ConfigManager):
    """Topic table of one broker.

    Args:
        broker_config: cluster/broker names, auto-creation switch, default queue count.
        store_root: the store root whose ``config/`` holds ``topics.json``.
        now_ms: the clock (data versions).
        register_broker_all: called after a topic is created while sending (Java: BrokerController#registerBrokerAll).
    """

    def __init__(
        self,
        broker_config: BrokerConfig,
        store_root: str | Path,
        now_ms: Callable[[], int],
        register_broker_all: Callable[[], None] = lambda: None,
    ):
        self.broker_config = broker_config
        self.store_root = Path(store_root)
        self.now_ms = now_ms
        self.register_broker_all = register_broker_all
        self.topic_config_table: JavaHashMap[str, TopicConfig] = JavaHashMap(initial_capacity=1024)
        self.data_version = DataVersion(now_ms())  # Java stamps the creation time
        self._lock = threading.RLock()
        self._add_builtin_topics()

    def _put_system(self, topic: str, queues: int | None = None, perm: int | None = None) -> None:
        config = TopicConfig(topic)
        tv.add_system_topic(topic)
        if queues is not None:
            config.read_queue_nums = config.write_queue_nums = queues
        if perm is not None:
            config.perm = perm
        self.topic_config_table[topic] = config

    def _add_builtin_topics(self) -> None:
        """The topics every 4.9.3 broker starts with (TopicConfigManager's constructor)."""
        bc = self.broker_config
        self._put_system(tv.RMQ_SYS_SELF_TEST_TOPIC, 1)
        if bc.auto_create_topic_enable:
            self._put_system(
                tv.AUTO_CREATE_TOPIC_KEY_TOPIC,
                bc.default_topic_queue_nums,
                perm_name.PERM_INHERIT | perm_name.PERM_READ | perm_name.PERM_WRITE,
            )
        self._put_system(tv.RMQ_SYS_BENCHMARK_TOPIC, 1024)
        rw = perm_name.PERM_READ | perm_name.PERM_WRITE
        self._put_system(bc.broker_cluster_name, None, perm_name.PERM_INHERIT | (rw if bc.cluster_topic_enable else 0))
        self._put_system(bc.broker_name, 1, perm_name.PERM_INHERIT | (rw if bc.broker_topic_enable else 0))
        self._put_system(tv.RMQ_SYS_OFFSET_MOVED_EVENT, 1)
        self._put_system(tv.RMQ_SYS_SCHEDULE_TOPIC, SCHEDULE_TOPIC_QUEUE_NUM)
        if bc.trace_topic_enable:
            self._put_system(bc.msg_trace_topic_name, 1)
        self._put_system(get_reply_topic(bc.broker_cluster_name), 1)

    # -- lookups and changes ---------------------------------------------------------------------------------
    def select_topic_config(self, topic: str) -> TopicConfig | None:
        """Java: TopicConfigManager#selectTopicConfig."""
        return self.topic_config_table.get(topic)

    def _created(self, topic: str, config: TopicConfig) -> None:
        self.topic_config_table[topic] = config
        self.data_version.next_version(self.now_ms())
        self.persist()

    def create_topic_in_send_message_method(
        self,
        topic: str,
        default_topic: str,
        remote_address: str,
        client_default_topic_queue_nums: int,
        topic_sys_flag: int,
    ) -> TopicConfig | None:
        """Create an unknown topic from an inheritable default topic (TBW102), as a send asks.

        Queues = ``min(client default, default topic's write queues)``; permission = the default's without
        INHERIT. When auto-creation is off, TBW102 loses INHERIT first, so creation fails.

        Java: TopicConfigManager#createTopicInSendMessageMethod
        """
        create_new = False
        with self._lock:
            config = self.topic_config_table.get(topic)
            if config is not None:
                return config
            default = self.topic_config_table.get(default_topic)
            if default is not None:
                if default_topic == tv.AUTO_CREATE_TOPIC_KEY_TOPIC and not self.broker_config.auto_create_topic_enable:
                    default.perm = perm_name.PERM_READ | perm_name.PERM_WRITE
                if perm_name.is_inherited(default.perm):
                    queues = max(min(client_default_topic_queue_nums, default.write_queue_nums), 0)
                    config = TopicConfig(
                        topic,
                        queues,
                        queues,
                        default.perm & ~perm_name.PERM_INHERIT,
                        default.topic_filter_type,
                        topic_sys_flag,
                    )
            if config is not None:
                self._created(topic, config)
                create_new = True
        if create_new:
            self.register_broker_all()
        return config

    def create_topic_in_send_message_back_method(
        self, topic: str, client_default_topic_queue_nums: int, perm: int, topic_sys_flag: int
    ) -> TopicConfig | None:
        """Create a retry or DLQ topic on first use. Java: TopicConfigManager#createTopicInSendMessageBackMethod.

        mqlab refuses (``None``) a name that fails ``validate_topic``; 4.9.3 creates whatever the group makes (HARD-1).
        """
        with self._lock:
            config = self.topic_config_table.get(topic)
            if config is not None:
                return config
            if tv.validate_topic(topic) is not None:
                return None
            config = TopicConfig(topic, client_default_topic_queue_nums, client_default_topic_queue_nums, perm)
            config.topic_sys_flag = topic_sys_flag
            self._created(topic, config)
        self.register_broker_all()
        return config

    def update_topic_config(self, config: TopicConfig) -> None:
        """Add or replace a topic (UPDATE_AND_CREATE_TOPIC). Java: TopicConfigManager#updateTopicConfig."""
        with self._lock:
            self.topic_config_table[config.topic_name or ""] = config
            self.data_version.next_version(self.now_ms())
        self.persist()

    def update_order_topic_config(self, order_topics: dict[str, str] | None) -> None:
        """Mark exactly the topics of the name server's ORDER_TOPIC_CONFIG list as ordered.

        Java: TopicConfigManager#updateOrderTopicConfig
        """
        if order_topics is None:
            return
        changed = False
        with self._lock:
            for name, config in self.topic_config_table.items():
                should = name in order_topics
                if config.order != should:
                    config.order = should
                    changed = True
            if changed:
                self.data_version.next_version(self.now_ms())
        if changed:
            self.persist()

    def delete_topic_config(self, topic: str) -> None:
        """Java: TopicConfigManager#deleteTopicConfig."""
        with self._lock:
            removed = self.topic_config_table.pop(topic, None)
            if removed is not None:
                self.data_version.next_version(self.now_ms())
        if removed is not None:
            self.persist()

    def is_order_topic(self, topic: str) -> bool:
        """Java: TopicConfigManager#isOrderTopic."""
        config = self.topic_config_table.get(topic)
        return config is not None and config.order

    def build_topic_config_serialize_wrapper(self) -> TopicConfigSerializeWrapper:
        """What registration sends. Java: TopicConfigManager#buildTopicConfigSerializeWrapper."""
        with self._lock:
            return TopicConfigSerializeWrapper(
                JavaHashMap.copy_of(self.topic_config_table),
                DataVersion(self.data_version.timestamp, self.data_version.counter),
            )

    # -- ConfigManager ---------------------------------------------------------------------------------------
    def config_file_path(self) -> Path:
        """``config/topics.json``. Java: TopicConfigManager#configFilePath."""
        return get_topic_config_path(self.store_root)

    def encode(self, pretty_format: bool = False) -> str:
        """``{"dataVersion":...,"topicConfigTable":...}``. Java: TopicConfigManager#encode."""
        with self._lock:
            wrapper = TopicConfigSerializeWrapper(self.topic_config_table, self.data_version)
            return remoting_serializable.to_json(wrapper, pretty=pretty_format)

    def decode(self, json_string: str) -> None:
        """Merge the file's topics into the table (built-in topics stay). Java: TopicConfigManager#decode."""
        wrapper = TopicConfigSerializeWrapper.from_json(remoting_serializable.from_json(json_string))
        with self._lock:
            self.data_version.assign_new_one(wrapper.data_version)
            for name, config in wrapper.topic_config_table.items():
                self.topic_config_table[name] = config

"""Where the broker keeps its JSON config files below the store root.

Java: org.apache.rocketmq.broker.BrokerPathConfigHelper (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from pathlib import Path


def get_topic_config_path(root_dir: str | Path) -> Path:
    """``<root>/config/topics.json``. Java: BrokerPathConfigHelper#getTopicConfigPath."""
    return Path(root_dir) / "config" / "topics.json"


def get_consumer_offset_path(root_dir: str | Path) -> Path:
    """``<root>/config/consumerOffset.json``. Java: BrokerPathConfigHelper#getConsumerOffsetPath."""
    return Path(root_dir) / "config" / "consumerOffset.json"


def get_subscription_group_path(root_dir: str | Path) -> Path:
    """``<root>/config/subscriptionGroup.json``. Java: BrokerPathConfigHelper#getSubscriptionGroupPath."""
    return Path(root_dir) / "config" / "subscriptionGroup.json"


def get_consumer_filter_path(root_dir: str | Path) -> Path:
    """``<root>/config/consumerFilter.json``. Java: BrokerPathConfigHelper#getConsumerFilterPath."""
    return Path(root_dir) / "config" / "consumerFilter.json"

"""``topicClusterList -t``: the clusters of the broker that holds the topic (the first of its route).

Java: org.apache.rocketmq.tools.command.topic.TopicClusterSubCommand (rocketmq-all-4.9.3)
mqadmin prints the clusters in HashSet order; mqlab sorts them.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


class TopicClusterSubCommand:
    """Java: TopicClusterSubCommand."""

    def command_name(self) -> str:
        """Java: TopicClusterSubCommand#commandName."""
        return "topicClusterList"

    def command_desc(self) -> str:
        """Java: TopicClusterSubCommand#commandDesc."""
        return "get cluster info for topic"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-t`` (required). Java: TopicClusterSubCommand#buildCommandlineOptions."""
        parser.add_argument("-t", "--topic", required=True, help="topic name")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> list[str]:
        """GET_BROKER_CLUSTER_INFO and the topic's route. Java: TopicClusterSubCommand#execute."""
        return sorted(admin.get_topic_cluster_list(args.topic.strip()))

    def render(self, result: list[str]) -> list[str]:
        """One cluster name per line."""
        return list(result)

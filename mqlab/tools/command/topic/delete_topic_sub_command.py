"""``deleteTopic -t -c``: delete a topic from every broker of a cluster, then from every name server.

Java: org.apache.rocketmq.tools.command.topic.DeleteTopicSubCommand (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.tools.command.command_util import fetch_master_and_slave_addr_by_cluster_name

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


def delete_topic(admin: DefaultMQAdminExt, cluster_name: str, topic: str) -> dict[str, Any]:
    """Delete the topic from every broker of the cluster, then from every name server; what was asked, as data.

    DELETE_TOPIC_IN_BROKER goes to every master *and slave* address of the cluster, DELETE_TOPIC_IN_NAMESRV to every
    name server of the admin's address list.

    Java: DeleteTopicSubCommand#deleteTopic
    """
    brokers = fetch_master_and_slave_addr_by_cluster_name(admin, cluster_name)
    admin.delete_topic_in_broker(brokers, topic)
    name_servers = [addr for addr in (admin.namesrv_addr or "").strip().split(";") if addr]
    admin.delete_topic_in_name_server(name_servers or None, topic)
    return {"topic": topic, "cluster": cluster_name, "brokers": brokers, "nameServers": name_servers}


def delete_topic_lines(result: dict[str, Any]) -> list[str]:
    """The two success lines mqadmin prints."""
    return [
        f"delete topic [{result['topic']}] from cluster [{result['cluster']}] success.",
        f"delete topic [{result['topic']}] from NameServer success.",
    ]


class DeleteTopicSubCommand:
    """Java: DeleteTopicSubCommand."""

    def command_name(self) -> str:
        """Java: DeleteTopicSubCommand#commandName."""
        return "deleteTopic"

    def command_desc(self) -> str:
        """Java: DeleteTopicSubCommand#commandDesc."""
        return "Delete topic from broker and NameServer."

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-t`` and ``-c`` (both required). Java: DeleteTopicSubCommand#buildCommandlineOptions."""
        parser.add_argument("-t", "--topic", required=True, help="topic name")
        parser.add_argument("-c", "--clusterName", required=True, help="delete topic from which cluster")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """Java: DeleteTopicSubCommand#execute."""
        return delete_topic(admin, args.clusterName.strip(), args.topic.strip())

    def render(self, result: dict[str, Any]) -> list[str]:
        """``delete topic [t] from cluster [c] success.`` and ``... from NameServer success.``."""
        return delete_topic_lines(result)

"""``deleteSubGroup -g``: delete a subscription group's settings (``-r true``: and its offsets) from brokers.

With ``-c`` the group goes from every master of the cluster, and then its retry and DLQ topics
(``%RETRY%<g>``, ``%DLQ%<g>``) are deleted from the cluster and the name servers as ``deleteTopic`` does; a failure
there is only reported, as mqadmin prints it and goes on.

Java: org.apache.rocketmq.tools.command.consumer.DeleteSubscriptionGroupCommand (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.common import mix_all
from mqlab.tools.command.command_util import fetch_master_addr_by_cluster_name
from mqlab.tools.command.consumer.update_sub_group_sub_command import java_boolean
from mqlab.tools.command.topic.delete_topic_sub_command import delete_topic, delete_topic_lines

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


class DeleteSubscriptionGroupCommand:
    """Java: DeleteSubscriptionGroupCommand."""

    def command_name(self) -> str:
        """Java: DeleteSubscriptionGroupCommand#commandName."""
        return "deleteSubGroup"

    def command_desc(self) -> str:
        """Java: DeleteSubscriptionGroupCommand#commandDesc."""
        return "Delete subscription group from broker."

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-b`` or ``-c``, ``-g``, ``-r``. Java: DeleteSubscriptionGroupCommand#buildCommandlineOptions."""
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument("-b", "--brokerAddr", help="delete subscription group from which broker")
        where.add_argument("-c", "--clusterName", help="delete subscription group from which cluster")
        parser.add_argument("-g", "--groupName", required=True, help="subscription group name")
        parser.add_argument("-r", "--removeOffset", default="false", help="remove offset (default false)")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """DELETE_SUBSCRIPTIONGROUP per broker. Java: DeleteSubscriptionGroupCommand#execute."""
        group = args.groupName.strip()
        remove_offset = java_boolean(args.removeOffset)
        if args.brokerAddr:
            addr = args.brokerAddr.strip()
            admin.delete_subscription_group(addr, group, remove_offset)
            return {"group": group, "removeOffset": remove_offset, "brokers": [addr], "cluster": None, "topics": []}
        cluster = args.clusterName.strip()
        masters = fetch_master_addr_by_cluster_name(admin, cluster)
        for master in masters:
            admin.delete_subscription_group(master, group, remove_offset)
        topics: list[dict[str, Any]] = []
        for topic in (mix_all.get_retry_topic(group), mix_all.get_dlq_topic(group)):
            try:
                topics.append(delete_topic(admin, cluster, topic))
            except Exception as exc:  # as mqadmin: printed, the command still succeeds
                topics.append({"topic": topic, "cluster": cluster, "error": f"{type(exc).__name__}: {exc}"})
                break
        return {"group": group, "removeOffset": remove_offset, "brokers": masters, "cluster": cluster, "topics": topics}

    def render(self, result: dict[str, Any]) -> list[str]:
        """One success line per broker; with ``-c`` then the topic deletions' lines."""
        group, cluster = result["group"], result["cluster"]
        if cluster is None:
            return [f"delete subscription group [{group}] from broker [{result['brokers'][0]}] success."]
        lines = [
            f"delete subscription group [{group}] from broker [{addr}] in cluster [{cluster}] success."
            for addr in result["brokers"]
        ]
        for topic in result["topics"]:
            if "error" in topic:
                lines.append(f"delete topic [{topic['topic']}] failed: {topic['error']}")
            else:
                lines += delete_topic_lines(topic)
        return lines

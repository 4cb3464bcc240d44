"""``topicList``: every topic the name server knows, one per line; with ``-c`` its cluster and consumer groups.

With ``-c`` retry and DLQ topics are skipped; each other topic gets its cluster (the cluster of the first broker of
its route) and one row per group consuming it (QUERY_TOPIC_CONSUME_BY_WHO to the first broker of the route: the
groups subscribed there and those with offsets for it), or one row with an empty group. A topic whose route or
groups cannot be read still gets a row with an empty cluster and group, as in Java.

Java: org.apache.rocketmq.tools.command.topic.TopicListSubCommand (rocketmq-all-4.9.3)
Topics and groups are printed sorted (Java: HashSet order).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.common import mix_all
from mqlab.tools.command.command_util import front_string_at_least

if TYPE_CHECKING:
    from mqlab.common.protocol.body.cluster_info import ClusterInfo
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


class TopicListSubCommand:
    """Java: TopicListSubCommand."""

    def command_name(self) -> str:
        """Java: TopicListSubCommand#commandName."""
        return "topicList"

    def command_desc(self) -> str:
        """Java: TopicListSubCommand#commandDesc."""
        return "Fetch all topic list from name server"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-c``. Java: TopicListSubCommand#buildCommandlineOptions."""
        parser.add_argument("-c", "--clusterModel", action="store_true", help="clusterModel")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> Any:
        """The topic names, sorted; with ``-c`` a row (cluster, topic, group) per consumer group.

        Java: TopicListSubCommand#execute
        """
        if not getattr(args, "clusterModel", False):
            return sorted(admin.fetch_all_topic_list().topic_list)
        cluster_info = admin.examine_broker_cluster_info()
        rows = []
        for topic in sorted(admin.fetch_all_topic_list().topic_list):
            if topic.startswith((mix_all.RETRY_GROUP_TOPIC_PREFIX, mix_all.DLQ_GROUP_TOPIC_PREFIX)):
                continue
            cluster_name, groups = "", []
            try:  # Java swallows the failure and prints the topic with what it has
                cluster_name = self.find_topic_belong_to_which_cluster(topic, cluster_info, admin) or ""
                group_list = admin.query_topic_consume_by_who(topic)
                groups = sorted(group_list.group_list) if group_list is not None else []
            except Exception:
                pass
            rows.extend({"cluster": cluster_name, "topic": topic, "group": group} for group in groups or [""])
        return rows

    @staticmethod
    def find_topic_belong_to_which_cluster(
        topic: str, cluster_info: ClusterInfo, admin: DefaultMQAdminExt
    ) -> str | None:
        """The cluster of the first broker of the topic's route.

        Java: TopicListSubCommand#findTopicBelongToWhichCluster
        """
        broker_name = admin.examine_topic_route_info(topic).broker_datas[0].broker_name
        for cluster_name in sorted(cluster_info.cluster_addr_table):
            if broker_name in cluster_info.cluster_addr_table[cluster_name]:
                return cluster_name
        return None

    def render(self, result: list[Any]) -> list[str]:
        """One topic per line; with ``-c`` mqadmin's three columns (its header is narrower than its rows)."""
        if not result or isinstance(result[0], str):
            return list(result)
        lines = [f"{'#Cluster Name':<20}  {'#Topic':<48}  #Consumer Group"]
        for row in result:
            cluster = front_string_at_least(row["cluster"], 20)
            lines.append(f"{cluster:<20}  {front_string_at_least(row['topic'], 64):<64}  {row['group'][:64]}")
        return lines

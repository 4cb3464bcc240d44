"""``topicList``: every topic the name server knows, one per line.

Java: org.apache.rocketmq.tools.command.topic.TopicListSubCommand (rocketmq-all-4.9.3)
Left out: ``-c`` (cluster and consumer groups of each topic: it needs QUERY_TOPIC_CONSUME_BY_WHO, which mqlab's client
does not send). Topics are printed sorted (Java: HashSet order).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
        """No options of its own. Java: TopicListSubCommand#buildCommandlineOptions."""

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> list[str]:
        """The topic names, sorted. Java: TopicListSubCommand#execute."""
        return sorted(admin.fetch_all_topic_list().topic_list)

    def render(self, result: list[str]) -> list[str]:
        """One topic per line, as mqadmin."""
        return list(result)

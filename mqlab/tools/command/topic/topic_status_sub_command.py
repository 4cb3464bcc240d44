"""``topicStatus``: each queue of a topic with its min and max offset and the store time of its last message.

Java: org.apache.rocketmq.tools.command.topic.TopicStatusSubCommand (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.tools.command.command_util import time_millis_to_human_string2

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

_FORMAT = "{:<32}  {:<4}  {:<20}  {:<20}    {}"


class TopicStatusSubCommand:
    """Java: TopicStatusSubCommand."""

    def command_name(self) -> str:
        """Java: TopicStatusSubCommand#commandName."""
        return "topicStatus"

    def command_desc(self) -> str:
        """Java: TopicStatusSubCommand#commandDesc."""
        return "Examine topic Status info"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-t`` topic. Java: TopicStatusSubCommand#buildCommandlineOptions."""
        parser.add_argument("-t", "--topic", required=True, help="topic name")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> list[dict[str, Any]]:
        """The queues in MessageQueue order. Java: TopicStatusSubCommand#execute."""
        table = admin.examine_topic_stats(args.topic.strip()).offset_table
        rows = []
        for mq in sorted(table):
            offset = table[mq]
            stamp = offset.last_update_timestamp
            rows.append(
                {
                    "brokerName": mq.broker_name,
                    "queueId": mq.queue_id,
                    "minOffset": offset.min_offset,
                    "maxOffset": offset.max_offset,
                    "lastUpdateTimestamp": stamp,
                    # Java prints nothing for a queue that never stored a message
                    "lastUpdated": time_millis_to_human_string2(stamp, admin.runtime.tz) if stamp > 0 else "",
                }
            )
        return rows

    def render(self, result: list[dict[str, Any]]) -> list[str]:
        """The table with mqadmin's columns."""
        lines = [_FORMAT.format("#Broker Name", "#QID", "#Min Offset", "#Max Offset", "#Last Updated")]
        for row in result:
            lines.append(
                _FORMAT.format(
                    row["brokerName"], row["queueId"], row["minOffset"], row["maxOffset"], row["lastUpdated"]
                ).rstrip()
            )
        return lines

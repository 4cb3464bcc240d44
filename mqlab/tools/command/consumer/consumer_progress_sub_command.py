"""``consumerProgress -g``: for each queue a group consumes, the broker's max offset, the group's offset and the lag.

Java: org.apache.rocketmq.tools.command.consumer.ConsumerProgressSubCommand (rocketmq-all-4.9.3)
Left out: running without ``-g`` (the summary of every group: it needs GET_CONSUMER_CONNECTION_LIST, which mqlab's
client does not send), so ``-g`` is required; ``-s`` (client IP per queue, from each consumer's running info).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.tools.command.command_util import format_date

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

_FORMAT = "{:<64}  {:<32}  {:<4}  {:<20}  {:<20}  {:<20}  {}"


class ConsumerProgressSubCommand:
    """Java: ConsumerProgressSubCommand."""

    def command_name(self) -> str:
        """Java: ConsumerProgressSubCommand#commandName."""
        return "consumerProgress"

    def command_desc(self) -> str:
        """Java: ConsumerProgressSubCommand#commandDesc."""
        return "Query consumers's progress, speed"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-g`` group. Java: ConsumerProgressSubCommand#buildCommandlineOptions."""
        parser.add_argument("-g", "--groupName", required=True, help="consumer group name")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """GET_CONSUME_STATS from the group's brokers; diff = broker offset - consumer offset per queue.

        Java: ConsumerProgressSubCommand#execute (with ``-g``)
        """
        group = args.groupName.strip()
        stats = admin.examine_consume_stats(group)
        queues = []
        for mq in sorted(stats.offset_table):
            wrapper = stats.offset_table[mq]
            last = wrapper.last_timestamp
            queues.append(
                {
                    "topic": mq.topic,
                    "brokerName": mq.broker_name,
                    "queueId": mq.queue_id,
                    "brokerOffset": wrapper.broker_offset,
                    "consumerOffset": wrapper.consumer_offset,
                    "diff": wrapper.broker_offset - wrapper.consumer_offset,
                    "lastTimestamp": last,
                    "lastTime": "N/A" if last == 0 else format_date(last, admin.runtime.tz),
                }
            )
        return {
            "group": group,
            "queues": queues,
            "consumeTps": stats.consume_tps,
            "diffTotal": sum(q["diff"] for q in queues),
        }

    def render(self, result: dict[str, Any]) -> list[str]:
        """The table with mqadmin's columns, then the TPS and the total lag."""
        header = ("#Topic", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Diff", "#LastTime")
        lines = [_FORMAT.format(*header)]
        for q in result["queues"]:
            lines.append(
                _FORMAT.format(
                    q["topic"],
                    q["brokerName"],
                    q["queueId"],
                    q["brokerOffset"],
                    q["consumerOffset"],
                    q["diff"],
                    q["lastTime"],
                )
            )
        lines += ["", f"Consume TPS: {result['consumeTps']:.2f}", f"Diff Total: {result['diffTotal']}"]
        return lines

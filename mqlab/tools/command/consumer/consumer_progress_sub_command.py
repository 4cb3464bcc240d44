"""``consumerProgress``: the lag of every consumer group, or with ``-g`` the lag of one group queue by queue.

With ``-g``: for each queue the group consumes, the broker's max offset, the group's offset and the difference.
Without it: one row per group the name server knows a retry topic ``%RETRY%<group>`` for, with its online members
(GET_CONSUMER_CONNECTION_LIST) and its total lag (GET_CONSUME_STATS); a group whose answers fail is still listed,
as ``OFFLINE`` and/or with a lag of 0, as mqadmin does.

Java: org.apache.rocketmq.tools.command.consumer.ConsumerProgressSubCommand (rocketmq-all-4.9.3)
Left out: ``-s`` (client IP per queue, from each consumer's running info).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.common import mix_all
from mqlab.tools.command.command_util import format_date, front_string_at_least
from mqlab.tools.command.consumer.group_consume_info import GroupConsumeInfo

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

_FORMAT = "{:<64}  {:<32}  {:<4}  {:<20}  {:<20}  {:<20}  {}"
_GROUPS_FORMAT = "{:<64}  {:<6}  {:<24} {:<5}  {:<14}  {:<7}  {}"


class ConsumerProgressSubCommand:
    """Java: ConsumerProgressSubCommand."""

    def command_name(self) -> str:
        """Java: ConsumerProgressSubCommand#commandName."""
        return "consumerProgress"

    def command_desc(self) -> str:
        """Java: ConsumerProgressSubCommand#commandDesc."""
        return "Query consumers's progress, speed"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-g`` group (optional). Java: ConsumerProgressSubCommand#buildCommandlineOptions."""
        parser.add_argument("-g", "--groupName", help="consumer group name (default: every group)")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """One group queue by queue (``-g``), else every group. Java: ConsumerProgressSubCommand#execute."""
        if args.groupName is not None:
            return self.execute_group(args.groupName.strip(), admin)
        return self.execute_all_groups(admin)

    def execute_group(self, group: str, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """GET_CONSUME_STATS from the group's brokers; diff = broker offset - consumer offset per queue.

        Java: ConsumerProgressSubCommand#execute (with ``-g``)
        """
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

    def execute_all_groups(self, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """Every group with a retry topic: its members, their oldest version, type, model, TPS and total lag.

        Only reading the topic list can fail the command; a group whose consume stats or connections cannot be read
        keeps its row (Java logs a warning): no connection gives ``OFFLINE`` with empty type and model, no stats a
        TPS and lag of 0. Rows are in ``GroupConsumeInfo.sort_key`` order (mqadmin's is the topic set's).

        Java: ConsumerProgressSubCommand#execute (without ``-g``)
        """
        infos = [
            self.group_consume_info(topic[len(mix_all.RETRY_GROUP_TOPIC_PREFIX) :], admin)
            for topic in admin.fetch_all_topic_list().topic_list
            if topic.startswith(mix_all.RETRY_GROUP_TOPIC_PREFIX)
        ]
        infos.sort(key=GroupConsumeInfo.sort_key)
        return {
            "groups": [
                {
                    "group": info.group,
                    "count": info.count,
                    "version": info.version if info.count > 0 else None,
                    "versionDesc": info.version_desc() if info.count > 0 else "OFFLINE",
                    "consumeType": info.consume_type_desc(),
                    "messageModel": info.message_model_desc(),
                    "consumeTps": info.consume_tps,
                    "diffTotal": info.diff_total,
                }
                for info in infos
            ]
        }

    def group_consume_info(self, group: str, admin: DefaultMQAdminExt) -> GroupConsumeInfo:
        """One group's row; a failed request leaves its fields at their defaults (Java logs and goes on)."""
        info = GroupConsumeInfo(group)
        try:
            stats = admin.examine_consume_stats(group)
        except Exception:  # as Java: no offsets (or no answer) is a lag of 0, not a failure of the command
            stats = None
        try:
            connection = admin.examine_consumer_connection_info(group)
        except Exception:  # as Java: no member online is a row marked OFFLINE
            connection = None
        if stats is not None:
            info.consume_tps = int(stats.consume_tps)  # Java casts the double to an int
            info.diff_total = stats.compute_total_diff()
        if connection is not None:
            info.count = len(connection.connection_set)
            info.message_model = connection.message_model
            info.consume_type = connection.consume_type
            info.version = connection.compute_min_version()
        return info

    def render(self, result: dict[str, Any]) -> list[str]:
        """The table mqadmin prints: per queue then TPS and total lag (``-g``), or one row per group."""
        if "groups" in result:
            return self.render_all_groups(result)
        header = ("#Topic", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Diff", "#LastTime")
        lines = [_FORMAT.format(*header)]
        for q in result["queues"]:
            lines.append(
                _FORMAT.format(
                    front_string_at_least(q["topic"], 64),
                    front_string_at_least(q["brokerName"], 32),
                    q["queueId"],
                    q["brokerOffset"],
                    q["consumerOffset"],
                    q["diff"],
                    q["lastTime"],
                )
            )
        lines += ["", f"Consume TPS: {result['consumeTps']:.2f}", f"Diff Total: {result['diffTotal']}"]
        return lines

    def render_all_groups(self, result: dict[str, Any]) -> list[str]:
        """``#Group #Count #Version #Type #Model #TPS #Diff Total``, one row per group."""
        header = ("#Group", "#Count", "#Version", "#Type", "#Model", "#TPS", "#Diff Total")
        lines = [_GROUPS_FORMAT.format(*header)]
        for g in result["groups"]:
            lines.append(
                _GROUPS_FORMAT.format(
                    front_string_at_least(g["group"], 64),
                    g["count"],
                    g["versionDesc"],
                    g["consumeType"],
                    g["messageModel"],
                    g["consumeTps"],
                    g["diffTotal"],
                )
            )
        return lines

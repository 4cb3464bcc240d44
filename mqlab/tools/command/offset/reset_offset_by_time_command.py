"""``resetOffsetByTime -g -t -s``: move a consumer group back (or forward) to the messages stored at a time.

Every broker of the topic's route computes, per queue, the offset of the message stored nearest to the time (``-s
now``: the max offset); without ``-f true`` (the default) a group is never moved forward. The broker sends those
offsets to every online consumer of the group (RESET_CONSUMER_CLIENT_OFFSET), which drops its queues, commits the
new offsets 10 s later and pulls from them: no restart needed. The command prints the offsets the brokers computed.

When the group has no consumer online (CONSUMER_NOT_ONLINE) the command commits the offsets itself
(``ResetOffsetByTimeOldCommand``) and prints that command's table instead.

Java: org.apache.rocketmq.tools.command.offset.ResetOffsetByTimeCommand (rocketmq-all-4.9.3)
A ``-s`` that is neither ``now``, epoch ms nor ``yyyy-MM-dd#HH:mm:ss:SSS`` is refused before anything is sent (Java
fails later with a NullPointerException). Rows are sorted by broker and queue (Java: HashMap order).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.tools.command.command_util import check_timestamp_argument, front_string_at_least, timestamp_format
from mqlab.tools.command.offset.reset_offset_by_time_old_command import ResetOffsetByTimeOldCommand

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

_FORMAT = "{:<40}  {:<40}  {}"
# Java: "now" becomes the timestamp -1, which the broker reads as "each queue's max offset".
NOW = "now"


def check_reset_timestamp(value: str) -> str:
    """An argparse type: ``now``, epoch ms or ``yyyy-MM-dd#HH:mm:ss:SSS``."""
    value = value.strip()
    return NOW if value == NOW else check_timestamp_argument(value)


def _bool(value: str) -> bool:
    # Java: Boolean.valueOf, which reads anything but "true" (any case) as false
    return value.strip().lower() == "true"


class ResetOffsetByTimeCommand:
    """Java: ResetOffsetByTimeCommand."""

    def command_name(self) -> str:
        """Java: ResetOffsetByTimeCommand#commandName."""
        return "resetOffsetByTime"

    def command_desc(self) -> str:
        """Java: ResetOffsetByTimeCommand#commandDesc."""
        return "Reset consumer offset by timestamp(without client restart)."

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-g``, ``-t``, ``-s``, ``-f``, ``-c``. Java: ResetOffsetByTimeCommand#buildCommandlineOptions."""
        parser.add_argument("-g", "--group", required=True, help="set the consumer group")
        parser.add_argument("-t", "--topic", required=True, help="set the topic")
        parser.add_argument(
            "-s",
            "--timestamp",
            required=True,
            type=check_reset_timestamp,
            help="set the timestamp[now|currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]",
        )
        parser.add_argument(
            "-f", "--force", type=_bool, default=True, help="set the force rollback by timestamp switch[true|false]"
        )
        parser.add_argument("-c", "--cplus", action="store_true", help="reset c++ client offset")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """Reset through the brokers; with no consumer online, commit the offsets directly.

        Java: ResetOffsetByTimeCommand#execute
        """
        group = args.group.strip()
        topic = args.topic.strip()
        time_stamp_str = args.timestamp
        timestamp = -1 if time_stamp_str == NOW else timestamp_format(time_stamp_str, admin.runtime.tz)
        try:
            offset_table = admin.reset_offset_by_timestamp(topic, group, timestamp, args.force, args.cplus)
        except MQClientException as exc:
            if exc.response_code == ResponseCode.CONSUMER_NOT_ONLINE:
                return ResetOffsetByTimeOldCommand.reset_offset(
                    admin, group, topic, timestamp, args.force, time_stamp_str
                )
            raise
        return {
            "group": group,
            "topic": topic,
            "force": args.force,
            "timestampString": time_stamp_str,
            "timestamp": timestamp,
            "consumersOnline": True,
            "offsets": [
                {"brokerName": mq.broker_name, "queueId": mq.queue_id, "offset": offset_table[mq]}
                for mq in sorted(offset_table)
            ],
        }

    def render(self, result: dict[str, Any]) -> list[str]:
        """The lines mqadmin prints: what was asked, then broker name, queue id and offset per queue."""
        if not result["consumersOnline"]:
            return ResetOffsetByTimeOldCommand.render(result)
        lines = [
            f"rollback consumer offset by specified group[{result['group']}], topic[{result['topic']}], "
            f"force[{str(result['force']).lower()}], timestamp(string)[{result['timestampString']}], "
            f"timestamp(long)[{result['timestamp']}]",
            _FORMAT.format("#brokerName", "#queueId", "#offset"),
        ]
        for row in result["offsets"]:
            lines.append(_FORMAT.format(front_string_at_least(row["brokerName"], 32), row["queueId"], row["offset"]))
        return lines

"""``queryMsgByOffset -t -b -i -o``: the message at one queue offset, by a pull of one message.

Java: org.apache.rocketmq.tools.command.message.QueryMsgByOffsetSubCommand (rocketmq-all-4.9.3)
Java prints nothing when the pull finds no message; mqlab fails with the pull's status (exit code 1).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.client.consumer.pull_status import PullStatus
from mqlab.common.message.message_queue import MessageQueue
from mqlab.tools.command.command_util import message_detail_lines, message_to_dict
from mqlab.tools.command.sub_command_exception import SubCommandException

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


def _not_negative(value: str) -> int:
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, not {number}")
    return number


class QueryMsgByOffsetSubCommand:
    """Java: QueryMsgByOffsetSubCommand."""

    def command_name(self) -> str:
        """Java: QueryMsgByOffsetSubCommand#commandName."""
        return "queryMsgByOffset"

    def command_desc(self) -> str:
        """Java: QueryMsgByOffsetSubCommand#commandDesc."""
        return "Query Message by offset"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-t``, ``-b`` broker name, ``-i`` queue id, ``-o`` offset. Java: #buildCommandlineOptions."""
        parser.add_argument("-t", "--topic", required=True, help="topic name")
        parser.add_argument("-b", "--brokerName", required=True, help="broker name")
        parser.add_argument("-i", "--queueId", required=True, type=_not_negative, help="queue id")
        parser.add_argument("-o", "--offset", required=True, type=_not_negative, help="queue offset")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """Pull one message from the offset. Java: QueryMsgByOffsetSubCommand#execute.

        Raises:
            SubCommandException: no message at that offset (the pull's status says why).
        """
        mq = MessageQueue(args.topic.strip(), args.brokerName.strip(), args.queueId)
        result = admin.pull(mq, "*", args.offset, 1)
        if result.pull_status is not PullStatus.FOUND or not result.msg_found_list:
            raise SubCommandException(
                f"no message at {mq} offset {args.offset}: {result.pull_status.name} "
                f"(queue offsets {result.min_offset}..{result.max_offset})"
            )
        return message_to_dict(result.msg_found_list[0], admin.runtime.tz)

    def render(self, result: dict[str, Any]) -> list[str]:
        """The labelled lines of ``queryMsgById``."""
        return message_detail_lines(result)

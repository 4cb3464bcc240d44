"""``queryMsgById -i``: fetch a message by its offset message id (the store's address and CommitLog offset).

The id is decoded on the client: its first 8 bytes (IPv4) name the broker that stored the message, the last 8 its
CommitLog offset; VIEW_MESSAGE_BY_ID goes straight to that address, without the name server's help.

Java: org.apache.rocketmq.tools.command.message.QueryMsgByIdSubCommand (rocketmq-all-4.9.3)
With ``-g <group> -d <clientId>`` each message is instead pushed to that consumer (CONSUME_MESSAGE_DIRECTLY, relayed
by the broker that stored it), whose listener consumes it at once; the result's ``toString`` is printed per id
(mqadmin prints a failing id's stack trace and goes on; mqlab fails as every command does).
Left out: ``-s``/``-u`` (resend), the message track (which groups consumed it). The body is printed instead of
being written to ``/tmp/rocketmq/msgbodys``. Several ids may be given separated by commas, as in mqadmin.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.common.message import message_decoder
from mqlab.tools.command.command_util import message_detail_lines, message_to_dict

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


class QueryMsgByIdSubCommand:
    """Java: QueryMsgByIdSubCommand."""

    def command_name(self) -> str:
        """Java: QueryMsgByIdSubCommand#commandName."""
        return "queryMsgById"

    def command_desc(self) -> str:
        """Java: QueryMsgByIdSubCommand#commandDesc."""
        return "Query Message by Id"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-i`` offset message id(s), ``-g``/``-d``. Java: QueryMsgByIdSubCommand#buildCommandlineOptions."""
        parser.add_argument("-i", "--msgId", required=True, help="offset message id(s), comma separated")
        parser.add_argument("-g", "--consumerGroup", help="consumer group name")
        parser.add_argument("-d", "--clientId", help="The consumer's client id")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> list[dict[str, Any]]:
        """Decode each id first (a bad one fails before any request), then view each message.

        Java: QueryMsgByIdSubCommand#queryById
        """
        ids = [part.strip() for part in args.msgId.split(",") if part.strip()]
        for msg_id in ids:
            message_decoder.decode_message_id(msg_id)  # BadMessageIdError names the id
        if getattr(args, "consumerGroup", None) and getattr(args, "clientId", None):
            return [self.push_msg(admin, args.consumerGroup.strip(), args.clientId.strip(), i) for i in ids]
        return [message_to_dict(admin.view_message(msg_id), admin.runtime.tz) for msg_id in ids]

    @staticmethod
    def push_msg(admin: DefaultMQAdminExt, consumer_group: str, client_id: str, msg_id: str) -> dict[str, Any]:
        """CONSUME_MESSAGE_DIRECTLY of one message to one consumer. Java: QueryMsgByIdSubCommand#pushMsg."""
        result = admin.consume_message_directly(consumer_group, client_id, msg_id)
        return {
            "msgId": msg_id,
            "order": result.order,
            "autoCommit": result.auto_commit,
            "consumeResult": result.consume_result.name if result.consume_result is not None else None,
            "remark": result.remark,
            "spentTimeMills": result.spent_time_mills,
            "text": result.to_string(),
        }

    def render(self, result: list[dict[str, Any]]) -> list[str]:
        """The labelled lines of each message, a blank line between two. Java: QueryMsgByIdSubCommand#printMsg."""
        lines: list[str] = []
        for data in result:
            if "consumeResult" in data:  # -g/-d: the consumer's answer
                lines.append(data["text"])
                continue
            if lines:
                lines.append("")
            lines += message_detail_lines(data)
        return lines

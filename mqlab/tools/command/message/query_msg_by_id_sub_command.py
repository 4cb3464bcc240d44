"""``queryMsgById -i``: fetch a message by its offset message id (the store's address and CommitLog offset).

The id is decoded on the client: its first 8 bytes (IPv4) name the broker that stored the message, the last 8 its
CommitLog offset; VIEW_MESSAGE_BY_ID goes straight to that address, without the name server's help.

Java: org.apache.rocketmq.tools.command.message.QueryMsgByIdSubCommand (rocketmq-all-4.9.3)
Left out: ``-g``/``-d`` (consume directly on a client), ``-s``/``-u`` (resend), the message track (which groups
consumed it). The body is printed instead of being written to ``/tmp/rocketmq/msgbodys``. Several ids may be given
separated by commas, as in mqadmin.
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
        """``-i`` offset message id(s). Java: QueryMsgByIdSubCommand#buildCommandlineOptions."""
        parser.add_argument("-i", "--msgId", required=True, help="offset message id(s), comma separated")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> list[dict[str, Any]]:
        """Decode each id first (a bad one fails before any request), then view each message.

        Java: QueryMsgByIdSubCommand#queryById
        """
        ids = [part.strip() for part in args.msgId.split(",") if part.strip()]
        for msg_id in ids:
            message_decoder.decode_message_id(msg_id)  # BadMessageIdError names the id
        return [message_to_dict(admin.view_message(msg_id), admin.runtime.tz) for msg_id in ids]

    def render(self, result: list[dict[str, Any]]) -> list[str]:
        """The labelled lines of each message, a blank line between two. Java: QueryMsgByIdSubCommand#printMsg."""
        lines: list[str] = []
        for data in result:
            if lines:
                lines.append("")
            lines += message_detail_lines(data)
        return lines

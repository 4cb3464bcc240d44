"""``queryMsgByKey -t -k``: messages of a topic whose KEYS contain a key, found through each broker's index.

Java: org.apache.rocketmq.tools.command.message.QueryMsgByKeySubCommand (rocketmq-all-4.9.3)
As mqadmin: at most 64 messages per broker, any store time. The ``#Message ID`` column is the producer's UNIQ_KEY
(what ``MessageClientExt#getMsgId`` gives); ``--json`` adds the offset message id and the body.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.tools.command.command_util import message_to_dict

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

# Java: the arguments queryByKey passes (maxNum 64, begin 0, end Long.MAX_VALUE).
MAX_NUM = 64
END_OF_TIME = 2**63 - 1
_FORMAT = "{:<50} {:>4} {:>40}"


class QueryMsgByKeySubCommand:
    """Java: QueryMsgByKeySubCommand."""

    def command_name(self) -> str:
        """Java: QueryMsgByKeySubCommand#commandName."""
        return "queryMsgByKey"

    def command_desc(self) -> str:
        """Java: QueryMsgByKeySubCommand#commandDesc."""
        return "Query Message by Key"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-t`` topic, ``-k`` key. Java: QueryMsgByKeySubCommand#buildCommandlineOptions."""
        parser.add_argument("-t", "--topic", required=True, help="topic name")
        parser.add_argument("-k", "--msgKey", required=True, help="message key")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> list[dict[str, Any]]:
        """Java: QueryMsgByKeySubCommand#queryByKey."""
        result = admin.query_message(args.topic.strip(), args.msgKey.strip(), MAX_NUM, 0, END_OF_TIME)
        messages = [message_to_dict(msg, admin.runtime.tz) for msg in result.message_list]
        return sorted(messages, key=lambda m: (m["storeHost"], m["queueId"], m["queueOffset"]))

    def render(self, result: list[dict[str, Any]]) -> list[str]:
        """The table with mqadmin's columns."""
        lines = [_FORMAT.format("#Message ID", "#QID", "#Offset")]
        lines += [_FORMAT.format(m["msgId"], m["queueId"], m["queueOffset"]) for m in result]
        return lines

"""``printMsg -t``: every message of a topic, queue by queue, optionally only those stored between two times.

For each readable queue (in MessageQueue order) the range is the queue's min to max offset, or the offsets
SEARCH_OFFSET_BY_TIMESTAMP finds for ``-b`` / ``-e``; the range is pulled 32 messages at a time as the
``TOOLS_CONSUMER`` group (no offset is committed) until it is done or the broker has nothing more.

Java: org.apache.rocketmq.tools.command.message.PrintMessageSubCommand (rocketmq-all-4.9.3)
Each message is printed on one line with its main fields instead of Java's whole ``MessageExt#toString``; ``--json``
gives every field.
"""

from __future__ import annotations

import argparse
import codecs
from typing import TYPE_CHECKING, Any

from mqlab.client.consumer.pull_status import PullStatus
from mqlab.tools.command.command_util import check_timestamp_argument, message_to_dict, timestamp_format

if TYPE_CHECKING:
    from mqlab.common.message.message_queue import MessageQueue
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

# Java: the batch size of each pull.
PULL_BATCH_SIZE = 32


def _charset(value: str) -> str:
    try:
        return codecs.lookup(value.strip()).name
    except LookupError:
        raise argparse.ArgumentTypeError(f"unknown charset {value!r}") from None


def _bool(value: str) -> bool:
    # Java: Boolean.parseBoolean, which reads anything but "true" (any case) as false
    return value.strip().lower() == "true"


class PrintMessageSubCommand:
    """Java: PrintMessageSubCommand."""

    def command_name(self) -> str:
        """Java: PrintMessageSubCommand#commandName."""
        return "printMsg"

    def command_desc(self) -> str:
        """Java: PrintMessageSubCommand#commandDesc."""
        return "Print Message Detail"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-t``, ``-c``, ``-s``, ``-b``, ``-e``, ``-d``. Java: PrintMessageSubCommand#buildCommandlineOptions."""
        parser.add_argument("-t", "--topic", required=True, help="topic name")
        parser.add_argument("-c", "--charsetName", type=_charset, default="utf-8", help="body charset (UTF-8, GBK...)")
        parser.add_argument("-s", "--subExpression", default="*", help="subscribe expression (TagA || TagB)")
        time_help = "currentTimeMillis or yyyy-MM-dd#HH:mm:ss:SSS"
        parser.add_argument("-b", "--beginTimestamp", type=check_timestamp_argument, help=f"begin: {time_help}")
        parser.add_argument("-e", "--endTimestamp", type=check_timestamp_argument, help=f"end: {time_help}")
        parser.add_argument("-d", "--printBody", type=_bool, default=True, help="print body (true|false)")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """Java: PrintMessageSubCommand#execute."""
        topic = args.topic.strip()
        tz = admin.runtime.tz
        queues = []
        for mq in admin.fetch_subscribe_message_queues(topic):
            min_offset, max_offset = admin.min_offset(mq), admin.max_offset(mq)
            if args.beginTimestamp is not None:
                min_offset = admin.search_offset(mq, timestamp_format(args.beginTimestamp, tz))
            if args.endTimestamp is not None:
                max_offset = admin.search_offset(mq, timestamp_format(args.endTimestamp, tz))
            messages, status = self.read_queue(admin, mq, args.subExpression.strip(), min_offset, max_offset)
            rows = [message_to_dict(msg, tz, args.charsetName) for msg in messages]
            if not args.printBody:
                for row in rows:
                    row["body"] = None
            queues.append(
                {
                    "brokerName": mq.broker_name,
                    "queueId": mq.queue_id,
                    "minOffset": min_offset,
                    "maxOffset": max_offset,
                    "status": status,
                    "messages": rows,
                }
            )
        return {"topic": topic, "queues": queues}

    @staticmethod
    def read_queue(
        admin: DefaultMQAdminExt, mq: MessageQueue, sub_expression: str, min_offset: int, max_offset: int
    ) -> tuple[list[Any], str]:
        """Pull ``[min_offset, max_offset)``; the messages and the last pull status (``-`` if nothing to pull).

        Java: the READQ loop of PrintMessageSubCommand#execute (NO_NEW_MSG / OFFSET_ILLEGAL end the queue). Java
        prints the whole last batch, even the messages at or past ``max_offset``; mqlab stops at ``max_offset``, so
        ``-e`` is a real end.
        """
        messages: list[Any] = []
        status = "-"
        offset = min_offset
        while offset < max_offset:
            result = admin.pull(mq, sub_expression, offset, PULL_BATCH_SIZE)
            status = result.pull_status.name
            offset = result.next_begin_offset
            if result.pull_status is PullStatus.FOUND:
                messages.extend(m for m in result.msg_found_list or [] if m.queue_offset < max_offset)
            elif result.pull_status is not PullStatus.NO_MATCHED_MSG:
                break
        return messages, status

    def render(self, result: dict[str, Any]) -> list[str]:
        """Per queue its range, then one line per message (Java: PrintMessageSubCommand#printMessage)."""
        lines = []
        for q in result["queues"]:
            lines.append(
                f"minOffset={q['minOffset']}, maxOffset={q['maxOffset']}, MessageQueue [topic={result['topic']}, "
                f"brokerName={q['brokerName']}, queueId={q['queueId']}]"
            )
            for m in q["messages"]:
                body = "NOT PRINT BODY" if m["body"] is None else m["body"]
                lines.append(
                    f"MSGID: {m['msgId']} queueOffset={m['queueOffset']} offsetMsgId={m['offsetMsgId']} "
                    f"tags={m['tags']} keys={m['keys']} storeTime={m['storeTime']} BODY: {body}"
                )
        return lines

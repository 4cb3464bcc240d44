"""``queryMsgTraceById -i [-t]``: the trace records of one message (who sent it, who consumed it, how long it took).

The trace messages are found by key: every trace message carries the traced message ids among its KEYS, so a
QUERY_MESSAGE for the id on the trace topic (default ``RMQ_SYS_TRACE_TOPIC``, at most 64 per broker, any store time
up to now) returns them. Each body is decoded and the records whose message id is the one asked for become views.
The table: for each Pub record a header and a row (``#Type #ProducerGroup #ClientHost #SendTime #CostTimes
#Status``) then an empty line; then, per consumer group (Java HashMap order), a header and one ``Sub`` row per
SubAfter record, then an empty line. SubBefore and EndTransaction records are not printed. ClientHost is the IP of
the node that sent the trace message; times are ``yyyy-MM-dd HH:mm:ss`` in the local zone.

Java: org.apache.rocketmq.tools.command.message.QueryMsgTraceByIdSubCommand (rocketmq-all-4.9.3); mqadmin names it
``QueryMsgTraceById`` and matches command names without regard to case.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.client.trace.trace_data_encoder import java_text
from mqlab.client.trace.trace_type import TraceType
from mqlab.client.trace.trace_view import TraceView
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.topic.topic_validator import RMQ_SYS_TRACE_TOPIC
from mqlab.tools.command.command_util import format_date

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

# Java: the arguments queryTraceByMsgId passes (maxNum 64, begin 0, end = now).
MAX_NUM = 64
# Java: "%-10s %-20s %-20s %-20s %-10s %-10s%n"
_FORMAT = "{:<10} {:<20} {:<20} {:<20} {:<10} {:<10}"


def _row(*values: object) -> str:
    return _FORMAT.format(*(java_text(value) for value in values))


class QueryMsgTraceByIdSubCommand:
    """Java: QueryMsgTraceByIdSubCommand."""

    def command_name(self) -> str:
        """Java: QueryMsgTraceByIdSubCommand#commandName."""
        return "queryMsgTraceById"

    def command_desc(self) -> str:
        """Java: QueryMsgTraceByIdSubCommand#commandDesc."""
        return "query a message trace"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-i`` message id, ``-t`` trace topic. Java: QueryMsgTraceByIdSubCommand#buildCommandlineOptions."""
        parser.add_argument("-i", "--msgId", required=True, help="Message Id")
        parser.add_argument("-t", "--traceTopic", help="The name value of message trace topic")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> list[dict[str, Any]]:
        """Query the trace topic by the id, decode each trace message, keep the id's records.

        Java: QueryMsgTraceByIdSubCommand#execute and #queryTraceByMsgId

        Raises:
            MQClientException: no trace message has the id among its keys (code 208).
        """
        msg_id = args.msgId.strip()
        trace_topic = args.traceTopic.strip() if args.traceTopic is not None else RMQ_SYS_TRACE_TOPIC
        result = admin.query_message(trace_topic, msg_id, MAX_NUM, 0, admin.runtime.now_ms())
        views: list[dict[str, Any]] = []
        for message in result.message_list:
            for view in TraceView.decode_from_trace_trans_data(msg_id, message):
                data = view.to_dict()
                data["time"] = format_date(view.time_stamp, admin.runtime.tz)
                views.append(data)
        return views

    def render(self, result: list[dict[str, Any]]) -> list[str]:
        """The table mqadmin prints. Java: QueryMsgTraceByIdSubCommand#printMessageTrace."""
        lines: list[str] = []
        consumer_trace_map: JavaHashMap[Any, list[dict[str, Any]]] = JavaHashMap(initial_capacity=16)
        for view in result:
            if view["msg_type"] == TraceType.Pub.name:
                lines.append(_row("#Type", "#ProducerGroup", "#ClientHost", "#SendTime", "#CostTimes", "#Status"))
                lines.append(_row("Pub", view["group_name"], view["client_host"], view["time"],
                                  f"{view['cost_time']}ms", view["status"]))  # fmt: skip
                lines.append("")
            if view["msg_type"] == TraceType.SubAfter.name:
                consumer_trace_map.setdefault(view["group_name"], []).append(view)
        for group in consumer_trace_map:
            lines.append(_row("#Type", "#ConsumerGroup", "#ClientHost", "#ConsumerTime", "#CostTimes", "#Status"))
            for view in consumer_trace_map[group]:
                lines.append(_row("Sub", view["group_name"], view["client_host"], view["time"],
                                  f"{view['cost_time']}ms", view["status"]))  # fmt: skip
            lines.append("")
        return lines

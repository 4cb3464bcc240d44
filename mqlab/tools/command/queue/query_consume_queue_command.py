"""``queryCq -t -q -i``: read ``-c`` units (default 10) of one ConsumeQueue from unit ``-i`` (QUERY_CONSUME_QUEUE).

Each unit is the CommitLog offset and size of a message and its tags code. The broker is ``-b``, else the master of
the first broker of the topic's route; with ``-g`` the broker also reports that group's subscription to the topic.
The units come from one ConsumeQueue file: a read never continues into the next file.

Java: org.apache.rocketmq.tools.command.queue.QueryConsumeQueueCommand (rocketmq-all-4.9.3)
mqadmin prints any failure as a stack trace and still exits 0; mqlab fails as every command does (exit 1). An index
below the queue's min offset is such a failure here (the broker's remark says so); 4.9.3's client fails on the
missing body.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.common import mix_all
from mqlab.remoting.protocol import remoting_serializable
from mqlab.tools.command.sub_command_exception import SubCommandException

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

SEPARATOR = "=" * 38


class QueryConsumeQueueCommand:
    """Java: QueryConsumeQueueCommand."""

    def command_name(self) -> str:
        """Java: QueryConsumeQueueCommand#commandName."""
        return "queryCq"

    def command_desc(self) -> str:
        """Java: QueryConsumeQueueCommand#commandDesc."""
        return "Query cq command."

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-t``, ``-q``, ``-i`` (required), ``-c``, ``-b``, ``-g``. Java: #buildCommandlineOptions."""
        parser.add_argument("-t", "--topic", required=True, help="topic name")
        parser.add_argument("-q", "--queue", type=int, required=True, help="queue num, ie. 1")
        parser.add_argument("-i", "--index", type=int, required=True, help="start queue index.")
        parser.add_argument("-c", "--count", type=int, default=10, help="how many.")
        parser.add_argument("-b", "--broker", help="broker addr.")
        parser.add_argument("-g", "--consumer", help="consumer group.")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """Java: QueryConsumeQueueCommand#execute."""
        topic = args.topic.strip()
        broker = args.broker.strip() if args.broker else ""
        if not broker:
            route = admin.examine_topic_route_info(topic)
            addr = route.broker_datas[0].broker_addrs.get(mix_all.MASTER_ID) if route.broker_datas else None
            if addr is None:
                raise SubCommandException("No topic route data!")
            broker = addr
        group = args.consumer.strip() if args.consumer else None
        body = admin.query_consume_queue(broker, topic, args.queue, args.index, args.count, group)
        return {
            "broker": broker,
            "topic": topic,
            "queueId": args.queue,
            "index": args.index,
            "subscriptionData": (
                remoting_serializable.to_json(body.subscription_data, pretty=True)
                if body.subscription_data is not None
                else None
            ),
            "filterData": body.filter_data,
            "maxQueueIndex": body.max_queue_index,
            "minQueueIndex": body.min_queue_index,
            "queueData": [
                {
                    "physicOffset": unit.physic_offset,
                    "physicSize": unit.physic_size,
                    "tagsCode": unit.tags_code,
                    "text": unit.to_string(),
                }
                for unit in body.queue_data
            ],
        }

    def render(self, result: dict[str, Any]) -> list[str]:
        """Subscription and filter blocks (with ``-g``), the bounds, then ``idx: <n>`` and each unit."""
        lines: list[str] = []
        if result["subscriptionData"] is not None:
            lines += ["Subscription data: ", *result["subscriptionData"].split("\n"), SEPARATOR]
        if result["filterData"] is not None:
            lines += ["Filter data: ", result["filterData"], SEPARATOR]
        lines += ["Queue data: ", f"max: {result['maxQueueIndex']}, min: {result['minQueueIndex']}", SEPARATOR]
        for i, unit in enumerate(result["queueData"], start=result["index"]):
            lines += [f"idx: {i}", unit["text"], SEPARATOR]
        return lines

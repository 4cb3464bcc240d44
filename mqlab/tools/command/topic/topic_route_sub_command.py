"""``topicRoute``: which brokers serve a topic, with how many read/write queues and which permission.

Java: org.apache.rocketmq.tools.command.topic.TopicRouteSubCommand (rocketmq-all-4.9.3)
mqadmin prints the route as pretty JSON unless ``-l`` asks for the table; ``mqlab admin`` prints the table by default
(``-l`` is accepted and changes nothing) and the route as JSON with ``--json``.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqlab.common.protocol.route.topic_route_data import TopicRouteData
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

_FORMAT = "{:<45} {:<32} {:<50} {:<10} {:<11} {:<5}"


def route_to_dict(topic: str, route: TopicRouteData) -> dict[str, Any]:
    """A route as JSON-ready data (broker ids as string keys, since JSON keys are strings)."""
    return {
        "topic": topic,
        "orderTopicConf": route.order_topic_conf,
        "brokerDatas": [
            {
                "cluster": bd.cluster,
                "brokerName": bd.broker_name,
                "brokerAddrs": {str(k): v for k, v in sorted(bd.broker_addrs.items())},
            }
            for bd in sorted(route.broker_datas, key=lambda bd: bd.broker_name)
        ],
        "queueDatas": [
            {
                "brokerName": qd.broker_name,
                "readQueueNums": qd.read_queue_nums,
                "writeQueueNums": qd.write_queue_nums,
                "perm": qd.perm,
                "topicSysFlag": qd.topic_sys_flag,
            }
            for qd in sorted(route.queue_datas, key=lambda qd: qd.broker_name)
        ],
    }


class TopicRouteSubCommand:
    """Java: TopicRouteSubCommand."""

    def command_name(self) -> str:
        """Java: TopicRouteSubCommand#commandName."""
        return "topicRoute"

    def command_desc(self) -> str:
        """Java: TopicRouteSubCommand#commandDesc."""
        return "Examine topic route info"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-t`` topic; ``-l`` accepted for mqadmin's sake. Java: TopicRouteSubCommand#buildCommandlineOptions."""
        parser.add_argument("-t", "--topic", required=True, help="topic name")
        parser.add_argument("-l", "--list", action="store_true", help="list format (the default here)")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """Java: TopicRouteSubCommand#execute."""
        topic = args.topic.strip()
        return route_to_dict(topic, admin.examine_topic_route_info(topic))

    def render(self, result: dict[str, Any]) -> list[str]:
        """One row per broker, then the totals. Java: TopicRouteSubCommand#printData (list format)."""
        queues = {qd["brokerName"]: qd for qd in result["queueDatas"]}
        lines = [_FORMAT.format("#ClusterName", "#BrokerName", "#BrokerAddrs", "#ReadQueue", "#WriteQueue", "#Perm")]
        total_read = total_write = 0
        for bd in result["brokerDatas"]:
            qd = queues.get(bd["brokerName"], {"readQueueNums": 0, "writeQueueNums": 0, "perm": ""})
            total_read += qd["readQueueNums"]
            total_write += qd["writeQueueNums"]
            addrs = "{" + ", ".join(f"{k}={v}" for k, v in bd["brokerAddrs"].items()) + "}"
            lines.append(
                _FORMAT.format(
                    bd["cluster"], bd["brokerName"], addrs, qd["readQueueNums"], qd["writeQueueNums"], qd["perm"]
                )
            )
        lines.append("-" * 158)
        lines.append(_FORMAT.format("Total:", len(queues), "", total_read, total_write, ""))
        return lines

"""``updateTopic``: create a topic, or change its queue numbers and permission, on one broker or a whole cluster.

Java: org.apache.rocketmq.tools.command.topic.UpdateTopicSubCommand (rocketmq-all-4.9.3)
Left out: ``-o`` (order: it also writes the order configuration to the name server's KV store, which mqlab's client
cannot do), ``-u`` and ``-s`` (unit flags). ``-p`` takes only 2, 4 or 6 (Java's help names them; Java accepts any int).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.common.constant import perm_name
from mqlab.common.topic_config import TopicConfig
from mqlab.tools.command.command_util import fetch_master_addr_by_cluster_name

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

# Java: the TopicConfig the command starts from (8 read and 8 write queues, read+write).
DEFAULT_QUEUE_NUMS = 8


def _positive(value: str) -> int:
    number = int(value)
    if number <= 0:
        raise argparse.ArgumentTypeError(f"a queue number must be positive, not {number}")
    return number


class UpdateTopicSubCommand:
    """Java: UpdateTopicSubCommand."""

    def command_name(self) -> str:
        """Java: UpdateTopicSubCommand#commandName."""
        return "updateTopic"

    def command_desc(self) -> str:
        """Java: UpdateTopicSubCommand#commandDesc."""
        return "Update or create topic"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-t``, ``-b`` or ``-c``, ``-r``, ``-w``, ``-p``. Java: UpdateTopicSubCommand#buildCommandlineOptions."""
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument("-b", "--brokerAddr", help="create topic to which broker")
        where.add_argument("-c", "--clusterName", help="create topic to which cluster")
        parser.add_argument("-t", "--topic", required=True, help="topic name")
        parser.add_argument("-r", "--readQueueNums", type=_positive, default=DEFAULT_QUEUE_NUMS)
        parser.add_argument("-w", "--writeQueueNums", type=_positive, default=DEFAULT_QUEUE_NUMS)
        parser.add_argument(
            "-p", "--perm", type=int, choices=[2, 4, 6], default=6, help="permission: 2 write, 4 read, 6 both"
        )

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """Send UPDATE_AND_CREATE_TOPIC to the broker, or to every master of the cluster.

        Java: UpdateTopicSubCommand#execute
        """
        config = TopicConfig(args.topic.strip(), args.readQueueNums, args.writeQueueNums, args.perm)
        if args.brokerAddr:
            addrs = [args.brokerAddr.strip()]
        else:
            addrs = fetch_master_addr_by_cluster_name(admin, args.clusterName.strip())
        for addr in addrs:
            admin.create_and_update_topic_config(addr, config)
        return {
            "topic": config.topic_name,
            "readQueueNums": config.read_queue_nums,
            "writeQueueNums": config.write_queue_nums,
            "perm": config.perm,
            "brokers": addrs,
        }

    def render(self, result: dict[str, Any]) -> list[str]:
        """One success line per broker, then the topic config (as Java's ``TopicConfig#toString``)."""
        lines = [f"create topic to {addr} success." for addr in result["brokers"]]
        lines.append(
            f"TopicConfig [topicName={result['topic']}, readQueueNums={result['readQueueNums']}, "
            f"writeQueueNums={result['writeQueueNums']}, perm={perm_name.perm2string(result['perm'])}, "
            "topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false]"
        )
        return lines

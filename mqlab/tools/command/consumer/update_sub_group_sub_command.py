"""``updateSubGroup -g``: create or replace a subscription group's settings on a broker or every master of a cluster.

The command starts from ``consumeBroadcastEnable=false`` and ``consumeFromMinEnable=false`` (the class defaults
are true), as 4.9.3's does; each option replaces one field.

Java: org.apache.rocketmq.tools.command.consumer.UpdateSubGroupSubCommand (rocketmq-all-4.9.3)
With ``-c`` mqadmin prints a failing broker's stack trace, sleeps a second and goes on; mqlab reports it in one line.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.common.mix_all import java_to_string
from mqlab.common.subscription.subscription_group_config import SubscriptionGroupConfig
from mqlab.tools.command.command_util import fetch_master_addr_by_cluster_name

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


def java_boolean(value: str) -> bool:
    """``Boolean.parseBoolean``: true for ``true`` in any case, false for anything else."""
    return value.strip().lower() == "true"


def subscription_group_config_to_string(config: dict[str, Any]) -> str:
    """``SubscriptionGroupConfig [groupName=..., ...]``. Java: SubscriptionGroupConfig#toString."""
    order = (
        "groupName", "consumeEnable", "consumeFromMinEnable", "consumeBroadcastEnable", "retryQueueNums",
        "retryMaxTimes", "brokerId", "whichBrokerWhenConsumeSlowly", "notifyConsumerIdsChangedEnable",
    )  # fmt: skip
    return "SubscriptionGroupConfig [" + ", ".join(f"{k}={java_to_string(config[k])}" for k in order) + "]"


class UpdateSubGroupSubCommand:
    """Java: UpdateSubGroupSubCommand."""

    def command_name(self) -> str:
        """Java: UpdateSubGroupSubCommand#commandName."""
        return "updateSubGroup"

    def command_desc(self) -> str:
        """Java: UpdateSubGroupSubCommand#commandDesc."""
        return "Update or create subscription group"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-b`` or ``-c``, ``-g`` and the settings. Java: UpdateSubGroupSubCommand#buildCommandlineOptions."""
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument("-b", "--brokerAddr", help="create subscription group to which broker")
        where.add_argument("-c", "--clusterName", help="create subscription group to which cluster")
        parser.add_argument("-g", "--groupName", required=True, help="consumer group name")
        parser.add_argument("-s", "--consumeEnable", help="consume enable")
        parser.add_argument("-m", "--consumeFromMinEnable", help="from min offset")
        parser.add_argument("-d", "--consumeBroadcastEnable", help="broadcast")
        parser.add_argument("-q", "--retryQueueNums", type=int, help="retry queue nums")
        parser.add_argument("-r", "--retryMaxTimes", type=int, help="retry max times")
        parser.add_argument("-i", "--brokerId", type=int, help="consumer from which broker id")
        parser.add_argument(
            "-w", "--whichBrokerWhenConsumeSlowly", type=int, help="which broker id when consume slowly"
        )
        parser.add_argument("-a", "--notifyConsumerIdsChanged", help="notify consumerId changed")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """UPDATE_AND_CREATE_SUBSCRIPTIONGROUP to each broker. Java: UpdateSubGroupSubCommand#execute."""
        config = SubscriptionGroupConfig(
            group_name=args.groupName.strip(), consume_broadcast_enable=False, consume_from_min_enable=False
        )
        if args.consumeEnable is not None:
            config.consume_enable = java_boolean(args.consumeEnable)
        if args.consumeFromMinEnable is not None:
            config.consume_from_min_enable = java_boolean(args.consumeFromMinEnable)
        if args.consumeBroadcastEnable is not None:
            config.consume_broadcast_enable = java_boolean(args.consumeBroadcastEnable)
        if args.retryQueueNums is not None:
            config.retry_queue_nums = args.retryQueueNums
        if args.retryMaxTimes is not None:
            config.retry_max_times = args.retryMaxTimes
        if args.brokerId is not None:
            config.broker_id = args.brokerId
        if args.whichBrokerWhenConsumeSlowly is not None:
            config.which_broker_when_consume_slowly = args.whichBrokerWhenConsumeSlowly
        if args.notifyConsumerIdsChanged is not None:
            config.notify_consumer_ids_changed_enable = java_boolean(args.notifyConsumerIdsChanged)
        if args.brokerAddr:
            addrs = [args.brokerAddr.strip()]
        else:
            addrs = fetch_master_addr_by_cluster_name(admin, args.clusterName.strip())
        created: list[str] = []
        failed: dict[str, str] = {}
        for addr in addrs:
            try:
                admin.create_and_update_subscription_group_config(addr, config)
                created.append(addr)
            except Exception as exc:
                if args.brokerAddr:
                    raise
                failed[addr] = f"{type(exc).__name__}: {exc}"
        data = {
            "groupName": config.group_name,
            "consumeEnable": config.consume_enable,
            "consumeFromMinEnable": config.consume_from_min_enable,
            "consumeBroadcastEnable": config.consume_broadcast_enable,
            "retryQueueNums": config.retry_queue_nums,
            "retryMaxTimes": config.retry_max_times,
            "brokerId": config.broker_id,
            "whichBrokerWhenConsumeSlowly": config.which_broker_when_consume_slowly,
            "notifyConsumerIdsChangedEnable": config.notify_consumer_ids_changed_enable,
        }
        return {"config": data, "brokers": created, "failed": failed}

    def render(self, result: dict[str, Any]) -> list[str]:
        """Per broker ``create subscription group to <addr> success.`` and the config's ``toString``."""
        lines: list[str] = []
        for addr in result["brokers"]:
            lines += [
                f"create subscription group to {addr} success.",
                subscription_group_config_to_string(result["config"]),
            ]
        lines += [f"create subscription group to {addr} failed: {why}" for addr, why in result["failed"].items()]
        return lines

"""``getBrokerConfig``: every config entry of a broker (``-b``) or of every broker of a cluster (``-c``).

Java: org.apache.rocketmq.tools.command.broker.GetBrokerConfigCommand (rocketmq-all-4.9.3)
mqadmin prints the entries in Hashtable order; mqlab prints them sorted by key.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.tools.command.command_util import fetch_master_and_slave_distinguish

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


class GetBrokerConfigCommand:
    """Java: GetBrokerConfigCommand."""

    def command_name(self) -> str:
        """Java: GetBrokerConfigCommand#commandName."""
        return "getBrokerConfig"

    def command_desc(self) -> str:
        """Java: GetBrokerConfigCommand#commandDesc."""
        return "Get broker config by cluster or special broker!"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-b`` or ``-c``. Java: GetBrokerConfigCommand#buildCommandlineOptions."""
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument("-b", "--brokerAddr", help="get which broker")
        where.add_argument("-c", "--clusterName", help="get which cluster")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> list[dict[str, Any]]:
        """GET_BROKER_CONFIG per broker: a list of ``{title, addr, config}``. Java: GetBrokerConfigCommand#execute."""
        if args.brokerAddr:
            addr = args.brokerAddr.strip()
            return [self._get(admin, f"============{addr}============", addr)]
        result = []
        for master, slaves in fetch_master_and_slave_distinguish(admin, args.clusterName.strip()).items():
            result.append(self._get(admin, f"============Master: {master}============", master))
            for slave in slaves:
                result.append(
                    self._get(admin, f"============My Master: {master}=====Slave: {slave}============", slave)
                )
        return result

    @staticmethod
    def _get(admin: DefaultMQAdminExt, title: str, addr: str) -> dict[str, Any]:
        """Java: GetBrokerConfigCommand#getAndPrint (the asking half)."""
        return {"title": title, "addr": addr, "config": dict(sorted(admin.get_broker_config(addr).items()))}

    def render(self, result: list[dict[str, Any]]) -> list[str]:
        """Per broker: its title line, ``%-50s=  %s`` per entry, an empty line."""
        lines: list[str] = []
        for broker in result:
            lines.append(broker["title"])
            lines += [f"{key:<50}=  {value}" for key, value in broker["config"].items()]
            lines.append("")
        return lines

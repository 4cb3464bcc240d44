"""``brokerStatus``: a broker's runtime figures (GET_BROKER_RUNTIME_INFO), by key.

``-b`` prints ``%-32s: %s`` per key of one broker; ``-c`` prints every master and slave of the cluster with the
address first (``%-24s %-32s: %s``). mqlab's brokers keep fewer figures than 4.9.3's (no put/get rates, totals or
thread-pool queues; see ``AdminBrokerProcessor.prepare_runtime_info``).

Java: org.apache.rocketmq.tools.command.broker.BrokerStatusSubCommand (rocketmq-all-4.9.3)
With ``-c`` mqadmin prints a failing broker's stack trace and goes on; mqlab reports it in one line.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.tools.command.command_util import fetch_master_and_slave_addr_by_cluster_name

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


class BrokerStatusSubCommand:
    """Java: BrokerStatusSubCommand."""

    def command_name(self) -> str:
        """Java: BrokerStatusSubCommand#commandName."""
        return "brokerStatus"

    def command_desc(self) -> str:
        """Java: BrokerStatusSubCommand#commandDesc."""
        return "Fetch broker runtime status data"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-b`` or ``-c``. Java: BrokerStatusSubCommand#buildCommandlineOptions."""
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument("-b", "--brokerAddr", help="Broker address")
        where.add_argument("-c", "--clusterName", help="which cluster")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """Java: BrokerStatusSubCommand#execute and #printBrokerRuntimeStats (the asking half)."""
        if args.brokerAddr:
            addr = args.brokerAddr.strip()
            return {"cluster": False, "brokers": {addr: self._stats(admin, addr)}, "failed": {}}
        brokers: dict[str, dict[str, str]] = {}
        failed: dict[str, str] = {}
        for addr in fetch_master_and_slave_addr_by_cluster_name(admin, args.clusterName.strip()):
            try:
                brokers[addr] = self._stats(admin, addr)
            except Exception as exc:  # as mqadmin: report this broker and go on with the others
                failed[addr] = f"{type(exc).__name__}: {exc}"
        return {"cluster": True, "brokers": brokers, "failed": failed}

    @staticmethod
    def _stats(admin: DefaultMQAdminExt, addr: str) -> dict[str, str]:
        return dict(sorted(admin.fetch_broker_runtime_stats(addr).table.items()))

    def render(self, result: dict[str, Any]) -> list[str]:
        """Sorted keys: ``%-32s: %s`` for one broker, ``%-24s %-32s: %s`` with the address for a cluster."""
        lines: list[str] = []
        for addr, table in result["brokers"].items():
            for key, value in table.items():
                lines.append(f"{addr:<24} {key:<32}: {value}" if result["cluster"] else f"{key:<32}: {value}")
        lines += [f"{addr:<24} failed: {why}" for addr, why in result["failed"].items()]
        return lines

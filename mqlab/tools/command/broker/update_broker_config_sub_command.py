"""``updateBrokerConfig -k -v``: set one config entry on a broker (``-b``) or on every master of a cluster (``-c``).

The broker applies the entry to every config object that has the key (a bad value is ignored without a word, as in
4.9.3) and rewrites its config file; many entries are only read at start-up and change nothing live.

Java: org.apache.rocketmq.tools.command.broker.UpdateBrokerConfigSubCommand (rocketmq-all-4.9.3)
With ``-c`` mqadmin prints a failing broker's stack trace and goes on; mqlab reports it in the broker's line.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.tools.command.command_util import fetch_master_addr_by_cluster_name

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


class UpdateBrokerConfigSubCommand:
    """Java: UpdateBrokerConfigSubCommand."""

    def command_name(self) -> str:
        """Java: UpdateBrokerConfigSubCommand#commandName."""
        return "updateBrokerConfig"

    def command_desc(self) -> str:
        """Java: UpdateBrokerConfigSubCommand#commandDesc."""
        return "Update broker's config"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-b`` or ``-c``, ``-k``, ``-v``. Java: UpdateBrokerConfigSubCommand#buildCommandlineOptions."""
        where = parser.add_mutually_exclusive_group(required=True)
        where.add_argument("-b", "--brokerAddr", help="update which broker")
        where.add_argument("-c", "--clusterName", help="update which cluster")
        parser.add_argument("-k", "--key", required=True, help="config key")
        parser.add_argument("-v", "--value", required=True, help="config value")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """UPDATE_BROKER_CONFIG with ``key=value`` to each broker. Java: UpdateBrokerConfigSubCommand#execute."""
        properties = {args.key.strip(): args.value.strip()}
        updated: list[str] = []
        failed: dict[str, str] = {}
        if args.brokerAddr:
            admin.update_broker_config(args.brokerAddr.strip(), properties)
            updated.append(args.brokerAddr.strip())
        else:
            for addr in fetch_master_addr_by_cluster_name(admin, args.clusterName.strip()):
                try:
                    admin.update_broker_config(addr, properties)
                    updated.append(addr)
                except Exception as exc:  # as mqadmin: report this broker and go on with the others
                    failed[addr] = f"{type(exc).__name__}: {exc}"
        return {"properties": properties, "updated": updated, "failed": failed}

    def render(self, result: dict[str, Any]) -> list[str]:
        """``update broker config success, <addr>`` per broker (and a line per broker that failed)."""
        lines = [f"update broker config success, {addr}" for addr in result["updated"]]
        lines += [f"update broker config failed, {addr}: {why}" for addr, why in result["failed"].items()]
        return lines

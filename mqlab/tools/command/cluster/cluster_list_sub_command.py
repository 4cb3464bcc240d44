"""``clusterList``: every broker of every cluster, with the figures its runtime info gives.

Java: org.apache.rocketmq.tools.command.cluster.ClusterListSubCommand (rocketmq-all-4.9.3)
Left out: ``-m`` (yesterday's and today's totals) and ``-i`` (repeat every n seconds). mqlab's brokers keep no put/get
rates or thread-pool queues, so InTPS/OutTPS print 0.00 and the queue figures ``-``. Clusters are printed in name
order (Java: HashMap order).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

_FORMAT = "{:<16}  {:<22}  {:<4}  {:<22} {:<16} {:>19} {:>19} {:>10} {:>5} {:>6}"


class ClusterListSubCommand:
    """Java: ClusterListSubCommand."""

    def command_name(self) -> str:
        """Java: ClusterListSubCommand#commandName."""
        return "clusterList"

    def command_desc(self) -> str:
        """Java: ClusterListSubCommand#commandDesc."""
        return "List all of clusters"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """No options of its own. Java: ClusterListSubCommand#buildCommandlineOptions."""

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> list[dict[str, Any]]:
        """One row per broker address. Java: ClusterListSubCommand#printClusterBaseInfo."""
        info = admin.examine_broker_cluster_info()
        rows = []
        for cluster in sorted(info.cluster_addr_table):
            for broker_name in sorted(info.cluster_addr_table[cluster]):
                data = info.broker_addr_table.get(broker_name)
                if data is None:
                    continue
                for broker_id, addr in sorted(data.broker_addrs.items()):
                    rows.append(
                        {
                            "cluster": cluster,
                            "brokerName": broker_name,
                            "brokerId": broker_id,
                            "addr": addr,
                            **self._runtime_figures(admin, addr),
                        }
                    )
        return rows

    @staticmethod
    def _runtime_figures(admin: DefaultMQAdminExt, addr: str) -> dict[str, Any]:
        """Version, rates, page-cache lock time, hours of messages kept and disk ratio of one broker."""
        try:
            table = admin.fetch_broker_runtime_stats(addr).table
        except Exception as exc:  # as Java: a broker that does not answer still gets its row
            return {"error": f"{type(exc).__name__}: {exc}"}

        def rate(key: str) -> float:
            text = table.get(key)
            return float(text.split(" ")[0]) if text else 0.0

        earliest = int(table.get("earliestMessageTimeStamp") or 0)
        hours = (admin.runtime.now_ms() - earliest) / 1000 / 3600 if earliest > 0 else 0.0
        return {
            "version": table.get("brokerVersionDesc", ""),
            "inTps": rate("putTps"),
            "outTps": rate("getTransferedTps"),
            "sendThreadPoolQueueSize": table.get("sendThreadPoolQueueSize"),
            "pullThreadPoolQueueSize": table.get("pullThreadPoolQueueSize"),
            "pageCacheLockTimeMills": table.get("pageCacheLockTimeMills"),
            "hour": round(hours, 2),
            "space": float(table.get("commitLogDiskRatio") or 0.0),
        }

    def render(self, result: list[dict[str, Any]]) -> list[str]:
        """The table with mqadmin's columns."""
        header = (
            "#Cluster Name",
            "#Broker Name",
            "#BID",
            "#Addr",
            "#Version",
            "#InTPS(LOAD)",
            "#OutTPS(LOAD)",
            "#PCWait(ms)",
            "#Hour",
            "#SPACE",
        )
        lines = [_FORMAT.format(*header)]
        for row in result:
            dash = _dasher(row)

            lines.append(
                _FORMAT.format(
                    row["cluster"],
                    row["brokerName"],
                    row["brokerId"],
                    row["addr"],
                    dash("version"),
                    f"{row.get('inTps', 0.0):9.2f}({dash('sendThreadPoolQueueSize')})",
                    f"{row.get('outTps', 0.0):9.2f}({dash('pullThreadPoolQueueSize')})",
                    dash("pageCacheLockTimeMills"),
                    f"{row.get('hour', 0.0):.2f}",
                    f"{row.get('space', 0.0):.4f}",
                )
            )
        return lines


def _dasher(row: dict[str, Any]):
    """A lookup that shows a missing figure as ``-``."""

    def dash(key: str) -> str:
        value = row.get(key)
        return "-" if value is None else str(value)

    return dash

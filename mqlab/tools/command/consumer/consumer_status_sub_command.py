"""``consumerStatus -g``: what each consumer of a group says about itself (GET_CONSUMER_RUNNING_INFO, relayed).

The admin asks the first broker of ``%RETRY%<group>``'s route, which relays the question to the consumer on the
consumer's own connection and returns its answer (``ConsumerRunningInfo``). With ``-i <clientId>`` the report of
that one consumer is printed. Without it every connection of the group (``consumerConnection``'s request) is asked:
each report is written to the file ``<now>/<clientId>`` (relative to the working directory, as mqadmin does), one
row per consumer is printed, then whether the members subscribe alike, and any queue that looks stuck.

Java: org.apache.rocketmq.tools.command.consumer.ConsumerStatusSubCommand (rocketmq-all-4.9.3)
``-s`` (jstack) is sent, but mqlab's consumers have no thread dump to add. A consumer that cannot be asked is
reported in its row (mqadmin prints the stack trace and goes on).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqlab.common.mq_version import get_version_desc
from mqlab.common.protocol.body import consumer_running_info as cri

if TYPE_CHECKING:
    from mqlab.common.protocol.body.consumer_running_info import ConsumerRunningInfo
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


def running_info_to_dict(info: ConsumerRunningInfo) -> dict[str, Any]:
    """A running info as JSON-ready data (the queue table as a list: its keys are objects)."""
    return {
        "properties": dict(sorted(info.properties.items())),
        "subscriptionSet": [{"topic": s.topic, "subString": s.sub_string} for s in info.subscription_set],
        "mqTable": [
            {
                "topic": mq.topic,
                "brokerName": mq.broker_name,
                "queueId": mq.queue_id,
                "commitOffset": pq.commit_offset,
                "cachedMsgCount": pq.cached_msg_count,
                "cachedMsgMinOffset": pq.cached_msg_min_offset,
                "cachedMsgMaxOffset": pq.cached_msg_max_offset,
                "locked": pq.locked,
                "dropped": pq.dropped,
                "lastPullTimestamp": pq.last_pull_timestamp,
                "lastConsumeTimestamp": pq.last_consume_timestamp,
            }
            for mq, pq in sorted(info.mq_table.items())
        ],
        "statusTable": info.status_table,
        "jstack": info.jstack,
    }


class ConsumerStatusSubCommand:
    """Java: ConsumerStatusSubCommand."""

    def command_name(self) -> str:
        """Java: ConsumerStatusSubCommand#commandName."""
        return "consumerStatus"

    def command_desc(self) -> str:
        """Java: ConsumerStatusSubCommand#commandDesc."""
        return "Query consumer's internal data structure"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-g`` (required), ``-i``, ``-s``. Java: ConsumerStatusSubCommand#buildCommandlineOptions."""
        parser.add_argument("-g", "--consumerGroup", required=True, help="consumer group name")
        parser.add_argument("-i", "--clientId", help="The consumer's client id")
        parser.add_argument("-s", "--jstack", action="store_true", help="Run jstack command in the consumer progress")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """Java: ConsumerStatusSubCommand#execute."""
        group = args.consumerGroup.strip()
        connection = admin.examine_consumer_connection_info(group)
        tz = admin.runtime.tz
        if args.clientId:
            info = admin.get_consumer_running_info(group, args.clientId.strip(), args.jstack)
            return {
                "group": group,
                "clientId": args.clientId.strip(),
                "report": info.format_string(tz),
                "info": running_info_to_dict(info),
            }
        now = admin.runtime.now_ms()
        table: dict[str, ConsumerRunningInfo] = {}
        clients: list[dict[str, Any]] = []
        for conn in sorted(connection.connection_set, key=lambda c: c.client_id or ""):
            client_id = conn.client_id or ""
            row: dict[str, Any] = {"clientId": client_id, "version": get_version_desc(conn.version)}
            try:
                info = admin.get_consumer_running_info(group, client_id, args.jstack)
            except Exception as exc:  # as mqadmin: this consumer is reported, the others still asked
                row["error"] = f"{type(exc).__name__}: {exc}"
                clients.append(row)
                continue
            table[client_id] = info
            path = Path(str(now)) / client_id
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(info.format_string(tz), encoding="utf-8")
            row["file"] = f"{now}/{client_id}"
            row["info"] = running_info_to_dict(info)
            clients.append(row)
        result: dict[str, Any] = {"group": group, "clients": clients, "subscriptionSame": None}
        if table:
            same = cri.analyze_subscription(table, now)
            result["subscriptionSame"] = same
            result["rebalanceOK"] = same and cri.analyze_rebalance(table)
            result["processQueueWarnings"] = (
                "".join(cri.analyze_process_queue(cid, table[cid], now) for cid in sorted(table)) if same else ""
            )
        return result

    def render(self, result: dict[str, Any]) -> list[str]:
        """The one consumer's report; or ``%03d  %-40s %-20s %s`` rows and the group analysis."""
        if "report" in result:
            return result["report"].rstrip("\n").split("\n")
        lines = []
        index = 1
        for row in result["clients"]:
            if "error" in row:
                lines.append(f"{row['clientId']}: {row['error']}")
                continue
            lines.append(f"{index:03d}  {row['clientId']:<40} {row['version']:<20} {row['file']}")
            index += 1
        if result["subscriptionSame"] is True:
            lines += ["", "", "Same subscription in the same group of consumer", ""]
            lines.append(f"Rebalance {'OK' if result['rebalanceOK'] else 'Failed'}")
            lines += result["processQueueWarnings"].splitlines()
        elif result["subscriptionSame"] is False:
            lines += ["", "", "WARN: Different subscription in the same group of consumer!!!"]
        return lines

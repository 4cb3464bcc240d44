"""``consumerConnection -g``: who is in a consumer group (client id, address, language, version) and what it reads.

The answer comes from one broker of the group's retry topic (``examine_consumer_connection_info``). A group with
no member online is a failure: the broker answers CONSUMER_NOT_ONLINE ("the consumer group[<g>] not online") or
the tool finds no connection ("Not found the consumer group connection"), as mqadmin.

Java: org.apache.rocketmq.tools.command.connection.ConsumerConnectionSubCommand (rocketmq-all-4.9.3)
mqadmin prints the connections in the order of a HashSet of objects hashed by identity; mqlab sorts them by client
id. The subscriptions keep the order of the answer's map (a hash map in both).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.common.mq_version import get_version_desc

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt

_CONNECTION_FORMAT = "{:<36} {:<22} {:<10} {}"
_SUBSCRIPTION_FORMAT = "{:<20} {}"


def _name(value: Any) -> str | None:
    """An enum's name (Java prints enums by name; ``null`` for none)."""
    return value.name if value is not None else None


class ConsumerConnectionSubCommand:
    """Java: ConsumerConnectionSubCommand."""

    def command_name(self) -> str:
        """Java: ConsumerConnectionSubCommand#commandName."""
        return "consumerConnection"

    def command_desc(self) -> str:
        """Java: ConsumerConnectionSubCommand#commandDesc."""
        return "Query consumer's socket connection, client version and subscription"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-g`` group (required). Java: ConsumerConnectionSubCommand#buildCommandlineOptions."""
        parser.add_argument("-g", "--consumerGroup", required=True, help="consumer group name")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> dict[str, Any]:
        """GET_CONSUMER_CONNECTION_LIST to one broker of the group. Java: ConsumerConnectionSubCommand#execute."""
        group = args.consumerGroup.strip()
        cc = admin.examine_consumer_connection_info(group)
        return {
            "group": group,
            "connections": [
                {
                    "clientId": conn.client_id,
                    "clientAddr": conn.client_addr,
                    "language": _name(conn.language),
                    "version": conn.version,
                    "versionDesc": get_version_desc(conn.version),
                }
                for conn in sorted(cc.connection_set, key=lambda c: (c.client_id or "", c.client_addr or ""))
            ],
            "subscriptions": [
                {"topic": sub.topic, "subExpression": sub.sub_string} for sub in cc.subscription_table.values()
            ],
            "consumeType": _name(cc.consume_type),
            "messageModel": _name(cc.message_model),
            "consumeFromWhere": _name(cc.consume_from_where),
        }

    def render(self, result: dict[str, Any]) -> list[str]:
        """The connections, a blank line, the subscriptions, a blank line and the group's settings."""
        lines = [_CONNECTION_FORMAT.format("#ClientId", "#ClientAddr", "#Language", "#Version")]
        for conn in result["connections"]:
            lines.append(
                _CONNECTION_FORMAT.format(
                    str(conn["clientId"]), str(conn["clientAddr"]), str(conn["language"]), conn["versionDesc"]
                )
            )
        lines += ["", "Below is subscription:", _SUBSCRIPTION_FORMAT.format("#Topic", "#SubExpression")]
        for sub in result["subscriptions"]:
            lines.append(_SUBSCRIPTION_FORMAT.format(str(sub["topic"]), str(sub["subExpression"])))
        lines += [
            "",
            f"ConsumeType: {result['consumeType']}",
            f"MessageModel: {result['messageModel']}",
            f"ConsumeFromWhere: {result['consumeFromWhere']}",
        ]
        return lines

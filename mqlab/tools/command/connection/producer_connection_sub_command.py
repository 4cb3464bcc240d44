"""``producerConnection -g -t``: the connections of a producer group, as one broker of the topic's route knows them.

Java: org.apache.rocketmq.tools.command.connection.ProducerConnectionSubCommand (rocketmq-all-4.9.3)
mqadmin prints the connections in the order of a HashSet of identity-hashed objects; mqlab sorts them by client id.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from mqlab.common.mq_version import get_version_desc

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


class ProducerConnectionSubCommand:
    """Java: ProducerConnectionSubCommand."""

    def command_name(self) -> str:
        """Java: ProducerConnectionSubCommand#commandName."""
        return "producerConnection"

    def command_desc(self) -> str:
        """Java: ProducerConnectionSubCommand#commandDesc."""
        return "Query producer's socket connection and client version"

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """``-g`` and ``-t`` (both required). Java: ProducerConnectionSubCommand#buildCommandlineOptions."""
        parser.add_argument("-g", "--producerGroup", required=True, help="producer group name")
        parser.add_argument("-t", "--topic", required=True, help="topic name")

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> list[dict[str, Any]]:
        """GET_PRODUCER_CONNECTION_LIST to one broker of the topic. Java: ProducerConnectionSubCommand#execute."""
        pc = admin.examine_producer_connection_info(args.producerGroup.strip(), args.topic.strip())
        return [
            {
                "clientId": conn.client_id,
                "clientAddr": conn.client_addr,
                "language": conn.language.name if conn.language is not None else None,
                "version": conn.version,
                "versionDesc": get_version_desc(conn.version),
            }
            for conn in sorted(pc.connection_set, key=lambda c: (c.client_id or "", c.client_addr or ""))
        ]

    def render(self, result: list[dict[str, Any]]) -> list[str]:
        """``%04d  %-32s %-22s %-8s %s``: index from 1, client id, address, language, version."""
        return [
            f"{i:04d}  {c['clientId']!s:<32} {c['clientAddr']!s:<22} {c['language']!s:<8} {c['versionDesc']}"
            for i, c in enumerate(result, start=1)
        ]

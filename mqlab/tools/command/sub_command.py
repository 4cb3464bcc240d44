"""The shape of one ``mqlab admin`` command: its name, its options, what it asks and how it prints the answer.

Java's ``execute`` both asks and prints; mqlab splits it in two so that every command can print the same answer as
a table (like ``mqadmin``) or as JSON: ``execute`` returns plain data (dicts, lists, strings, numbers) and
``render`` turns that data into the table's lines.

Java: org.apache.rocketmq.tools.command.SubCommand (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt


class SubCommand(Protocol):
    """One admin command."""

    def command_name(self) -> str:
        """The name typed after ``mqlab admin`` (mqadmin's, e.g. ``topicRoute``). Java: SubCommand#commandName."""
        ...

    def command_desc(self) -> str:
        """One line of help. Java: SubCommand#commandDesc."""
        ...

    def build_command_line_options(self, parser: argparse.ArgumentParser) -> None:
        """Add the command's options (mqadmin's letters). Java: SubCommand#buildCommandlineOptions."""
        ...

    def execute(self, args: argparse.Namespace, admin: DefaultMQAdminExt) -> Any:
        """Ask the cluster through the started ``admin``; return JSON-ready data. Java: SubCommand#execute."""
        ...

    def render(self, result: Any) -> list[str]:
        """The table lines of ``execute``'s data (Java prints them inside ``execute``)."""
        ...

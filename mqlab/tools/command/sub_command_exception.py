"""A command that could not do its job: which command, and why.

Java: org.apache.rocketmq.tools.command.SubCommandException (rocketmq-all-4.9.3)
"""

from __future__ import annotations


class SubCommandException(Exception):
    """Raised by a command for a failure it detects itself (an unknown cluster, a message not found...)."""

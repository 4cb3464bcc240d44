"""Request or response, from flag bit 0.

Java: org.apache.rocketmq.remoting.protocol.RemotingCommandType (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class RemotingCommandType(Enum):
    """Which way a command travels."""

    REQUEST_COMMAND = "REQUEST_COMMAND"
    RESPONSE_COMMAND = "RESPONSE_COMMAND"

"""One row of ``consumerProgress`` without ``-g``: a group's online members, their oldest version, type, lag.

Java: org.apache.rocketmq.tools.command.consumer.GroupConsumeInfo (rocketmq-all-4.9.3; a package-private class in
ConsumerProgressSubCommand.java)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.common.mq_version import get_version_desc
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.message_model import MessageModel


@dataclass(slots=True)
class GroupConsumeInfo:
    """What the admin tool learned about one group; ``count`` 0 means no connection was found (offline)."""

    group: str
    version: int = 0
    count: int = 0
    consume_type: ConsumeType | None = None
    message_model: MessageModel | None = None
    consume_tps: int = 0
    diff_total: int = 0

    def consume_type_desc(self) -> str:
        """``PULL`` or ``PUSH`` for an online group, else empty. Java: GroupConsumeInfo#consumeTypeDesc."""
        if self.count != 0:
            return "PULL" if self.consume_type is ConsumeType.CONSUME_ACTIVELY else "PUSH"
        return ""

    def message_model_desc(self) -> str:
        """``CLUSTERING``/``BROADCASTING`` for an online push group, else empty.

        Java: GroupConsumeInfo#messageModelDesc
        """
        if self.count != 0 and self.consume_type is ConsumeType.CONSUME_PASSIVELY and self.message_model is not None:
            return self.message_model.name
        return ""

    def version_desc(self) -> str:
        """The release name of the oldest member's version, empty when offline. Java: GroupConsumeInfo#versionDesc."""
        if self.count != 0:
            return get_version_desc(self.version)
        return ""

    def sort_key(self) -> tuple[int, int, str]:
        """More members first, then the larger lag, then the group name.

        Java: GroupConsumeInfo#compareTo, which 4.9.3 defines but never uses (mqadmin prints the groups in the
        order of the name server's topic set, a HashSet). Java subtracts the two lags and casts the long to an
        int, which can misorder lags more than 2^31 apart; mqlab compares them as they are, and adds the group
        name so that equal rows keep a stable order.
        """
        return (-self.count, -self.diff_total, self.group)

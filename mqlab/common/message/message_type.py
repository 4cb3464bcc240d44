"""What kind of send a message trace records: normal, transactional half, commit, or delayed.

Only the ordinal travels (field 12 of a Pub trace record, field 10 of an EndTransaction record), so the member
order is part of the format.

Java: org.apache.rocketmq.common.message.MessageType (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class MessageType(Enum):
    """Java's member names; ``ordinal`` is the number a trace record writes."""

    Normal_Msg = 0
    Trans_Msg_Half = 1
    Trans_msg_Commit = 2
    Delay_Msg = 3

    @property
    def ordinal(self) -> int:
        """Java's ``Enum#ordinal``."""
        return self.value

    @classmethod
    def of_ordinal(cls, ordinal: int) -> MessageType:
        """``MessageType.values()[ordinal]``; IndexError for an unknown ordinal, as Java's array access."""
        members = list(cls)
        if not 0 <= ordinal < len(members):
            raise IndexError(f"no MessageType with ordinal {ordinal}")
        return members[ordinal]

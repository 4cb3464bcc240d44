"""The header of CHECK_TRANSACTION_STATE (39): the broker asks a producer about a half message it still holds.

Java: org.apache.rocketmq.common.protocol.header.CheckTransactionStateRequestHeader (rocketmq-all-4.9.3)

The offsets name the *copy* of the half message the check made (its commitlog offset and its queue offset in
``RMQ_SYS_TRANS_HALF_TOPIC``); the producer's END_TRANSACTION answer sends them back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.remoting.command_custom_header import CommandCustomHeader


@dataclass
class CheckTransactionStateRequestHeader(CommandCustomHeader):
    """Java's fields in declaration order."""

    tran_state_table_offset: int | None = field(default=None, metadata={"required": True})
    commit_log_offset: int | None = field(default=None, metadata={"required": True})
    msg_id: str | None = None
    transaction_id: str | None = None
    offset_msg_id: str | None = None

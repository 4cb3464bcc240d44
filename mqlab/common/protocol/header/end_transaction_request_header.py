"""The header of END_TRANSACTION (37): a producer's decision about one half message.

Java: org.apache.rocketmq.common.protocol.header.EndTransactionRequestHeader (rocketmq-all-4.9.3)

The broker finds the half record by ``commitLogOffset`` and checks it against ``producerGroup`` (its PGROUP property),
``tranStateTableOffset`` (its queue offset in ``RMQ_SYS_TRANS_HALF_TOPIC``) and ``commitLogOffset`` itself.
``commitOrRollback`` is a transaction sysflag value: 8 commit, 12 rollback, 0 "still unknown".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.common.sysflag.message_sys_flag import TRANSACTION_NOT_TYPE, MessageSysFlag
from mqlab.remoting.command_custom_header import CommandCustomHeader
from mqlab.remoting.exception.remoting_command_exception import RemotingCommandException

# The three values checkFields accepts.
_STATES = (
    TRANSACTION_NOT_TYPE,
    int(MessageSysFlag.TRANSACTION_COMMIT_TYPE),
    int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE),
)


@dataclass
class EndTransactionRequestHeader(CommandCustomHeader):
    """Java's fields in declaration order; ``from_transaction_check`` is always sent (Java's default is false)."""

    producer_group: str | None = field(default=None, metadata={"required": True})
    tran_state_table_offset: int | None = field(default=None, metadata={"required": True})
    commit_log_offset: int | None = field(default=None, metadata={"required": True})
    commit_or_rollback: int | None = field(default=None, metadata={"required": True})
    from_transaction_check: bool | None = False
    msg_id: str | None = field(default=None, metadata={"required": True})
    transaction_id: str | None = None

    def check_fields(self) -> None:
        """Only 0, 8 and 12 are accepted. Java: EndTransactionRequestHeader#checkFields.

        Raises:
            RemotingCommandException: "commitOrRollback field wrong".
        """
        if self.commit_or_rollback not in _STATES:
            raise RemotingCommandException("commitOrRollback field wrong")

    def __str__(self) -> str:
        """Java: EndTransactionRequestHeader#toString (what the broker logs)."""
        return (
            f"EndTransactionRequestHeader{{producerGroup={_java(self.producer_group)}, "
            f"tranStateTableOffset={_java(self.tran_state_table_offset)}, "
            f"commitLogOffset={_java(self.commit_log_offset)}, commitOrRollback={_java(self.commit_or_rollback)}, "
            f"fromTransactionCheck={_java(self.from_transaction_check)}, msgId={_java(self.msg_id)}, "
            f"transactionId={_java(self.transaction_id)}}}"
        )


def _java(value: object) -> str:
    """A field as Java's string concatenation writes it: ``null``, ``true``/``false``, else the value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)

"""The application's side of a transactional send: run the local transaction, and answer the broker's checks.

Java: org.apache.rocketmq.client.producer.TransactionListener (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mqlab.client.producer.local_transaction_state import LocalTransactionState
    from mqlab.common.message.message import Message
    from mqlab.common.message.message_ext import MessageExt


class TransactionListener(Protocol):
    """Implemented by the application and set on a ``TransactionMQProducer``."""

    def execute_local_transaction(self, msg: Message, arg: Any) -> LocalTransactionState | None:
        """Run the local transaction after the half message was stored (None counts as UNKNOW).

        Java: TransactionListener#executeLocalTransaction
        """
        ...

    def check_local_transaction(self, msg_ext: MessageExt) -> LocalTransactionState | None:
        """The broker asks again about a half message nobody resolved: what became of its local transaction?

        Java: TransactionListener#checkLocalTransaction
        """
        ...

"""A transactional send's result: the half message's SendResult plus the local transaction's state.

Java: org.apache.rocketmq.client.producer.TransactionSendResult (rocketmq-all-4.9.3)

Only sendStatus, messageQueue, msgId, queueOffset and transactionId are copied from the half message's SendResult:
``offset_msg_id`` and ``region_id`` stay unset, and ``transaction_id`` is None against a 4.9.3 broker (it never
sets one), as in Java.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.client.producer.local_transaction_state import LocalTransactionState
from mqlab.client.producer.send_result import SendResult


@dataclass(slots=True)
class TransactionSendResult(SendResult):
    """``queue_offset`` is the half message's offset in RMQ_SYS_TRANS_HALF_TOPIC (the "tranStateTableOffset")."""

    local_transaction_state: LocalTransactionState | None = None

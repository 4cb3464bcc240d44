"""What an end-transaction hook is told: the producer group, the message, the broker, the ids and the decision.

Java: org.apache.rocketmq.client.hook.EndTransactionContext (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqlab.client.producer.local_transaction_state import LocalTransactionState
    from mqlab.common.message.message import Message


@dataclass(slots=True, kw_only=True)
class EndTransactionContext:
    """Java's fields (``fromTransactionCheck``: the decision answers a broker's check)."""

    producer_group: str | None = None
    message: Message | None = None
    broker_addr: str | None = None
    msg_id: str | None = None
    transaction_id: str | None = None
    transaction_state: LocalTransactionState | None = None
    from_transaction_check: bool = False

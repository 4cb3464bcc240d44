"""A hook the producer calls just before it sends END_TRANSACTION (``registerEndTransactionHook``).

Java: org.apache.rocketmq.client.hook.EndTransactionHook (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mqlab.client.hook.end_transaction_context import EndTransactionContext


class EndTransactionHook(Protocol):
    """Called once per decision sent (after the local transaction, and for each answer to a check)."""

    def hook_name(self) -> str:
        """Java: EndTransactionHook#hookName."""
        ...

    def end_transaction(self, context: EndTransactionContext) -> None:
        """Java: EndTransactionHook#endTransaction."""
        ...

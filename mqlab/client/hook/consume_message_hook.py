"""A hook a push consumer calls around each listener call (``registerConsumeMessageHook``).

Java: org.apache.rocketmq.client.hook.ConsumeMessageHook (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mqlab.client.hook.consume_message_context import ConsumeMessageContext


class ConsumeMessageHook(Protocol):
    """Both calls get the same context; a hook's exception is swallowed by the consumer."""

    def hook_name(self) -> str:
        """Java: ConsumeMessageHook#hookName."""
        ...

    def consume_message_before(self, context: ConsumeMessageContext) -> None:
        """Java: ConsumeMessageHook#consumeMessageBefore."""
        ...

    def consume_message_after(self, context: ConsumeMessageContext) -> None:
        """Java: ConsumeMessageHook#consumeMessageAfter."""
        ...

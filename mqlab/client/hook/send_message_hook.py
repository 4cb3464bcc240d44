"""A hook the producer calls before and after each send attempt (``registerSendMessageHook``).

Java: org.apache.rocketmq.client.hook.SendMessageHook (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mqlab.client.hook.send_message_context import SendMessageContext


class SendMessageHook(Protocol):
    """Both calls get the same context; a hook's exception is swallowed by the producer."""

    def hook_name(self) -> str:
        """Java: SendMessageHook#hookName."""
        ...

    def send_message_before(self, context: SendMessageContext) -> None:
        """Java: SendMessageHook#sendMessageBefore."""
        ...

    def send_message_after(self, context: SendMessageContext) -> None:
        """Java: SendMessageHook#sendMessageAfter."""
        ...

"""What a consume-message hook sees of one consume call: the batch before, and the verdict after.

``props`` carries ``ConsumeContextType`` (a ConsumeReturnType name) to the after-hook.

Java: org.apache.rocketmq.client.hook.ConsumeMessageContext (rocketmq-all-4.9.3)
Left out: ``namespace`` (mqlab has no namespaces).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.message.message_queue import MessageQueue


@dataclass(slots=True, kw_only=True)
class ConsumeMessageContext:
    """One ConsumeRequest of a push consumer; ``success`` and ``status`` are set before the after-hook."""

    consumer_group: str | None = None
    msg_list: list[MessageExt] | None = None
    mq: MessageQueue | None = None
    success: bool = False
    status: str | None = None
    mq_trace_context: Any = None
    props: dict[str, str] = field(default_factory=dict)

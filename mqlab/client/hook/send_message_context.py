"""What a send-message hook sees of one send attempt: before it leaves, and again with its result or failure.

Java: org.apache.rocketmq.client.hook.SendMessageContext (rocketmq-all-4.9.3)
Left out: ``namespace`` (mqlab has no namespaces).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mqlab.common.message.message_type import MessageType

if TYPE_CHECKING:
    from mqlab.client.impl.communication_mode import CommunicationMode
    from mqlab.client.impl.producer.default_mq_producer_impl import DefaultMQProducerImpl
    from mqlab.client.producer.send_result import SendResult
    from mqlab.common.message.message import Message
    from mqlab.common.message.message_queue import MessageQueue


@dataclass(slots=True, kw_only=True)
class SendMessageContext:
    """One attempt of ``sendKernelImpl``; ``send_result`` / ``exception`` are set before the after-hook runs.

    ``mq_trace_context``: whatever a hook wants to carry from before to after (the trace hook's TraceContext).
    """

    producer_group: str | None = None
    message: Message | None = None
    mq: MessageQueue | None = None
    broker_addr: str | None = None
    born_host: str | None = None
    communication_mode: CommunicationMode | None = None
    send_result: SendResult | None = None
    exception: BaseException | None = None
    mq_trace_context: Any = None
    props: dict[str, str] = field(default_factory=dict)
    producer: DefaultMQProducerImpl | None = None
    msg_type: MessageType = MessageType.Normal_Msg

"""The producer side of message traces: one Pub context per send attempt that got a result.

Before a send: a Pub context stamped now, with the group, and one bean (topic, tags, keys, the broker address the
request goes to, the body length as sent, i.e. after compression, and the message type). After it: nothing unless
the attempt has a send result (not for failures, oneway sends or the result-less first call of an async send), the
result has a region id and the broker's ``TRACE_ON`` is not ``false``; then cost time, success, region, the two
message ids and a store time half-way through the cost are filled in and the context is appended to the dispatcher.
Messages to the trace topic itself are never traced.

Java: org.apache.rocketmq.client.trace.hook.SendMessageTraceHookImpl (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.client.producer.send_status import SendStatus
from mqlab.client.trace.trace_bean import TraceBean
from mqlab.client.trace.trace_context import new_trace_context
from mqlab.client.trace.trace_type import TraceType

if TYPE_CHECKING:
    from mqlab.client.hook.send_message_context import SendMessageContext
    from mqlab.client.trace.async_trace_dispatcher import AsyncTraceDispatcher
    from mqlab.runtime.runtime import Runtime


def java_long_div(a: int, b: int) -> int:
    """Java's integer division (rounds toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


class SendMessageTraceHookImpl:
    """A SendMessageHook that feeds ``local_dispatcher``."""

    def __init__(self, local_dispatcher: AsyncTraceDispatcher, runtime: Runtime):
        self.local_dispatcher = local_dispatcher
        self.runtime = runtime

    def hook_name(self) -> str:
        """Java: SendMessageTraceHookImpl#hookName."""
        return "SendMessageTraceHook"

    def _is_trace_message(self, context: SendMessageContext) -> bool:
        assert context.message is not None
        return (context.message.topic or "").startswith(self.local_dispatcher.trace_topic_name)

    def send_message_before(self, context: SendMessageContext | None) -> None:
        """Start a Pub context for this attempt. Java: SendMessageTraceHookImpl#sendMessageBefore."""
        if context is None or self._is_trace_message(context):
            return
        msg = context.message
        assert msg is not None
        trace_context = new_trace_context(self.runtime, TraceType.Pub)
        trace_context.group_name = context.producer_group
        context.mq_trace_context = trace_context
        ip = self.runtime.host.ip
        trace_context.trace_beans.append(
            TraceBean(
                topic=msg.topic,
                tags=msg.get_tags(),
                keys=msg.get_keys(),
                store_host=context.broker_addr,
                client_host=ip,
                body_length=len(msg.body or b""),
                msg_type=context.msg_type,
            )
        )

    def send_message_after(self, context: SendMessageContext | None) -> None:
        """Finish the Pub context and hand it to the dispatcher. Java: SendMessageTraceHookImpl#sendMessageAfter."""
        if context is None or self._is_trace_message(context) or context.mq_trace_context is None:
            return
        result = context.send_result
        if result is None or result.region_id is None or not result.trace_on:
            return
        trace_context = context.mq_trace_context
        bean = trace_context.trace_beans[0]
        cost_time = java_long_div(self.runtime.now_ms() - trace_context.time_stamp, len(trace_context.trace_beans))
        trace_context.cost_time = cost_time
        trace_context.is_success = result.send_status is SendStatus.SEND_OK
        trace_context.region_id = result.region_id
        bean.msg_id = result.msg_id
        bean.offset_msg_id = result.offset_msg_id
        bean.store_time = trace_context.time_stamp + java_long_div(cost_time, 2)
        self.local_dispatcher.append(trace_context)

"""The consumer side of message traces: a SubBefore context before the listener runs, a SubAfter one after.

Before: one bean per message whose ``TRACE_ON`` property is not ``false`` (topic, msgId as the client shows it,
tags, keys, store time, store size, reconsume times); the context's region id is the last such message's
``MSG_REGION`` property, which a stock broker never writes, so it is usually None (encoded ``null``). The context
is appended only if it has a bean. After: a SubAfter context (stamped now, after consumption) with the same
region, group, request id and beans, success = the listener's CONSUME_SUCCESS, cost = elapsed time divided by the
number of messages, and the ConsumeReturnType ordinal as context code.

Java: org.apache.rocketmq.client.trace.hook.ConsumeMessageTraceHookImpl (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.client.consumer.listener.consume_return_type import ConsumeReturnType
from mqlab.client.trace.hook.send_message_trace_hook_impl import java_long_div
from mqlab.client.trace.trace_bean import TraceBean
from mqlab.client.trace.trace_context import new_trace_context
from mqlab.client.trace.trace_type import TraceType
from mqlab.common import mix_all
from mqlab.common.message import message_const as mc

if TYPE_CHECKING:
    from mqlab.client.hook.consume_message_context import ConsumeMessageContext
    from mqlab.client.trace.async_trace_dispatcher import AsyncTraceDispatcher
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.runtime.runtime import Runtime


def client_msg_id(msg: MessageExt) -> str | None:
    """``msg.getMsgId()`` as a client sees it: the UNIQ_KEY when present (MessageClientExt), else the stored id."""
    get_msg_id = getattr(msg, "get_msg_id", None)
    return get_msg_id() if get_msg_id is not None else msg.msg_id


class ConsumeMessageTraceHookImpl:
    """A ConsumeMessageHook that feeds ``local_dispatcher``."""

    def __init__(self, local_dispatcher: AsyncTraceDispatcher, runtime: Runtime):
        self.local_dispatcher = local_dispatcher
        self.runtime = runtime

    def hook_name(self) -> str:
        """Java: ConsumeMessageTraceHookImpl#hookName."""
        return "ConsumeMessageTraceHook"

    def consume_message_before(self, context: ConsumeMessageContext | None) -> None:
        """Append a SubBefore context for the batch. Java: ConsumeMessageTraceHookImpl#consumeMessageBefore."""
        if context is None or not context.msg_list:
            return
        trace_context = new_trace_context(self.runtime, TraceType.SubBefore)
        context.mq_trace_context = trace_context
        trace_context.group_name = context.consumer_group
        beans = []
        ip = self.runtime.host.ip
        for msg in context.msg_list:
            if msg is None:
                continue
            region_id = msg.get_property(mc.PROPERTY_MSG_REGION)
            if msg.get_property(mc.PROPERTY_TRACE_SWITCH) == "false":
                continue
            beans.append(
                TraceBean(
                    topic=msg.topic,
                    msg_id=client_msg_id(msg),
                    tags=msg.get_tags(),
                    keys=msg.get_keys(),
                    store_time=msg.store_timestamp,
                    body_length=msg.store_size,
                    retry_times=msg.reconsume_times,
                    store_host=ip,
                    client_host=ip,
                )
            )
            trace_context.region_id = region_id
        if beans:
            trace_context.trace_beans = beans
            trace_context.time_stamp = self.runtime.now_ms()
            self.local_dispatcher.append(trace_context)

    def consume_message_after(self, context: ConsumeMessageContext | None) -> None:
        """Append the SubAfter context. Java: ConsumeMessageTraceHookImpl#consumeMessageAfter."""
        if context is None or not context.msg_list:
            return
        before = context.mq_trace_context
        if before is None or not before.trace_beans:
            return
        after = new_trace_context(self.runtime, TraceType.SubAfter)
        after.region_id = before.region_id
        after.group_name = before.group_name
        after.request_id = before.request_id
        after.is_success = context.success
        after.cost_time = java_long_div(self.runtime.now_ms() - before.time_stamp, len(context.msg_list))
        after.trace_beans = before.trace_beans
        context_type = context.props.get(mix_all.CONSUME_CONTEXT_TYPE) if context.props is not None else None
        if context_type is not None:
            after.context_code = ConsumeReturnType[context_type].ordinal
        self.local_dispatcher.append(after)

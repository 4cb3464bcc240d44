"""The transactional producer's side of message traces: one EndTransaction record per decision it sends.

The record (``TraceType.EndTransaction``) names the group, the message's topic, tags and keys, the broker the
decision goes to, the message id the producer knows (the send result's msgId, or UNIQ_KEY when answering a check),
the transaction id, the decision (``COMMIT_MESSAGE``, ``ROLLBACK_MESSAGE`` or ``UNKNOW``) and whether it answers a
check. Like 4.9.3, the message type is always ``Trans_msg_Commit`` (also for a rollback), the region is the
message's ``MSG_REGION`` or ``DefaultRegion``, and the timestamp is taken when the record is made. Messages to the
trace topic itself are never traced.

Java: org.apache.rocketmq.client.trace.hook.EndTransactionTraceHookImpl (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.client.trace.trace_bean import TraceBean
from mqlab.client.trace.trace_context import new_trace_context
from mqlab.client.trace.trace_type import TraceType
from mqlab.common import mix_all
from mqlab.common.message import message_const as mc
from mqlab.common.message.message_type import MessageType

if TYPE_CHECKING:
    from mqlab.client.hook.end_transaction_context import EndTransactionContext
    from mqlab.client.trace.async_trace_dispatcher import AsyncTraceDispatcher
    from mqlab.runtime.runtime import Runtime


class EndTransactionTraceHookImpl:
    """An EndTransactionHook that feeds ``local_dispatcher``."""

    def __init__(self, local_dispatcher: AsyncTraceDispatcher, runtime: Runtime):
        self.local_dispatcher = local_dispatcher
        self.runtime = runtime

    def hook_name(self) -> str:
        """Java: EndTransactionTraceHookImpl#hookName."""
        return "EndTransactionTraceHook"

    def end_transaction(self, context: EndTransactionContext | None) -> None:
        """Build the EndTransaction context and hand it to the dispatcher.

        Java: EndTransactionTraceHookImpl#endTransaction
        """
        if context is None or context.message is None:
            return
        msg = context.message
        if (msg.topic or "").startswith(self.local_dispatcher.trace_topic_name):
            return
        state = context.transaction_state
        bean = TraceBean(
            topic=msg.topic,
            tags=msg.get_tags(),
            keys=msg.get_keys(),
            store_host=context.broker_addr,
            msg_type=MessageType.Trans_msg_Commit,  # 4.9.3 writes this type for every decision
            client_host=self._client_id(),
            msg_id=context.msg_id,
            transaction_state=state.name if state is not None else None,
            transaction_id=context.transaction_id,
            from_transaction_check=context.from_transaction_check,
        )
        region = msg.get_property(mc.PROPERTY_MSG_REGION)
        trace_context = new_trace_context(self.runtime, TraceType.EndTransaction)  # draws a request id, as Java's
        trace_context.group_name = context.producer_group
        trace_context.region_id = region if region else mix_all.DEFAULT_TRACE_REGION_ID
        trace_context.trace_beans.append(bean)
        trace_context.time_stamp = self.runtime.now_ms()
        self.local_dispatcher.append(trace_context)

    def _client_id(self) -> str | None:
        """The host producer's client id (Java reads it through the dispatcher's host producer)."""
        producer = self.local_dispatcher.host_producer
        factory = getattr(producer, "mq_client_factory", None)
        return factory.client_id if factory is not None else None

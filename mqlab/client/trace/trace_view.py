"""What ``queryMsgTraceById`` shows of one trace record of a message: who, from where, when, how long, outcome.

Java: org.apache.rocketmq.client.trace.TraceView (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from mqlab.client.trace.trace_data_encoder import decoder_from_trace_data_string

if TYPE_CHECKING:
    from mqlab.common.message.message_ext import MessageExt


@dataclass(slots=True, kw_only=True)
class TraceView:
    """One record, flattened; ``msg_type`` is the record's TraceType name, ``status`` ``success`` or ``failed``."""

    msg_id: str | None = None
    tags: str | None = None
    keys: str | None = None
    store_host: str | None = None
    client_host: str | None = None
    cost_time: int = 0
    msg_type: str | None = None
    off_set_msg_id: str | None = None
    time_stamp: int = 0
    born_time: int = 0
    topic: str | None = None
    group_name: str | None = None
    status: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The fields, for JSON output."""
        return asdict(self)

    @staticmethod
    def decode_from_trace_trans_data(key: str, message_ext: MessageExt) -> list[TraceView]:
        """The records of one trace message whose (first) message id is ``key``.

        ``client_host`` is the trace message's born host IP (the node that sent the trace, without the port).

        Java: TraceView#decodeFromTraceTransData
        """
        body = (message_ext.body or b"").decode("utf-8", errors="replace")
        views = []
        for context in decoder_from_trace_data_string(body):
            bean = context.trace_beans[0]
            if bean.msg_id != key:
                continue
            assert context.trace_type is not None
            views.append(
                TraceView(
                    msg_id=bean.msg_id,
                    tags=bean.tags,
                    keys=bean.keys,
                    store_host=bean.store_host,
                    client_host=message_ext.get_born_host_string(),
                    cost_time=context.cost_time,
                    msg_type=context.trace_type.name,
                    off_set_msg_id=bean.offset_msg_id,
                    time_stamp=context.time_stamp,
                    topic=bean.topic,
                    group_name=context.group_name,
                    status="success" if context.is_success else "failed",
                )
            )
        return views

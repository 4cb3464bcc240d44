"""One traced event (a send, a consume start, a consume end) and the messages it concerns.

Java sets ``timeStamp`` to the construction time and ``requestId`` to a new UNIQ_KEY-style id in field
initialisers; mqlab's hooks pass both from the node's clock and id setter (:func:`new_trace_context`).

Java: org.apache.rocketmq.client.trace.TraceContext (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mqlab.common.message.message_client_id_setter import MessageClientIDSetter

if TYPE_CHECKING:
    from mqlab.client.trace.trace_bean import TraceBean
    from mqlab.client.trace.trace_type import TraceType
    from mqlab.runtime.runtime import Runtime


@dataclass(slots=True, kw_only=True)
class TraceContext:
    """Java's fields and defaults (``region_id`` may become None: a consumed message without ``MSG_REGION``)."""

    trace_type: TraceType | None = None
    time_stamp: int = 0
    region_id: str | None = ""
    region_name: str = ""
    group_name: str | None = ""
    cost_time: int = 0
    is_success: bool = True
    request_id: str | None = None
    context_code: int = 0
    trace_beans: list[TraceBean] = field(default_factory=list)

    def __lt__(self, other: TraceContext) -> bool:
        """Ordered by timestamp. Java: TraceContext#compareTo."""
        return self.time_stamp < other.time_stamp


def new_trace_context(runtime: Runtime, trace_type: TraceType | None = None) -> TraceContext:
    """A context stamped now with a fresh request id, as Java's field initialisers make it.

    Java: TraceContext's field initialisers (``System.currentTimeMillis()``, ``MessageClientIDSetter#createUniqID``)
    """
    return TraceContext(
        trace_type=trace_type,
        time_stamp=runtime.now_ms(),
        request_id=MessageClientIDSetter.for_runtime(runtime).create_uniq_id(),
    )

"""One encoded trace context: its text and the keys under which the trace message is indexed.

Java: org.apache.rocketmq.client.trace.TraceTransferBean (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.common.jdk.hash_map import JavaHashSet


@dataclass(slots=True)
class TraceTransferBean:
    """``trans_key`` is a Java HashSet: its iteration order becomes the order of the trace message's KEYS."""

    trans_data: str = ""
    trans_key: JavaHashSet[str] = field(default_factory=JavaHashSet)

"""The kinds of trace record: a send (Pub), a consume start and end (SubBefore, SubAfter), a transaction end.

The member name is the record's first field.

Java: org.apache.rocketmq.client.trace.TraceType (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class TraceType(Enum):
    """Java's member names, also written as text in each record."""

    Pub = "Pub"
    SubBefore = "SubBefore"
    SubAfter = "SubAfter"
    EndTransaction = "EndTransaction"

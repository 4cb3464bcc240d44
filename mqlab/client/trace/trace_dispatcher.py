"""What a trace hook hands its contexts to: start, append, flush, shutdown.

Java: org.apache.rocketmq.client.trace.TraceDispatcher (rocketmq-all-4.9.3), with its nested enum ``Type``
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Protocol


class Type(Enum):
    """Whose traces a dispatcher carries; part of the trace producer's group name.

    Java: TraceDispatcher$Type
    """

    PRODUCE = "PRODUCE"
    CONSUME = "CONSUME"


class TraceDispatcher(Protocol):
    """The dispatcher interface."""

    def start(self, name_srv_addr: str | None, access_channel: str = "LOCAL") -> None:
        """Java: TraceDispatcher#start."""
        ...

    def append(self, ctx: Any) -> bool:
        """Queue a context; False when it was dropped. Java: TraceDispatcher#append."""
        ...

    def flush(self) -> None:
        """Java: TraceDispatcher#flush."""
        ...

    def shutdown(self) -> None:
        """Java: TraceDispatcher#shutdown."""
        ...

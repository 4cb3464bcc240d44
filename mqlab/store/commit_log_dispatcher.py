"""Something that wants to hear about every record reput reads (ConsumeQueue and index builders).

Java: org.apache.rocketmq.store.CommitLogDispatcher (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import Protocol

from mqlab.store.dispatch_request import DispatchRequest


class CommitLogDispatcher(Protocol):
    """Receives each dispatched record."""

    def dispatch(self, request: DispatchRequest) -> None:
        """Handle one record.

        Java: CommitLogDispatcher#dispatch
        """
        ...

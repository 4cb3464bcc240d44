"""The pulls held for one queue (key ``topic@queueId``).

Java: org.apache.rocketmq.broker.longpolling.ManyPullRequest (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from mqlab.broker.longpolling.pull_request import PullRequest


class ManyPullRequest:
    """A synchronized list: add, or take everything out at once."""

    def __init__(self) -> None:
        self.pull_request_list: list[PullRequest] = []
        self._lock = threading.Lock()

    def add_pull_request(self, pull_request: PullRequest | Iterable[PullRequest]) -> None:
        """Add one request or several. Java: ManyPullRequest#addPullRequest (both overloads)."""
        with self._lock:
            if isinstance(pull_request, PullRequest):
                self.pull_request_list.append(pull_request)
            else:
                self.pull_request_list.extend(pull_request)

    def clone_list_and_clear(self) -> list[PullRequest] | None:
        """Everything held, and an empty list behind (``None`` when there was nothing).

        Java: ManyPullRequest#cloneListAndClear
        """
        with self._lock:
            if not self.pull_request_list:
                return None
            result, self.pull_request_list = self.pull_request_list, []
            return result

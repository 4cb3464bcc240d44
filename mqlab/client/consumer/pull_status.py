"""What a pull found, as the client sees it after decoding the broker's response code.

The broker answers SUCCESS (→ FOUND), PULL_NOT_FOUND (→ NO_NEW_MSG), PULL_RETRY_IMMEDIATELY (→ NO_MATCHED_MSG) or
PULL_OFFSET_MOVED (→ OFFSET_ILLEGAL) (``MQClientAPIImpl#processPullResponse``). A FOUND result can still end up with
an empty list after the client's own tag filtering (``PullAPIWrapper#processPullResult``).

Java: org.apache.rocketmq.client.consumer.PullStatus (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from enum import Enum


class PullStatus(Enum):
    """Java member names."""

    FOUND = "FOUND"
    NO_NEW_MSG = "NO_NEW_MSG"
    NO_MATCHED_MSG = "NO_MATCHED_MSG"
    OFFSET_ILLEGAL = "OFFSET_ILLEGAL"

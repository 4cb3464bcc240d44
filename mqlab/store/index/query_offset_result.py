"""What an index lookup returns: candidate CommitLog offsets and how far the index had got.

Java: org.apache.rocketmq.store.index.QueryOffsetResult (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True, frozen=True)
class QueryOffsetResult:
    """Candidate offsets and the index's progress.

    ``phy_offsets`` are the offsets whose entry hash matched the key (newest file first, each chain newest first);
    the other two are the newest file's ``endTimestamp`` and ``endPhyOffset``, which the broker returns in the
    QUERY_MESSAGE response header.
    """

    phy_offsets: list[int]
    index_last_update_timestamp: int
    index_last_update_phyoffset: int

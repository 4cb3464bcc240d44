"""When an appended message is forced to disk: by a background service, or before the producer is answered.

Java: org.apache.rocketmq.store.config.FlushDiskType (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import enum


class FlushDiskType(enum.Enum):
    """Flush policy of the CommitLog (``flushDiskType`` in broker.conf, parsed by member name)."""

    # The put waits (up to syncFlushTimeout) for GroupCommitService to flush past the message.
    SYNC_FLUSH = enum.auto()
    # The put returns once the bytes are in the page cache; FlushRealTimeService flushes every 500 ms.
    ASYNC_FLUSH = enum.auto()

"""A snapshot of one ProcessQueue for the admin tools (part of a consumer's running info).

``ProcessQueue#fill_process_queue_info`` fills it: the cached messages (count, size in MiB, first and last offset),
the messages an orderly consumer has taken but not committed ("transaction" messages in Java's naming), the lock
state and the last pull / consume times. Java writes ``dropped`` as ``droped``; mqlab names the field correctly and
keeps Java's spelling in the JSON.

Java: org.apache.rocketmq.common.protocol.body.ProcessQueueInfo (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import tzinfo

from mqlab.common.mix_all import java_to_string
from mqlab.common.util_all import time_millis_to_human_string


@dataclass(slots=True)
class ProcessQueueInfo:
    """Offsets, counts and times (epoch ms) as Java's bean holds them; all zero or false until filled."""

    commit_offset: int = 0
    cached_msg_min_offset: int = 0
    cached_msg_max_offset: int = 0
    cached_msg_count: int = 0
    cached_msg_size_in_mib: int = field(default=0, metadata={"json": "cachedMsgSizeInMiB"})
    transaction_msg_min_offset: int = 0
    transaction_msg_max_offset: int = 0
    transaction_msg_count: int = 0
    locked: bool = False
    try_unlock_times: int = 0
    last_lock_timestamp: int = 0
    dropped: bool = field(default=False, metadata={"json": "droped"})
    last_pull_timestamp: int = 0
    last_consume_timestamp: int = 0

    def to_string(self, tz: tzinfo) -> str:
        """Java's ``toString``; the three timestamps are written as ``yyyyMMddHHmmssSSS`` in ``tz``.

        Java: ProcessQueueInfo#toString
        """
        return (
            f"ProcessQueueInfo [commitOffset={self.commit_offset}, cachedMsgMinOffset={self.cached_msg_min_offset}, "
            f"cachedMsgMaxOffset={self.cached_msg_max_offset}, cachedMsgCount={self.cached_msg_count}, "
            f"cachedMsgSizeInMiB={self.cached_msg_size_in_mib}, "
            f"transactionMsgMinOffset={self.transaction_msg_min_offset}, "
            f"transactionMsgMaxOffset={self.transaction_msg_max_offset}, "
            f"transactionMsgCount={self.transaction_msg_count}, locked={java_to_string(self.locked)}, "
            f"tryUnlockTimes={self.try_unlock_times}, "
            f"lastLockTimestamp={time_millis_to_human_string(self.last_lock_timestamp, tz)}, "
            f"droped={java_to_string(self.dropped)}, "
            f"lastPullTimestamp={time_millis_to_human_string(self.last_pull_timestamp, tz)}, "
            f"lastConsumeTimestamp={time_millis_to_human_string(self.last_consume_timestamp, tz)}]"
        )

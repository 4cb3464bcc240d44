"""One broker's entry in the producer's fault table: its last latency and when it may be used again.

Java: org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl$FaultItem (rocketmq-all-4.9.3), an inner class
promoted to this module. Java's ``isAvailable`` and ``compareTo`` read the wall clock; here the caller passes the
time.
"""

from __future__ import annotations


class FaultItem:
    """``name`` is unavailable until ``start_timestamp`` (epoch ms); ``current_latency`` is the last send's latency."""

    __slots__ = ("current_latency", "name", "start_timestamp")

    def __init__(self, name: str):
        self.name = name
        self.current_latency = 0
        self.start_timestamp = 0

    def is_available(self, now_ms: int) -> bool:
        """Whether the isolation window is over (the start time is reached).

        Java: LatencyFaultToleranceImpl$FaultItem#isAvailable
        """
        return now_ms - self.start_timestamp >= 0

    def sort_key(self, now_ms: int) -> tuple[bool, int, int]:
        """Java's ordering as a key: available items first, then lower latency, then the earlier start time.

        Java: LatencyFaultToleranceImpl$FaultItem#compareTo
        """
        return (not self.is_available(now_ms), self.current_latency, self.start_timestamp)

    def __str__(self) -> str:
        return (
            f"FaultItem{{name='{self.name}', currentLatency={self.current_latency}, "
            f"startTimestamp={self.start_timestamp}}}"
        )

"""A version stamp of the broker's topic configuration: a timestamp and a counter.

Java: org.apache.rocketmq.common.DataVersion (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class DataVersion:
    """Equal versions mean "nothing changed"; the name server rebuilds queue data only on a change."""

    timestamp: int = 0
    counter: int = 0

    def next_version(self, now_ms: int) -> None:
        """Bump: new timestamp, counter + 1. Java: DataVersion#nextVersion (the time is passed in)."""
        self.timestamp = now_ms
        self.counter += 1

    def assign_new_one(self, other: DataVersion) -> None:
        """Copy another version. Java: DataVersion#assignNewOne."""
        self.timestamp = other.timestamp
        self.counter = other.counter

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> DataVersion:
        """From the decoded JSON object."""
        data = data or {}
        return cls(int(data.get("timestamp", 0)), int(data.get("counter", 0)))

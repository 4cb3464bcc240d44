"""The bookkeeping a producer keeps about slow or failing brokers, as an interface.

Java: org.apache.rocketmq.client.latency.LatencyFaultTolerance (rocketmq-all-4.9.3)
Implementation: ``mqlab.client.latency.latency_fault_tolerance_impl.LatencyFaultToleranceImpl``
"""

from __future__ import annotations

from typing import Protocol, TypeVar

T = TypeVar("T")


class LatencyFaultTolerance(Protocol[T]):
    """Fault items keyed by name (a broker name): when each becomes available again and how slow it was."""

    def update_fault_item(self, name: T, current_latency: int, not_available_duration: int) -> None:
        """Record a send latency and keep ``name`` unavailable for ``not_available_duration`` ms from now.

        Java: LatencyFaultTolerance#updateFaultItem
        """
        ...

    def is_available(self, name: T) -> bool:
        """Whether ``name`` has no fault item or its isolation window is over.

        Java: LatencyFaultTolerance#isAvailable
        """
        ...

    def remove(self, name: T) -> None:
        """Forget ``name``.

        Java: LatencyFaultTolerance#remove
        """
        ...

    def pick_one_at_least(self) -> T | None:
        """A name from the better half of the fault items (None when there are none).

        Java: LatencyFaultTolerance#pickOneAtLeast
        """
        ...

"""The producer's fault table: broker name → FaultItem, consulted only when ``sendLatencyFaultEnable`` is on.

After every send attempt the producer records how long it took; MQFaultStrategy turns that latency into an
isolation window (0 ms for fast sends, up to 10 minutes after an exception) and stores it here. When every broker
of a topic is isolated, ``pick_one_at_least`` still names one: it shuffles the items, sorts them (available first,
then by latency, then by when they become available) and takes one of the better half in round robin.

Java: org.apache.rocketmq.client.latency.LatencyFaultToleranceImpl (rocketmq-all-4.9.3)
Promoted inner class: FaultItem (``mqlab.client.latency.fault_item``)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from mqlab.client.common.thread_local_index import ThreadLocalIndex, java_int_rem
from mqlab.client.latency.fault_item import FaultItem

if TYPE_CHECKING:
    from random import Random


class LatencyFaultToleranceImpl:
    """Fault items by broker name, with times from an injected clock.

    Args:
        now_ms: The clock (epoch ms; Java: ``System.currentTimeMillis()``).
        rng: The node's random stream: the shuffle in ``pick_one_at_least`` (Java: ``Collections.shuffle``'s own
            Random) and the seed of ``which_item_worst``.
    """

    def __init__(self, now_ms: Callable[[], int], rng: Random):
        self._now_ms = now_ms
        self._random = rng
        # Java: ConcurrentHashMap; pick_one_at_least shuffles before it sorts, so the iteration order never shows.
        self.fault_item_table: dict[str, FaultItem] = {}
        self.which_item_worst = ThreadLocalIndex(rng)
        self._lock = threading.Lock()

    def update_fault_item(self, name: str, current_latency: int, not_available_duration: int) -> None:
        """Record ``current_latency`` and make ``name`` unavailable until now + ``not_available_duration``.

        Java: LatencyFaultToleranceImpl#updateFaultItem
        """
        with self._lock:
            item = self.fault_item_table.get(name)
            if item is None:
                item = self.fault_item_table[name] = FaultItem(name)
            item.current_latency = current_latency
            item.start_timestamp = self._now_ms() + not_available_duration

    def is_available(self, name: str) -> bool:
        """True unless ``name`` has a fault item whose window is not over.

        Java: LatencyFaultToleranceImpl#isAvailable
        """
        item = self.fault_item_table.get(name)
        return item is None or item.is_available(self._now_ms())

    def remove(self, name: str | None) -> None:
        """Forget ``name`` (None is ignored; Java's ConcurrentHashMap throws, and its caller falls back anyway).

        Java: LatencyFaultToleranceImpl#remove
        """
        if name is None:
            return
        with self._lock:
            self.fault_item_table.pop(name, None)

    def pick_one_at_least(self) -> str | None:
        """The least bad broker: shuffle, sort (available, latency, start time), round robin over the better half.

        With one item it is returned; with none, None. Java's sort is stable, so equal items keep their shuffled
        order; Python's ``sort`` is stable too.

        Java: LatencyFaultToleranceImpl#pickOneAtLeast
        """
        items = list(self.fault_item_table.values())
        if not items:
            return None
        self._random.shuffle(items)
        now = self._now_ms()
        items.sort(key=lambda item: item.sort_key(now))
        half = len(items) // 2
        if half <= 0:
            return items[0].name
        i = java_int_rem(self.which_item_worst.increment_and_get(), half)
        if i < 0:
            # Only after the counter wrapped to Integer.MIN_VALUE; Java's LinkedList#get throws here.
            raise IndexError(f"fault item index {i}")
        return items[i].name

    def __str__(self) -> str:
        table = ", ".join(f"{name}={item}" for name, item in self.fault_item_table.items())
        return f"LatencyFaultToleranceImpl{{faultItemTable={{{table}}}, whichItemWorst={self.which_item_worst}}}"

"""Hook reput calls after dispatching a record, so the broker can wake parked long-polling pulls.

Java: org.apache.rocketmq.store.MessageArrivingListener (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import Protocol


class MessageArrivingListener(Protocol):
    """Told that queue ``(topic, queue_id)`` now has ``logic_offset`` (= the new max offset)."""

    def arriving(
        self,
        topic: str,
        queue_id: int,
        logic_offset: int,
        tags_code: int,
        msg_store_time: int,
        filter_bit_map: bytes | None,
        properties: dict[str, str] | None,
    ) -> None:
        """A message arrived.

        Java: MessageArrivingListener#arriving
        """
        ...

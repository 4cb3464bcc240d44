"""The store's hook into long polling: every dispatched message may wake the pulls held for its queue.

Java: org.apache.rocketmq.broker.longpolling.NotifyMessageArrivingListener (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqlab.broker.longpolling.pull_request_hold_service import PullRequestHoldService


class NotifyMessageArrivingListener:
    """A ``MessageArrivingListener`` (``mqlab.store.message_arriving_listener``) forwarding to the hold service."""

    def __init__(self, pull_request_hold_service: PullRequestHoldService):
        self.pull_request_hold_service = pull_request_hold_service

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
        """Reput dispatched a message: ``logic_offset`` is the queue's new max offset.

        Java: NotifyMessageArrivingListener#arriving
        """
        self.pull_request_hold_service.notify_message_arriving(
            topic, queue_id, logic_offset, tags_code, msg_store_time, filter_bit_map, properties
        )

"""Tells AllocateMachineRoomNearby which machine room (data centre) a broker's queue and a consumer live in.

Java: org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby$MachineRoomResolver
(rocketmq-all-4.9.3; an interface nested in AllocateMachineRoomNearby, promoted here)
"""

from __future__ import annotations

from typing import Protocol

from mqlab.common.message.message_queue import MessageQueue


class MachineRoomResolver(Protocol):
    """Two lookups supplied by the user; neither may answer None or an empty string for a queue or consumer."""

    def broker_deploy_in(self, message_queue: MessageQueue) -> str | None:
        """The room of the broker hosting ``message_queue``.

        Java: AllocateMachineRoomNearby$MachineRoomResolver#brokerDeployIn
        """
        ...

    def consumer_deploy_in(self, client_id: str) -> str | None:
        """The room of the consumer ``client_id``.

        Java: AllocateMachineRoomNearby$MachineRoomResolver#consumerDeployIn
        """
        ...

"""Prefer consumers in the broker's own machine room; share a room's queues with everyone only if it has none.

Java: org.apache.rocketmq.client.consumer.rebalance.AllocateMachineRoomNearby (rocketmq-all-4.9.3)
Promoted nested interface: MachineRoomResolver (``machine_room_resolver.py``)

A proxy around another strategy. Queues and consumers are grouped by room (rooms in sorted order, as Java's
TreeMap keeps them; inside a room, input order). The current consumer gets the inner strategy's share of its own
room's queues among its own room's consumers, then, for every room that has queues but no consumer at all, its
share of that room's queues among all consumers of the group.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cmp_to_key

from mqlab.client.consumer.allocate_message_queue_strategy import AllocateMessageQueueStrategy
from mqlab.client.consumer.rebalance.abstract_allocate_message_queue_strategy import (
    AbstractAllocateMessageQueueStrategy,
    AllocateArgumentError,
)
from mqlab.client.consumer.rebalance.machine_room_resolver import MachineRoomResolver
from mqlab.common.jdk.string_hash import java_string_compare
from mqlab.common.message.message_queue import MessageQueue

_JAVA_STRING_ORDER = cmp_to_key(java_string_compare)


class MachineRoomUnknownError(AllocateArgumentError):
    """The resolver answered None or an empty room for a queue or a consumer (Java: IllegalArgumentException)."""


class AllocateMachineRoomNearby(AbstractAllocateMessageQueueStrategy):
    """Room-aware proxy (``"MACHINE_ROOM_NEARBY-" + inner name``).

    Attributes:
        allocate_message_queue_strategy: The inner strategy that does the actual split inside each group.
        machine_room_resolver: Where queues and consumers live.
    """

    def __init__(
        self, allocate_message_queue_strategy: AllocateMessageQueueStrategy, machine_room_resolver: MachineRoomResolver
    ) -> None:
        # Java throws NullPointerException for either argument being null.
        if allocate_message_queue_strategy is None:
            raise TypeError("allocateMessageQueueStrategy is null")
        if machine_room_resolver is None:
            raise TypeError("machineRoomResolver is null")
        self.allocate_message_queue_strategy = allocate_message_queue_strategy
        self.machine_room_resolver = machine_room_resolver

    def allocate(
        self,
        consumer_group: str,
        current_cid: str | None,
        mq_all: Sequence[MessageQueue] | None,
        cid_all: Sequence[str] | None,
    ) -> list[MessageQueue]:
        """Own room first (among own room's consumers), then consumer-less rooms in room order (among everyone).

        Java: AllocateMachineRoomNearby#allocate
        """
        if not self.check(consumer_group, current_cid, mq_all, cid_all):
            return []
        mr2mq = self.group_queues_by_room(mq_all)
        mr2c = self.group_consumers_by_room(cid_all)
        inner = self.allocate_message_queue_strategy

        allocate_results: list[MessageQueue] = []
        current_machine_room = self.machine_room_resolver.consumer_deploy_in(current_cid)
        mq_in_this_machine_room = mr2mq.pop(current_machine_room, None)
        if mq_in_this_machine_room:
            allocate_results += inner.allocate(
                consumer_group, current_cid, mq_in_this_machine_room, mr2c[current_machine_room]
            )
        for machine_room, queues in mr2mq.items():
            if machine_room not in mr2c:  # nobody alive there: every consumer of the group shares these queues
                allocate_results += inner.allocate(consumer_group, current_cid, queues, cid_all)
        return allocate_results

    def group_queues_by_room(self, mq_all: Sequence[MessageQueue]) -> dict[str, list[MessageQueue]]:
        """Room → its queues, rooms in Java String order (the TreeMap), queues in input order.

        Java: the mr2Mq loop of AllocateMachineRoomNearby#allocate
        """
        groups: dict[str, list[MessageQueue]] = {}
        for mq in mq_all:
            room = self.machine_room_resolver.broker_deploy_in(mq)
            if not room:
                raise MachineRoomUnknownError(f"Machine room is null for mq {mq}")
            groups.setdefault(room, []).append(mq)
        return {room: groups[room] for room in sorted(groups, key=_JAVA_STRING_ORDER)}

    def group_consumers_by_room(self, cid_all: Sequence[str]) -> dict[str, list[str]]:
        """Room → its consumer ids, rooms in Java String order, ids in input order.

        Java: the mr2c loop of AllocateMachineRoomNearby#allocate
        """
        groups: dict[str, list[str]] = {}
        for cid in cid_all:
            room = self.machine_room_resolver.consumer_deploy_in(cid)
            if not room:
                raise MachineRoomUnknownError(f"Machine room is null for consumer id {cid}")
            groups.setdefault(room, []).append(cid)
        return {room: groups[room] for room in sorted(groups, key=_JAVA_STRING_ORDER)}

    def get_name(self) -> str:
        """``"MACHINE_ROOM_NEARBY-"`` plus the inner strategy's name. Java: AllocateMachineRoomNearby#getName."""
        return f"MACHINE_ROOM_NEARBY-{self.allocate_message_queue_strategy.get_name()}"

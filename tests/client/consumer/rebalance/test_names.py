import pytest

from mqlab.client.consumer.rebalance.allocate_machine_room_nearby import AllocateMachineRoomNearby
from mqlab.client.consumer.rebalance.allocate_message_queue_averagely import AllocateMessageQueueAveragely
from mqlab.client.consumer.rebalance.allocate_message_queue_averagely_by_circle import (
    AllocateMessageQueueAveragelyByCircle,
)
from mqlab.client.consumer.rebalance.allocate_message_queue_by_config import AllocateMessageQueueByConfig
from mqlab.client.consumer.rebalance.allocate_message_queue_by_machine_room import AllocateMessageQueueByMachineRoom
from mqlab.client.consumer.rebalance.allocate_message_queue_consistent_hash import AllocateMessageQueueConsistentHash
from tests.client.consumer.rebalance.allocation_helpers import PrefixResolver


@pytest.mark.spec("ALLOC-5")
@pytest.mark.parametrize(
    ("strategy", "name"),
    [
        (AllocateMessageQueueAveragely(), "AVG"),  # AllocateMessageQueueAveragely#getName
        (AllocateMessageQueueAveragelyByCircle(), "AVG_BY_CIRCLE"),
        (AllocateMessageQueueByConfig(), "CONFIG"),
        (AllocateMessageQueueByMachineRoom(), "MACHINE_ROOM"),
        (AllocateMessageQueueConsistentHash(), "CONSISTENT_HASH"),
        (AllocateMachineRoomNearby(AllocateMessageQueueAveragely(), PrefixResolver()), "MACHINE_ROOM_NEARBY-AVG"),
        (
            AllocateMachineRoomNearby(AllocateMessageQueueConsistentHash(3), PrefixResolver()),
            "MACHINE_ROOM_NEARBY-CONSISTENT_HASH",
        ),
    ],
)
def test_names_are_javas(strategy, name):
    assert strategy.get_name() == name

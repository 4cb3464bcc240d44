import pytest

from mqlab.client.consumer.rebalance.allocate_message_queue_by_machine_room import (
    AllocateMessageQueueByMachineRoom,
    ConsumerIdcsNotSetError,
    java_split_at,
)
from mqlab.common.message.message_queue import MessageQueue
from tests.client.consumer.rebalance.allocation_helpers import WORKED_CIDS, WORKED_QUEUES, allocate_all, indices


@pytest.mark.spec("ALLOC-8", "ALLOC-19")
def test_worked_example_like_java():
    # Only the 4 "hz" queues count; 4 = 3 * 1 + 1: one each, and the leftover (hz queue 3) to the first consumer.
    result = allocate_all(AllocateMessageQueueByMachineRoom({"hz"}), WORKED_QUEUES, WORKED_CIDS)
    assert indices(result, WORKED_QUEUES) == [[0, 3], [1], [2]]


@pytest.mark.spec("ALLOC-8")
def test_both_rooms_blocks_then_leftovers():
    result = allocate_all(AllocateMessageQueueByMachineRoom({"hz", "sh"}), WORKED_QUEUES, WORKED_CIDS)
    # 8 = 3 * 2 + 2: blocks [0,1] [2,3] [4,5], leftovers 6 and 7 to the first two consumers.
    assert indices(result, WORKED_QUEUES) == [[0, 1, 6], [2, 3, 7], [4, 5]]


@pytest.mark.spec("ALLOC-8")
@pytest.mark.parametrize(
    ("name", "parts"),
    [  # String#split("@") of the compiled JDK 17, printed by the Java driver
        ("hz@broker-a", ["hz", "broker-a"]),
        ("hz@", ["hz"]),
        ("@b", ["", "b"]),
        ("a@b@", ["a", "b"]),
        ("a@b@c", ["a", "b", "c"]),
        ("@", []),
        ("", [""]),
        ("a@@", ["a"]),
        ("broker-a", ["broker-a"]),
        ("@@", []),
        ("a@@b", ["a", "", "b"]),
    ],
)
def test_java_split(name, parts):
    assert java_split_at(name) == parts


@pytest.mark.spec("ALLOC-8")
def test_room_filter_uses_java_split():
    queues = [MessageQueue("T", name, 0) for name in ["hz@a", "hz@a@", "hz@a@b", "hz@", "hz", "@hz", "sh@a"]]
    kept = AllocateMessageQueueByMachineRoom({"hz", ""}).filter_by_room(queues)
    # "hz@a@" splits in two like "hz@a"; "@hz" has an empty room, which is configured here.
    assert [mq.broker_name for mq in kept] == ["hz@a", "hz@a@", "@hz"]


@pytest.mark.spec("ALLOC-8")
def test_unset_rooms_fail_only_when_a_room_name_is_met():
    strategy = AllocateMessageQueueByMachineRoom()
    plain = [MessageQueue("T", "broker-a", i) for i in range(3)]
    assert strategy.allocate("G", "c1", plain, ["c1"]) == []
    with pytest.raises(ConsumerIdcsNotSetError, match="hz@broker-a"):
        strategy.allocate("G", "c1", WORKED_QUEUES, ["c1"])
    strategy.consumeridcs = {"sh"}  # Java: setConsumeridcs
    assert strategy.allocate("G", "c1", WORKED_QUEUES, ["c1"]) == WORKED_QUEUES[4:]

import pytest

from mqlab.client.consumer.rebalance.abstract_allocate_message_queue_strategy import AllocateArgumentError
from mqlab.client.consumer.rebalance.allocate_machine_room_nearby import (
    AllocateMachineRoomNearby,
    MachineRoomUnknownError,
)
from mqlab.client.consumer.rebalance.allocate_message_queue_averagely import AllocateMessageQueueAveragely
from mqlab.client.consumer.rebalance.allocate_message_queue_consistent_hash import AllocateMessageQueueConsistentHash
from mqlab.common.message.message_queue import MessageQueue
from tests.client.consumer.rebalance.allocation_helpers import (
    WORKED_BROKER_ROOMS,
    WORKED_CIDS,
    WORKED_QUEUES,
    DictResolver,
    PrefixResolver,
    allocate_all,
    indices,
)

ROOMS_HZ_HZ_SH = dict(zip(WORKED_CIDS, ["hz", "hz", "sh"], strict=True))
ROOMS_HZ_HZ_BJ = dict(zip(WORKED_CIDS, ["hz", "hz", "bj"], strict=True))


def nearby(inner, consumer_rooms):
    return AllocateMachineRoomNearby(inner, DictResolver(WORKED_BROKER_ROOMS, consumer_rooms))


@pytest.mark.spec("ALLOC-14", "ALLOC-19")
@pytest.mark.parametrize(
    ("inner", "consumer_rooms", "expected"),
    [  # printed by the compiled 4.9.3 AllocateMachineRoomNearby over the worked example
        (AllocateMessageQueueAveragely(), ROOMS_HZ_HZ_SH, [[0, 1], [2, 3], [4, 5, 6, 7]]),
        # Nobody in "sh": its queues are shared by all three, the "bj" consumer included.
        (AllocateMessageQueueAveragely(), ROOMS_HZ_HZ_BJ, [[0, 1, 4, 5], [2, 3, 6], [7]]),
        (AllocateMessageQueueConsistentHash(), ROOMS_HZ_HZ_BJ, [[2, 4, 5, 6], [0, 1, 3, 7], []]),
    ],
    ids=["AVG-every-room-served", "AVG-sh-unserved", "CONSISTENT_HASH-sh-unserved"],
)
def test_worked_example_like_java(inner, consumer_rooms, expected):
    result = allocate_all(nearby(inner, consumer_rooms), WORKED_QUEUES, WORKED_CIDS)
    assert indices(result, WORKED_QUEUES) == expected


# --- RocketMQ 4.9.3 AllocateMachineRoomNearByTest -----------------------------------------------------------------


def create_message_queue_list(machine_room: str, size: int) -> list[MessageQueue]:
    return [MessageQueue("topic_test", f"{machine_room}-brokerName", i) for i in range(size)]


def prepare_mq(broker_idc_size: int, queue_size: int) -> list[MessageQueue]:
    return [mq for i in range(1, broker_idc_size + 1) for mq in create_message_queue_list(f"IDC{i}", queue_size)]


def prepare_consumer(idc_size: int, consumer_size: int) -> list[str]:
    return [f"IDC{i}-CID-{j}" for i in range(1, idc_size + 1) for j in range(consumer_size)]


RESOLVER = PrefixResolver()
STRATEGY = AllocateMachineRoomNearby(AllocateMessageQueueAveragely(), RESOLVER)


def assert_allocated_all_once(mq_all, results):
    allocated = [mq for queues in results.values() for mq in queues]
    assert sorted(allocated) == sorted(mq_all)


@pytest.mark.spec("ALLOC-14")
@pytest.mark.parametrize(("idc_size", "queue_size", "consumer_size"), [(5, 20, 10), (5, 20, 20), (5, 20, 30)])
def test_when_idc_size_equals(idc_size, queue_size, consumer_size):
    cid_all, mq_all = prepare_consumer(idc_size, consumer_size), prepare_mq(idc_size, queue_size)
    results = allocate_all(STRATEGY, mq_all, cid_all)
    for cid, queues in results.items():
        assert all(RESOLVER.broker_deploy_in(mq) == RESOLVER.consumer_deploy_in(cid) for mq in queues)
    assert_allocated_all_once(mq_all, results)


@pytest.mark.spec("ALLOC-1")
def test_java_test1_zero_consumers_is_an_error_here():
    # The Java test calls testWhenIDCSizeEquals(5, 20, 0): with no consumer its loop never calls allocate. Calling
    # it anyway with an empty id list is the argument error every strategy raises.
    with pytest.raises(AllocateArgumentError):
        STRATEGY.allocate("Test-C-G", "IDC1-CID-0", prepare_mq(5, 20), prepare_consumer(5, 0))


@pytest.mark.spec("ALLOC-14")
@pytest.mark.parametrize(("consumer_more", "queue_size", "consumer_size"), [(1, 10, 10), (1, 10, 5), (1, 10, 20)])
def test_when_consumer_idc_is_more(consumer_more, queue_size, consumer_size):
    broker_idc_size = 5
    cid_all = prepare_consumer(broker_idc_size + consumer_more, consumer_size)
    mq_all = prepare_mq(broker_idc_size, queue_size)
    served = {RESOLVER.broker_deploy_in(mq) for mq in mq_all}
    results = allocate_all(STRATEGY, mq_all, cid_all)
    for cid, queues in results.items():
        for mq in queues:
            if RESOLVER.broker_deploy_in(mq) in served:
                assert RESOLVER.broker_deploy_in(mq) == RESOLVER.consumer_deploy_in(cid)
    # The extra room (IDC6) has consumers but no brokers: its consumers stay idle.
    assert all(not queues for cid, queues in results.items() if cid.startswith("IDC6-"))
    assert_allocated_all_once(mq_all, results)


@pytest.mark.spec("ALLOC-14")
@pytest.mark.parametrize(("consumer_less", "queue_size", "consumer_size"), [(2, 10, 10), (2, 10, 5), (2, 10, 20)])
def test_when_consumer_idc_is_less(consumer_less, queue_size, consumer_size):
    broker_idc_size = 5
    cid_all = prepare_consumer(broker_idc_size - consumer_less, consumer_size)
    mq_all = prepare_mq(broker_idc_size, queue_size)
    healthy = {RESOLVER.consumer_deploy_in(cid) for cid in cid_all}
    results = allocate_all(STRATEGY, mq_all, cid_all)
    by_room: dict[str, list[MessageQueue]] = {}
    for cid, queues in results.items():
        by_room.setdefault(RESOLVER.consumer_deploy_in(cid), []).extend(queues)
    for room in healthy:
        assert set(create_message_queue_list(room, queue_size)) <= set(by_room[room])
    assert_allocated_all_once(mq_all, results)


@pytest.mark.spec("ALLOC-14")
def test_own_room_first_then_rooms_without_consumers_in_java_string_order():
    # Java orders rooms by UTF-16 code units: "\U0001f600" (0xD83D 0xDE00) before "\uffff", unlike Python, and the
    # own room "\uffff\uffff" last of all; yet the own room's queues come first in the result.
    rooms = ["\uffff", "\U0001f600", "\uffff\uffff"]
    queues = [MessageQueue("T", room, 0) for room in rooms]
    resolver = DictResolver({room: room for room in rooms}, {"c": "\uffff\uffff"})
    got = AllocateMachineRoomNearby(AllocateMessageQueueAveragely(), resolver).allocate("G", "c", queues, ["c"])
    assert [mq.broker_name for mq in got] == ["\uffff\uffff", "\U0001f600", "\uffff"]


@pytest.mark.spec("ALLOC-14")
@pytest.mark.parametrize("room", [None, ""])
def test_unknown_rooms_are_argument_errors(room):
    queue_rooms = dict(WORKED_BROKER_ROOMS, **{"sh@broker-b": room})
    strategy = AllocateMachineRoomNearby(AllocateMessageQueueAveragely(), DictResolver(queue_rooms, ROOMS_HZ_HZ_SH))
    with pytest.raises(MachineRoomUnknownError, match=r"Machine room is null for mq MessageQueue \[topic=TopicTest"):
        strategy.allocate("G", WORKED_CIDS[0], WORKED_QUEUES, WORKED_CIDS)
    strategy = nearby(AllocateMessageQueueAveragely(), dict(ROOMS_HZ_HZ_SH, **{WORKED_CIDS[2]: room}))
    with pytest.raises(MachineRoomUnknownError, match=r"Machine room is null for consumer id 10\.0\.0\.3@1003"):
        strategy.allocate("G", WORKED_CIDS[0], WORKED_QUEUES, WORKED_CIDS)


@pytest.mark.spec("ALLOC-14")
def test_constructor_needs_both_collaborators():
    with pytest.raises(TypeError, match="allocateMessageQueueStrategy is null"):
        AllocateMachineRoomNearby(None, RESOLVER)
    with pytest.raises(TypeError, match="machineRoomResolver is null"):
        AllocateMachineRoomNearby(AllocateMessageQueueAveragely(), None)

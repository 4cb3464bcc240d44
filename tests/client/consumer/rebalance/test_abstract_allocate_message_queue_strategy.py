import pytest

from mqlab.client.consumer.rebalance.abstract_allocate_message_queue_strategy import (
    AllocateArgumentError,
    EmptyConsumerIdListError,
    EmptyCurrentCidError,
    EmptyMessageQueueListError,
)
from mqlab.client.consumer.rebalance.allocate_machine_room_nearby import AllocateMachineRoomNearby
from mqlab.client.consumer.rebalance.allocate_message_queue_averagely import AllocateMessageQueueAveragely
from mqlab.client.consumer.rebalance.allocate_message_queue_averagely_by_circle import (
    AllocateMessageQueueAveragelyByCircle,
)
from mqlab.client.consumer.rebalance.allocate_message_queue_by_machine_room import AllocateMessageQueueByMachineRoom
from mqlab.client.consumer.rebalance.allocate_message_queue_consistent_hash import AllocateMessageQueueConsistentHash
from tests.client.consumer.rebalance.allocation_helpers import (
    WORKED_BROKER_ROOMS,
    WORKED_CIDS,
    WORKED_QUEUES,
    DictResolver,
)

EVERYONE = {cid: "hz" for cid in [*WORKED_CIDS, " ", "\t", "nobody@1"]}

CHECKING = {
    "AVG": AllocateMessageQueueAveragely,
    "AVG_BY_CIRCLE": AllocateMessageQueueAveragelyByCircle,
    "CONSISTENT_HASH": AllocateMessageQueueConsistentHash,
    "MACHINE_ROOM": lambda: AllocateMessageQueueByMachineRoom({"hz", "sh"}),
    "MACHINE_ROOM_NEARBY-AVG": lambda: AllocateMachineRoomNearby(
        AllocateMessageQueueAveragely(), DictResolver(WORKED_BROKER_ROOMS, EVERYONE)
    ),
}
strategies = pytest.mark.parametrize("factory", CHECKING.values(), ids=CHECKING.keys())


@pytest.mark.spec("ALLOC-1")
@strategies
@pytest.mark.parametrize(
    ("current_cid", "mq_all", "cid_all", "error"),
    [
        (None, WORKED_QUEUES, WORKED_CIDS, EmptyCurrentCidError),
        ("", WORKED_QUEUES, WORKED_CIDS, EmptyCurrentCidError),
        ("10.0.0.1@1001", None, WORKED_CIDS, EmptyMessageQueueListError),
        ("10.0.0.1@1001", [], WORKED_CIDS, EmptyMessageQueueListError),
        ("10.0.0.1@1001", WORKED_QUEUES, None, EmptyConsumerIdListError),
        ("10.0.0.1@1001", WORKED_QUEUES, [], EmptyConsumerIdListError),
        # Java's order: the current id first, then the queues, then the ids.
        ("", [], [], EmptyCurrentCidError),
        ("nobody@1", [], [], EmptyMessageQueueListError),
        ("nobody@1", WORKED_QUEUES, [], EmptyConsumerIdListError),
    ],
)
def test_empty_arguments_raise_illegal_argument_errors(factory, current_cid, mq_all, cid_all, error):
    with pytest.raises(error) as info:
        factory().allocate("G", current_cid, mq_all, cid_all)
    assert isinstance(info.value, AllocateArgumentError)
    assert isinstance(info.value, ValueError)


@pytest.mark.spec("ALLOC-1")
def test_error_messages_are_javas():
    assert str(EmptyMessageQueueListError()) == "mqAll is null or mqAll empty"
    assert str(EmptyConsumerIdListError()) == "cidAll is null or cidAll empty"
    assert str(EmptyCurrentCidError("")).startswith("currentCID is empty")
    assert EmptyCurrentCidError(None).current_cid is None


@pytest.mark.spec("ALLOC-2")
@pytest.mark.parametrize("blank", [" ", "\t", "\u3000 \n"])
def test_only_by_machine_room_rejects_a_whitespace_current_cid(blank):
    with pytest.raises(EmptyCurrentCidError):
        CHECKING["MACHINE_ROOM"]().allocate("G", blank, WORKED_QUEUES, WORKED_CIDS)


@pytest.mark.spec("ALLOC-2")
def test_java_whitespace_decides_blank_so_a_no_break_space_is_an_id():
    # Character.isWhitespace excludes U+00A0: StringUtils.isBlank("\u00a0") is false, so this is just a missing id.
    assert CHECKING["MACHINE_ROOM"]().allocate("G", "\u00a0", WORKED_QUEUES, WORKED_CIDS) == []


@pytest.mark.spec("ALLOC-2")
@pytest.mark.parametrize(
    "factory",
    [f for name, f in CHECKING.items() if name != "MACHINE_ROOM"],
    ids=[name for name in CHECKING if name != "MACHINE_ROOM"],
)
def test_the_others_treat_whitespace_as_an_ordinary_id(factory):
    strategy = factory()
    assert strategy.allocate("G", " ", WORKED_QUEUES, WORKED_CIDS) == []
    # A whitespace id that is a member of the group gets a share like any other id.
    got = strategy.allocate("G", " ", WORKED_QUEUES, [" "])
    assert got == WORKED_QUEUES


@pytest.mark.spec("ALLOC-3")
@strategies
def test_a_consumer_missing_from_the_group_gets_nothing(factory):
    assert factory().allocate("G", "nobody@1", WORKED_QUEUES, WORKED_CIDS) == []
    # As in RocketMQ's AllocateMessageQueueAveragelyByCircleTest: a prefix of the ids is not a member.
    assert factory().allocate("G", "10.0.0.1", WORKED_QUEUES, WORKED_CIDS) == []

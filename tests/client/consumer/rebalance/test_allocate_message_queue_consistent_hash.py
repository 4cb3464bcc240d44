import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.client.consumer.rebalance.abstract_allocate_message_queue_strategy import (
    EmptyConsumerIdListError,
    EmptyCurrentCidError,
    EmptyMessageQueueListError,
)
from mqlab.client.consumer.rebalance.allocate_message_queue_consistent_hash import AllocateMessageQueueConsistentHash
from mqlab.common.consistenthash.consistent_hash_router import IllegalVirtualNodeCountError
from mqlab.common.message.message_queue import MessageQueue
from tests.client.consumer.rebalance.allocation_helpers import (
    WORKED_CIDS,
    WORKED_QUEUES,
    allocate_all,
    consumer_id_lists,
    indices,
    queue_lists,
)


def java_test_queues(size: int) -> list[MessageQueue]:
    """AllocateMessageQueueConsitentHashTest#createMessageQueueList (sic: "Consitent" is the Java file's name)."""
    return [MessageQueue("topic_test", "brokerName", i) for i in range(size)]


def java_test_cids(size: int) -> list[str]:
    return [f"CID-{i}" for i in range(size)]


def owners(strategy, mq_all, cid_all) -> list[str]:
    """The owner of each queue, found by asking every consumer (as the Java test does)."""
    owner = {}
    for cid, queues in allocate_all(strategy, mq_all, cid_all).items():
        for mq in queues:
            assert mq not in owner
            owner[mq] = cid
    return [owner[mq] for mq in mq_all]


# Owners printed by the compiled 4.9.3 AllocateMessageQueueConsistentHash(3) for the Java test's testAllocate: with
# all consumers, then without CID-0, then with CID-NEW added. "7" stands for "CID-7".
JAVA_20_QUEUES_10_CIDS = [
    "7 8 7 0 2 0 3 3 0 3 5 5 7 8 8 5 9 5 0 0",
    "7 8 7 3 2 3 3 3 3 3 5 5 7 8 8 5 9 5 3 3",
    "7 8 7 NEW 2 NEW 3 3 NEW 3 5 5 7 8 8 5 9 5 NEW NEW",
]
JAVA_10_QUEUES_20_CIDS = ["7 10 12 15 2 15 3 3 15 3"] * 3  # CID-0 owned nothing and CID-NEW wins nothing


@pytest.mark.spec("ALLOC-12", "ALLOC-13")
@pytest.mark.parametrize(
    ("queue_size", "consumer_size", "expected"),
    [(20, 10, JAVA_20_QUEUES_10_CIDS), (10, 20, JAVA_10_QUEUES_20_CIDS)],
    ids=["testAllocate1", "testAllocate2"],
)
def test_rocketmq_test_allocate(queue_size, consumer_size, expected):
    strategy = AllocateMessageQueueConsistentHash(3)
    mq_all, cid_all = java_test_queues(queue_size), java_test_cids(consumer_size)
    after_remove = cid_all[1:]
    after_add = [*after_remove, "CID-NEW"]
    got = [owners(strategy, mq_all, cids) for cids in (cid_all, after_remove, after_add)]
    assert got == [[f"CID-{n}" for n in line.split()] for line in expected]


@pytest.mark.spec("ALLOC-3")
def test_rocketmq_current_cid_not_exists():
    strategy = AllocateMessageQueueConsistentHash()
    assert strategy.allocate("", str(2**31 - 1), java_test_queues(6), java_test_cids(2)) == []


@pytest.mark.spec("ALLOC-1")
@pytest.mark.parametrize(
    ("current_cid", "mq_all", "cid_all", "error"),
    [
        ("", java_test_queues(6), java_test_cids(2), EmptyCurrentCidError),  # testCurrentCIDIllegalArgument
        ("0", None, java_test_cids(2), EmptyMessageQueueListError),  # testMessageQueueIllegalArgument
        ("0", java_test_queues(6), None, EmptyConsumerIdListError),  # testConsumerIdIllegalArgument
    ],
)
def test_rocketmq_illegal_arguments(current_cid, mq_all, cid_all, error):
    with pytest.raises(error):
        AllocateMessageQueueConsistentHash().allocate("", current_cid, mq_all, cid_all)


@pytest.mark.spec("ALLOC-12", "ALLOC-19")
def test_worked_example_like_java():
    result = allocate_all(AllocateMessageQueueConsistentHash(), WORKED_QUEUES, WORKED_CIDS)
    assert indices(result, WORKED_QUEUES) == [[2, 4, 5, 6], [3, 7], [0, 1]]


@pytest.mark.spec("ALLOC-12")
def test_queue_key_is_javas_to_string():
    seen = []

    class Recording:
        def hash(self, key: str) -> int:
            seen.append(key)
            return 0

    AllocateMessageQueueConsistentHash(1, Recording()).allocate("G", "c", WORKED_QUEUES[:1], ["c"])
    assert seen == ["c-0", "MessageQueue [topic=TopicTest, brokerName=hz@broker-a, queueId=0]"]


@pytest.mark.spec("ALLOC-12")
def test_virtual_node_count():
    assert AllocateMessageQueueConsistentHash().virtual_node_cnt == 10
    with pytest.raises(IllegalVirtualNodeCountError, match="illegal virtualNodeCnt :-1"):
        AllocateMessageQueueConsistentHash(-1)
    # Zero virtual nodes: an empty ring routes every queue to nobody, so nobody consumes anything.
    result = allocate_all(AllocateMessageQueueConsistentHash(0), WORKED_QUEUES, WORKED_CIDS)
    assert all(queues == [] for queues in result.values())


@pytest.mark.spec("ALLOC-12")
def test_result_follows_mq_all_order():
    reversed_queues = WORKED_QUEUES[::-1]
    got = AllocateMessageQueueConsistentHash().allocate("G", WORKED_CIDS[0], reversed_queues, WORKED_CIDS)
    assert got == [WORKED_QUEUES[i] for i in (6, 5, 4, 2)]


@pytest.mark.spec("ALLOC-13")
@given(queue_lists, consumer_id_lists, st.integers(1, 5), st.data())
def test_only_the_leaving_or_joining_consumer_moves_queues(mq_all, cid_all, virtual_nodes, data):
    strategy = AllocateMessageQueueConsistentHash(virtual_nodes)
    before = dict(zip(mq_all, owners(strategy, mq_all, cid_all), strict=True))
    leaving = data.draw(st.sampled_from(cid_all))
    remaining = [c for c in cid_all if c != leaving]
    if remaining:
        after = dict(zip(mq_all, owners(strategy, mq_all, remaining), strict=True))
        assert {mq: c for mq, c in before.items() if c != leaving} == {
            mq: c for mq, c in after.items() if before[mq] != leaving
        }
    joined = [*cid_all, "joining@1"]
    after_join = dict(zip(mq_all, owners(strategy, mq_all, joined), strict=True))
    assert {mq: c for mq, c in after_join.items() if c != "joining@1"} == {
        mq: before[mq] for mq, c in after_join.items() if c != "joining@1"
    }


# Worked example: MD5Hash of each queue's toString (values printed by the compiled 4.9.3 class) and the virtual node
# that follows it on the ring (docs/spec/client-allocation.md, "The ring of the worked example").
WORKED_ROUTES = [
    (2021252174, "10.0.0.3@1003-6"),
    (2642323520, "10.0.0.3@1003-8"),
    (1710897222, "10.0.0.1@1001-2"),
    (1067497841, "10.0.0.2@1002-1"),
    (4097862410, "10.0.0.1@1001-4"),
    (1957616387, "10.0.0.1@1001-1"),
    (361879809, "10.0.0.1@1001-7"),
    (2929209385, "10.0.0.2@1002-8"),
]


@pytest.mark.spec("ALLOC-12")
def test_worked_example_routes():
    router = AllocateMessageQueueConsistentHash().build_router(WORKED_CIDS)
    ring = router.ring_entries()
    routes = []
    for mq in WORKED_QUEUES:
        h = router.hash_function.hash(str(mq))
        _position, v_node = next(((pos, v) for pos, v in ring if pos >= h), ring[0])
        assert router.route_node(str(mq)).get_key() == v_node.physical_node.get_key()
        routes.append((h, v_node.get_key()))
    assert routes == WORKED_ROUTES

"""Laws every group allocation obeys, for any queues and consumers, when each consumer computes its own share."""

import itertools
from functools import cmp_to_key

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from mqlab.client.consumer.allocate_message_queue_strategy import sort_for_allocation
from mqlab.client.consumer.rebalance.allocate_machine_room_nearby import AllocateMachineRoomNearby
from mqlab.client.consumer.rebalance.allocate_message_queue_averagely import AllocateMessageQueueAveragely
from mqlab.client.consumer.rebalance.allocate_message_queue_averagely_by_circle import (
    AllocateMessageQueueAveragelyByCircle,
)
from mqlab.client.consumer.rebalance.allocate_message_queue_by_machine_room import AllocateMessageQueueByMachineRoom
from mqlab.client.consumer.rebalance.allocate_message_queue_consistent_hash import AllocateMessageQueueConsistentHash
from mqlab.common import util_all
from mqlab.common.jdk.string_hash import java_string_compare
from mqlab.common.message.message_queue import MessageQueue
from tests.client.consumer.rebalance.allocation_helpers import (
    ROOMS,
    WORKED_CIDS,
    WORKED_QUEUES,
    DictResolver,
    allocate_all,
    consumer_id_lists,
    queue_lists,
    room_maps,
)

# Strategies that hand out every queue; each factory takes the drawn room maps (only Nearby uses them).
INNER = {
    "AVG": lambda rooms: AllocateMessageQueueAveragely(),
    "AVG_BY_CIRCLE": lambda rooms: AllocateMessageQueueAveragelyByCircle(),
    "CONSISTENT_HASH": lambda rooms: AllocateMessageQueueConsistentHash(),
    "CONSISTENT_HASH(1)": lambda rooms: AllocateMessageQueueConsistentHash(1),
}
COMPLETE = {
    **INNER,
    **{
        f"MACHINE_ROOM_NEARBY-{name}": (
            lambda rooms, make=make: AllocateMachineRoomNearby(make(rooms), DictResolver(*rooms))
        )
        for name, make in INNER.items()
    },
}
complete = pytest.mark.parametrize("make", COMPLETE.values(), ids=COMPLETE.keys())
BALANCED = {"AVG": AllocateMessageQueueAveragely, "AVG_BY_CIRCLE": AllocateMessageQueueAveragelyByCircle}


def group(draw_from: st.DataObject) -> tuple[list[MessageQueue], list[str], tuple[dict, dict]]:
    mq_all, cid_all = sort_for_allocation(draw_from.draw(queue_lists), draw_from.draw(consumer_id_lists))
    return mq_all, cid_all, draw_from.draw(room_maps(cid_all))


@pytest.mark.spec("ALLOC-15")
@complete
@given(data=st.data())
def test_every_queue_goes_to_exactly_one_consumer(make, data):
    mq_all, cid_all, rooms = group(data)
    results = allocate_all(make(rooms), mq_all, cid_all)
    allocated = [mq for queues in results.values() for mq in queues]
    assert sorted(allocated) == mq_all  # every queue once: none lost, none doubled


@pytest.mark.spec("ALLOC-15", "ALLOC-16")
@given(data=st.data(), idcs=st.sets(st.sampled_from([*ROOMS, "", "hz@broker-a"])))
def test_by_machine_room_allocates_exactly_the_configured_rooms(data, idcs):
    mq_all, cid_all, _ = group(data)
    assume(not any(util_all.is_blank(cid) for cid in cid_all))  # ALLOC-2: this strategy rejects a blank own id
    results = allocate_all(AllocateMessageQueueByMachineRoom(idcs), mq_all, cid_all)
    allocated = [mq for queues in results.values() for mq in queues]
    in_rooms = [mq for mq in mq_all if "@" in mq.broker_name and mq.broker_name.split("@")[0] in idcs]
    assert sorted(allocated) == in_rooms
    sizes = [len(queues) for queues in results.values()]
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)


@pytest.mark.spec("ALLOC-16")
@pytest.mark.parametrize("strategy", BALANCED.values(), ids=BALANCED.keys())
@given(data=st.data())
def test_shares_differ_by_at_most_one(strategy, data):
    mq_all, cid_all, _ = group(data)
    sizes = [len(queues) for queues in allocate_all(strategy(), mq_all, cid_all).values()]
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)  # the larger shares go to the first consumers


@pytest.mark.spec("ALLOC-6")
@given(mq_all=queue_lists, cid_all=consumer_id_lists)
def test_averagely_gives_contiguous_blocks_in_consumer_order(mq_all, cid_all):
    mq_all, cid_all = sort_for_allocation(mq_all, cid_all)
    blocks = list(allocate_all(AllocateMessageQueueAveragely(), mq_all, cid_all).values())
    assert [mq for block in blocks for mq in block] == mq_all


@pytest.mark.spec("ALLOC-17")
@complete
@given(data=st.data())
def test_after_the_callers_sort_the_input_order_does_not_matter(make, data):
    mq_all, cid_all, rooms = group(data)
    shuffled_mqs = data.draw(st.permutations(mq_all))
    shuffled_cids = data.draw(st.permutations(cid_all))
    strategy = make(rooms)
    assert allocate_all(strategy, *sort_for_allocation(shuffled_mqs, shuffled_cids)) == allocate_all(
        strategy, mq_all, cid_all
    )


@pytest.mark.spec("ALLOC-17")
@given(mq_all=queue_lists, cid_all=consumer_id_lists)
def test_sort_is_rebalance_impls(mq_all, cid_all):
    mqs, cids = sort_for_allocation(mq_all, cid_all)
    assert all(a.compare_to(b) < 0 for a, b in itertools.pairwise(mqs))  # MessageQueue#compareTo
    assert cids == sorted(cid_all, key=cmp_to_key(java_string_compare))  # String#compareTo
    assert sorted(mqs) == sorted(mq_all)


@pytest.mark.spec("ALLOC-17")
def test_the_strategies_themselves_do_not_sort():
    strategy = AllocateMessageQueueAveragely()
    me = WORKED_CIDS[0]
    assert strategy.allocate("G", me, WORKED_QUEUES, WORKED_CIDS) == WORKED_QUEUES[:3]
    assert strategy.allocate("G", me, WORKED_QUEUES, WORKED_CIDS[::-1]) == WORKED_QUEUES[6:]
    assert strategy.allocate("G", me, WORKED_QUEUES[::-1], WORKED_CIDS) == WORKED_QUEUES[::-1][:3]
    # Java's String order, not Python's: U+1F600 is a surrogate pair (0xD83D...) and sorts before U+FFFF.
    assert sort_for_allocation([], ["\uffff", "\U0001f600", "a"])[1] == ["a", "\U0001f600", "\uffff"]


@pytest.mark.spec("ALLOC-18")
@complete
@given(data=st.data())
def test_deterministic(make, data):
    mq_all, cid_all, rooms = group(data)
    first = allocate_all(make(rooms), mq_all, cid_all)
    again = make(rooms)
    assert allocate_all(again, mq_all, cid_all) == first
    assert allocate_all(again, list(mq_all), list(cid_all)) == first

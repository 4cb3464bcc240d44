"""ProcessQueue: 4.9.3's ProcessQueueTest, the committed-offset rule, orderly take/commit, timers and expiry."""

from datetime import UTC

import pytest

from mqlab.client.impl.consumer.process_queue import OffsetTreeMap, ProcessQueue
from mqlab.common.message import message_const as mc
from mqlab.common.protocol.body.process_queue_info import ProcessQueueInfo
from mqlab.remoting.protocol import remoting_serializable
from tests.client.client_fakes import FakeClock, make_msg


def message_list(count: int, body_len: int = 123):
    return [make_msg(i, body_len=body_len) for i in range(count)]


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def pq(clock):
    return ProcessQueue(clock)


# --- 4.9.3's ProcessQueueTest ----------------------------------------------------------------------------------------


@pytest.mark.spec("CLI-15")
def test_cached_message_count(pq):
    pq.put_message(message_list(100))
    assert pq.msg_count == 100
    pq.take_messages(10)
    pq.commit()
    assert pq.msg_count == 90
    pq.remove_message([pq.msg_tree_map.last_value()])
    assert pq.msg_count == 89


@pytest.mark.spec("CLI-15")
def test_cached_message_size(pq):
    pq.put_message(message_list(100))
    assert pq.msg_size == 100 * 123
    pq.take_messages(10)
    pq.commit()
    assert pq.msg_size == 90 * 123
    pq.remove_message([pq.msg_tree_map.last_value()])
    assert pq.msg_size == 89 * 123


@pytest.mark.spec("CLI-18")
def test_fill_process_queue_info(pq):
    pq.put_message(message_list(102400))
    info = ProcessQueueInfo()
    pq.fill_process_queue_info(info)
    assert info.cached_msg_size_in_mib == 12
    sizes = []
    for batch in (10000, 10000, 80000):
        pq.take_messages(batch)
        pq.commit()
        pq.fill_process_queue_info(info)
        sizes.append(info.cached_msg_size_in_mib)
    assert sizes == [10, 9, 0]


# --- put / remove (concurrent consumption) ---------------------------------------------------------------------------


@pytest.mark.spec("CLI-12")
def test_put_message_counts_new_offsets_only_and_dispatches_once(pq):
    assert pq.put_message([make_msg(0), make_msg(1)]) is True
    assert pq.consuming is True
    assert pq.put_message([make_msg(1, body_len=99), make_msg(2)]) is False  # already consuming
    assert (pq.msg_count, pq.msg_size, pq.queue_offset_max) == (3, 30, 2)
    assert pq.msg_tree_map.get(1).body == bytes(99)  # the repeated offset replaced the cached message
    assert pq.put_message([]) is False


@pytest.mark.spec("CLI-12")
def test_put_message_records_the_backlog_from_max_offset(pq):
    last = make_msg(10)
    last.put_property(mc.PROPERTY_MAX_OFFSET, "25")
    pq.put_message([make_msg(9), last])
    assert pq.msg_acc_cnt == 15
    behind = make_msg(30)
    behind.put_property(mc.PROPERTY_MAX_OFFSET, "30")
    pq.put_message([behind])
    assert pq.msg_acc_cnt == 15  # not positive: unchanged


@pytest.mark.spec("CLI-13")
def test_remove_message_returns_the_smallest_remaining_offset(pq):
    assert pq.remove_message([make_msg(0)]) == -1  # nothing cached
    msgs = [make_msg(i) for i in (5, 6, 7, 9)]
    pq.put_message(msgs)
    assert pq.remove_message([msgs[1], msgs[2]]) == 5  # 5 is still being consumed: hold the offset back
    assert pq.remove_message([msgs[0]]) == 9
    assert pq.remove_message([make_msg(100)]) == 9  # not cached: ignored
    assert pq.remove_message([msgs[3]]) == 10  # empty: last added + 1
    assert (pq.msg_count, pq.msg_size) == (0, 0)
    assert pq.remove_message([msgs[3]]) == -1


@pytest.mark.spec("CLI-14")
def test_get_max_span(pq):
    assert pq.get_max_span() == 0
    pq.put_message([make_msg(3), make_msg(2500)])
    assert pq.get_max_span() == 2497


# --- orderly ---------------------------------------------------------------------------------------------------------


@pytest.mark.spec("CLI-15")
def test_take_commit_and_consume_again(pq):
    msgs = message_list(5, body_len=1)
    pq.put_message(msgs)
    taken = pq.take_messages(2)
    assert [m.queue_offset for m in taken] == [0, 1]
    assert pq.consuming_msg_orderly_tree_map.keys() == [0, 1]
    assert pq.msg_tree_map.keys() == [2, 3, 4]
    pq.make_message_to_consume_again([taken[1]])
    assert pq.msg_tree_map.keys() == [1, 2, 3, 4]
    assert pq.commit() == 1  # only offset 0 was in flight
    assert pq.commit() == -1
    assert [m.queue_offset for m in pq.take_messages(3)] == [1, 2, 3]
    pq.rollback()
    assert pq.msg_tree_map.keys() == [1, 2, 3, 4]
    assert pq.consuming_msg_orderly_tree_map.keys() == []
    assert (pq.msg_count, pq.msg_size) == (4, 4)


@pytest.mark.spec("CLI-15")
def test_taking_nothing_clears_consuming(pq):
    pq.put_message([make_msg(0)])
    assert pq.consuming
    pq.take_messages(1)
    assert pq.consuming
    assert pq.take_messages(1) == []
    assert not pq.consuming
    assert pq.put_message([make_msg(1)]) is True


@pytest.mark.spec("CLI-15")
def test_has_temp_message_and_clear(pq):
    assert not pq.has_temp_message()
    pq.put_message(message_list(3))
    pq.take_messages(1)
    assert pq.has_temp_message()
    pq.clear()
    assert not pq.has_temp_message()
    assert (pq.msg_count, pq.msg_size, pq.queue_offset_max, len(pq.consuming_msg_orderly_tree_map)) == (0, 0, 0, 0)


# --- timers ----------------------------------------------------------------------------------------------------------


@pytest.mark.spec("CLI-16")
def test_lock_and_pull_expiry_follow_the_injected_clock(pq, clock):
    start = clock.now
    assert (pq.last_pull_timestamp, pq.last_consume_timestamp, pq.last_lock_timestamp) == (start, start, start)
    clock.advance(30_000)
    assert not pq.is_lock_expired()
    clock.advance(1)
    assert pq.is_lock_expired()
    clock.advance(120_000 - 30_001)
    assert not pq.is_pull_expired()
    clock.advance(1)
    assert pq.is_pull_expired()
    pq.put_message([make_msg(0)])
    pq.remove_message([make_msg(0)])
    assert pq.last_consume_timestamp == clock.now
    clock.advance(5)
    pq.take_messages(1)
    assert pq.last_consume_timestamp == clock.now


# --- expired consumption ---------------------------------------------------------------------------------------------


def started(offset: int, at: int):
    msg = make_msg(offset)
    msg.put_property(mc.PROPERTY_CONSUME_START_TIMESTAMP, str(at))
    return msg


@pytest.mark.spec("CLI-17")
def test_clean_expired_msg_sends_back_the_oldest_expired_messages(pq, clock):
    t0 = clock.now
    pq.put_message([started(0, t0), started(1, t0), started(2, t0 + 60_000), make_msg(3)])
    sent = []
    clock.advance(15 * 60_000)
    assert pq.clean_expired_msg(lambda m, level: sent.append((m.queue_offset, level)), consume_timeout_minutes=15) == []
    clock.advance(1)  # now strictly more than 15 minutes after t0
    cleaned = pq.clean_expired_msg(lambda m, level: sent.append((m.queue_offset, level)), consume_timeout_minutes=15)
    assert [m.queue_offset for m in cleaned] == [0, 1]
    assert sent == [(0, 3), (1, 3)]
    assert pq.msg_tree_map.keys() == [2, 3]


@pytest.mark.spec("CLI-17")
def test_clean_expired_msg_stops_at_sixteen_and_skips_orderly(pq, clock):
    pq.put_message([started(i, clock.now) for i in range(20)])
    clock.advance(16 * 60_000)
    assert pq.clean_expired_msg(lambda m, level: None, consume_timeout_minutes=15, consume_orderly=True) == []
    assert len(pq.clean_expired_msg(lambda m, level: None, consume_timeout_minutes=15)) == 16
    assert pq.msg_tree_map.keys() == [16, 17, 18, 19]


@pytest.mark.spec("CLI-17")
def test_a_failed_send_back_keeps_the_message(pq, clock):
    pq.put_message([started(0, clock.now), started(1, clock.now)])
    clock.advance(16 * 60_000)
    calls = []

    def fail(msg, level):
        calls.append(msg.queue_offset)
        raise ConnectionError("broker down")

    assert pq.clean_expired_msg(fail, consume_timeout_minutes=15) == []
    assert calls == [0, 0]  # two rounds (two cached messages), both on the head
    assert pq.msg_tree_map.keys() == [0, 1]


# --- ProcessQueueInfo ------------------------------------------------------------------------------------------------


@pytest.mark.spec("CLI-18")
def test_process_queue_info_fields_json_and_str(pq, clock):
    pq.put_message(message_list(4, body_len=1))
    pq.take_messages(2)
    pq.locked = True
    pq.inc_try_unlock_times()
    info = ProcessQueueInfo()
    pq.fill_process_queue_info(info)
    assert (info.cached_msg_min_offset, info.cached_msg_max_offset, info.cached_msg_count) == (2, 3, 2)
    assert (info.transaction_msg_min_offset, info.transaction_msg_max_offset, info.transaction_msg_count) == (0, 1, 2)
    assert (info.locked, info.try_unlock_times, info.dropped) == (True, 1, False)
    assert info.last_pull_timestamp == clock.now
    text = remoting_serializable.to_json(info)
    assert '"cachedMsgSizeInMiB":0' in text and '"droped":false' in text
    assert info.to_string(UTC).startswith("ProcessQueueInfo [commitOffset=0, cachedMsgMinOffset=2, ")
    assert ", droped=false, lastPullTimestamp=20231114221320000, " in info.to_string(UTC)


# --- the sorted tree -------------------------------------------------------------------------------------------------


def test_offset_tree_map_keeps_offsets_sorted():
    tree = OffsetTreeMap()
    for offset in (5, 1, 3):
        assert tree.put(offset, make_msg(offset)) is None
    assert tree.put(3, make_msg(3)) is not None
    assert tree.keys() == [1, 3, 5] and list(tree) == [1, 3, 5] and 3 in tree
    assert tree.remove(3).queue_offset == 3 and tree.remove(3) is None
    assert [offset for offset, _ in tree.poll_first_entries(1)] == [1]
    assert (tree.first_key(), tree.last_key(), len(tree)) == (5, 5, 1)
    tree.clear()
    assert tree.poll_first_entries(3) == [] and not tree
    with pytest.raises(KeyError):
        tree.first_key()

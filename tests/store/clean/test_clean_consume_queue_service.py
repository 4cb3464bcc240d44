"""CleanConsumeQueueService and what a consumer sees after cleaning (OFFSET_TOO_SMALL, nextBeginOffset = min)."""

from __future__ import annotations

import pytest

from mqlab.store.clean_consume_queue_service import CleanConsumeQueuePass, CleanConsumeQueueService
from mqlab.store.get_message_status import GetMessageStatus
from tests.store.clean.conftest import HOUR_MS, bodies, expire, put_big, put_many
from tests.store.helpers import TOPIC, body_of


def delete_commit_log_segments(store, count: int) -> int:
    """Expire the first ``count`` segments and run manual CommitLog passes (10 segments each); return how many went."""
    expire(store.commit_log.mapped_file_queue, count, 100 * HOUR_MS)
    store.execute_delete_files_manually()
    deleted = 0
    for _ in range((count + 9) // 10):
        deleted += store.clean_commit_log_service.run().deleted
    store.clean_commit_log_service.manual_delete_file_several_times = 0
    return deleted


def queue(store, queue_id: int = 0):
    return store.find_consume_queue(TOPIC, queue_id)


@pytest.mark.spec("CLEAN-11")
def test_nothing_happens_until_the_commit_log_min_offset_grows(one_per_file):
    store = one_per_file()
    put_many(store, 20)
    service = store.clean_consume_queue_service
    assert service.run() == CleanConsumeQueuePass(min_offset=0)
    assert delete_commit_log_segments(store, 10) == 10
    min_offset = store.get_min_phy_offset()
    assert service.run() == CleanConsumeQueuePass(min_offset, ran=True, deleted=1)
    assert service.last_physical_min_offset == min_offset
    assert service.run() == CleanConsumeQueuePass(min_offset)  # same min offset: nothing to do


@pytest.mark.spec("CLEAN-11", "CLEAN-12")
def test_min_offsets_move_forward_file_by_file_and_unit_by_unit(one_per_file):
    # One message per CommitLog segment, 7 units per ConsumeQueue file: 20 messages → CQ files of units 0-6, 7-13,
    # 14-19 (the last, partly written).
    store = one_per_file()
    put_many(store, 20)
    cq = queue(store)
    assert len(cq.mapped_file_queue.mapped_files) == 3
    assert delete_commit_log_segments(store, 10) == 10
    store.clean_consume_queue_service.run()
    # Units 0-9 point into deleted segments: the first CQ file (0-6) goes; the second (7-13) stays because its last
    # unit still points at a live segment, and the queue's min offset moves into it, to unit 10.
    assert [m.file_from_offset for m in cq.mapped_file_queue.mapped_files] == [7 * 20, 14 * 20]
    assert store.get_min_offset_in_queue(TOPIC, 0) == 10
    assert delete_commit_log_segments(store, 2) == 2
    store.clean_consume_queue_service.run()
    assert store.get_min_offset_in_queue(TOPIC, 0) == 12
    assert len(cq.mapped_file_queue.mapped_files) == 2
    assert store.get_max_offset_in_queue(TOPIC, 0) == 20  # the max never moves back


@pytest.mark.spec("CLEAN-12")
def test_a_lagging_consumer_gets_offset_too_small_and_the_new_min_and_the_deleted_messages_are_gone(one_per_file):
    store = one_per_file()
    put_many(store, 20)
    assert bodies(store, 0, 0) == [body_of(i, 2500) for i in range(20)]
    delete_commit_log_segments(store, 10)
    store.clean_consume_queue_service.run()
    for offset in (0, 5, 9):
        result = store.get_message("lagging", TOPIC, 0, offset, 32)
        assert result.status is GetMessageStatus.OFFSET_TOO_SMALL
        assert result.next_begin_offset == 10 and result.min_offset == 10 and result.message_count == 0
    result = store.get_message("lagging", TOPIC, 0, 10, 32)
    assert result.status is GetMessageStatus.FOUND
    assert bodies(store, 0, 10) == [body_of(i, 2500) for i in range(10, 20)]  # messages 0-9 were never consumed


@pytest.mark.spec("CLEAN-12")
def test_before_the_consume_queue_pass_the_deleted_units_read_as_message_was_removing(one_per_file):
    store = one_per_file()
    put_many(store, 20)
    delete_commit_log_segments(store, 10)  # CommitLog pass only: the ConsumeQueue still lists the units
    result = store.get_message("lagging", TOPIC, 0, 0, 32)
    assert result.status is GetMessageStatus.MESSAGE_WAS_REMOVING
    assert result.message_count == 0 and result.next_begin_offset == 7  # skipped to the end of that CQ file


@pytest.mark.spec("CLEAN-12")
def test_an_idle_queue_whose_only_file_points_into_deleted_segments_keeps_its_min_offset(one_per_file):
    store = one_per_file()
    put_big(store, 0, queue_id=1)
    put_big(store, 1, queue_id=1)
    put_many(store, 20, first=2)  # queue 0
    delete_commit_log_segments(store, 10)
    store.clean_consume_queue_service.run()
    # Queue 1's single file is its last file: never deleted, and no unit in it reaches the CommitLog min offset.
    assert store.get_min_offset_in_queue(TOPIC, 1) == 0
    result = store.get_message("g", TOPIC, 1, 0, 32)
    assert result.status is GetMessageStatus.MESSAGE_WAS_REMOVING
    assert result.message_count == 0 and result.next_begin_offset == 2


@pytest.mark.spec("CLEAN-11")
def test_the_index_service_is_told_the_commit_log_min_offset_after_the_queues(one_per_file):
    store = one_per_file()
    put_many(store, 12)
    delete_commit_log_segments(store, 10)
    calls = []

    class Recorder:
        def delete_expired_file(self, offset):
            calls.append((offset, len(queue(store).mapped_file_queue.mapped_files)))

    service = CleanConsumeQueueService(
        store.config, store.runtime, store.commit_log, store.iter_consume_queues, index_service=lambda: Recorder()
    )
    service.run()
    assert calls == [(store.get_min_phy_offset(), 1)]  # the CQ file was already gone when the index was asked


@pytest.mark.spec("CLEAN-11")
def test_without_an_index_service_the_pass_still_cleans_the_queues(one_per_file):
    store = one_per_file()
    put_many(store, 12)
    delete_commit_log_segments(store, 10)
    service = CleanConsumeQueueService(store.config, store.runtime, store.commit_log, store.iter_consume_queues)
    assert service.run().deleted == 1


@pytest.mark.spec("CLEAN-11")
def test_the_store_hands_its_index_service_to_the_cleaner(one_per_file):
    store = one_per_file()
    assert store.clean_consume_queue_service.index_service() is getattr(store, "index_service", None)


@pytest.mark.spec("CLEAN-11")
def test_the_pass_pauses_after_each_queue_that_lost_files(one_per_file, world):
    store = one_per_file()
    for i in range(24):
        put_big(store, i, queue_id=i % 2)  # queue 0 and 1 alternate: 12 units each, 7 per file
    world.run_for(10)
    delete_commit_log_segments(store, 20)
    before = world.now_ms()
    result = store.clean_consume_queue_service.run()
    assert result.deleted == 2  # one file of each queue
    assert world.now_ms() - before == 2 * 100  # deleteConsumeQueueFilesInterval after each


@pytest.mark.spec("CLEAN-11")
def test_a_consume_queue_keeps_its_last_file_even_when_every_unit_is_stale(one_per_file):
    store = one_per_file()
    put_many(store, 7)  # exactly one full CQ file: it is the last one
    put_big(store, 99, queue_id=1)  # a newer segment so the CommitLog can lose all of queue 0's
    store.runtime.scheduler.sleep(10)
    assert delete_commit_log_segments(store, 7) == 7
    store.clean_consume_queue_service.run()
    assert len(queue(store).mapped_file_queue.mapped_files) == 1
    assert queue(store).delete_expired_file(store.get_min_phy_offset()) == 0

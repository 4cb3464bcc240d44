"""ASYNC_FLUSH: FlushRealTimeService flushes every 500 ms once 4 pages are dirty, everything every 10 s."""

import pytest

from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.flush_real_time_service import FlushRealTimeService
from mqlab.store.put_message_status import PutMessageStatus
from tests.store.helpers import inner

PAGE = 4096


@pytest.fixture
def async_store(make_store):
    def factory(**fields):
        settings = {"flush_disk_type": FlushDiskType.ASYNC_FLUSH, "mapped_file_size_commit_log": 64 * 1024}
        settings.update(fields)
        return make_store(**settings)

    return factory


def put_bytes(store, rt, pages: float) -> int:
    """Put ~``pages`` pages of records; return the CommitLog end."""
    target = store.get_max_phy_offset() + int(pages * PAGE)
    i = 0
    while store.get_max_phy_offset() < target:
        result = store.put_message(inner(rt, i, body=b"p" * 400))
        assert result.put_message_status is PutMessageStatus.PUT_OK
        i += 1
    return store.get_max_phy_offset()


@pytest.mark.spec("STORE-16")
def test_an_async_put_returns_before_anything_is_flushed(async_store, rt):
    store = async_store()
    assert isinstance(store.commit_log.flush_commit_log_service, FlushRealTimeService)
    result = store.put_message(inner(rt, 0))
    assert result.put_message_status is PutMessageStatus.PUT_OK
    assert store.commit_log.mapped_file_queue.flushed_where == 0


@pytest.mark.spec("STORE-16")
def test_between_thorough_rounds_only_4_dirty_pages_trigger_a_flush(async_store, rt, world):
    store = async_store()
    mfq = store.commit_log.mapped_file_queue
    world.run_for(600)  # the first round (at 500 ms) is thorough: nothing to flush yet
    put_bytes(store, rt, 2.5)
    world.run_for(500)
    assert mfq.flushed_where == 0
    end = put_bytes(store, rt, 2)
    world.run_for(500)
    assert mfq.flushed_where == end  # >= 4 pages dirty: flushed up to the readable end
    tail = put_bytes(store, rt, 0.5)
    world.run_for(500)
    assert mfq.flushed_where == end
    world.run_for(10_000)  # a thorough round flushes even one dirty byte
    assert mfq.flushed_where == tail


@pytest.mark.spec("STORE-16")
def test_the_thorough_round_records_the_flushed_store_time_in_the_checkpoint(async_store, rt, world):
    store = async_store()
    world.run_for(600)
    result = store.put_message(inner(rt, 0))
    world.run_for(10_000)
    assert store.store_checkpoint.physic_msg_timestamp == result.append_message_result.store_timestamp


@pytest.mark.spec("STORE-16")
def test_with_flush_commit_log_timed_a_put_does_not_wake_the_flusher(async_store, rt, world):
    store = async_store()
    world.run_for(600)
    end = put_bytes(store, rt, 5)
    world.run_for(399)  # next round at 1000 ms
    assert store.commit_log.mapped_file_queue.flushed_where == 0
    world.run_for(1)
    assert store.commit_log.mapped_file_queue.flushed_where == end


@pytest.mark.spec("STORE-16")
def test_without_flush_commit_log_timed_a_put_wakes_the_flusher(async_store, rt, world):
    store = async_store(flush_commit_log_timed=False)
    world.run_for(600)
    end = put_bytes(store, rt, 5)
    world.run_for(0)
    assert store.commit_log.mapped_file_queue.flushed_where == end


@pytest.mark.spec("STORE-16")
def test_shutdown_flushes_every_segment(async_store, rt, world):
    store = async_store(mapped_file_size_commit_log=4096)
    world.run_for(600)
    end = put_bytes(store, rt, 3.5)  # spans several 4 KiB segments
    assert store.commit_log.mapped_file_queue.flushed_where < end
    store.shutdown()
    assert store.commit_log.mapped_file_queue.flushed_where == end


def test_the_service_intervals_are_the_4_9_3_defaults(async_store):
    service = async_store().commit_log.flush_commit_log_service
    assert service.wait_interval_ms() == 500
    assert service.config.flush_commit_log_least_pages == 4
    assert service.config.flush_commit_log_thorough_interval == 10_000
    assert service.wakeup_interrupts_wait is False

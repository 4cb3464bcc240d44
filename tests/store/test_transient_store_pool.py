"""TransientStorePool and CommitRealTimeService: appends go to a pooled buffer and become readable when committed."""

import pytest

from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.put_message_status import PutMessageStatus
from mqlab.store.transient_store_pool import TransientStorePool
from tests.store.helpers import TOPIC, inner, read_queue, small_config


@pytest.mark.spec("STORE-17")
def test_the_pool_lends_zeroed_buffers_and_makes_a_new_one_when_empty():
    pool = TransientStorePool(2, 64)
    pool.init()
    assert pool.available_buffer_nums() == 2
    first = pool.borrow_buffer()
    first[:3] = b"abc"
    second = pool.borrow_buffer()
    assert pool.available_buffer_nums() == 0
    extra = pool.borrow_buffer()  # Java would hand out null here and log a warning
    assert len(extra) == 64
    pool.return_buffer(first)
    assert pool.available_buffer_nums() == 1
    assert pool.borrow_buffer() == bytearray(64)  # returned buffers come back zeroed
    pool.return_buffer(second)
    pool.destroy()
    assert pool.available_buffer_nums() == 0


@pytest.mark.spec("STORE-17")
@pytest.mark.parametrize(
    ("flush", "role", "used"),
    [
        (FlushDiskType.ASYNC_FLUSH, BrokerRole.ASYNC_MASTER, True),
        (FlushDiskType.SYNC_FLUSH, BrokerRole.ASYNC_MASTER, False),
        (FlushDiskType.ASYNC_FLUSH, BrokerRole.SLAVE, False),
    ],
)
def test_the_pool_is_used_only_with_async_flush_on_a_master(tmp_path, flush, role, used):
    config = small_config(tmp_path, transient_store_pool_enable=True, flush_disk_type=flush, broker_role=role)
    assert config.is_transient_store_pool_enable() is used


@pytest.fixture
def pooled(make_store):
    return make_store(transient_store_pool_enable=True, flush_disk_type=FlushDiskType.ASYNC_FLUSH)


@pytest.mark.spec("STORE-17")
def test_a_put_is_readable_only_after_the_commit_service_copied_it(pooled, rt, world):
    store = pooled
    mfq = store.commit_log.mapped_file_queue
    result = store.put_message(inner(rt, 0))
    assert result.put_message_status is PutMessageStatus.PUT_OK
    assert mfq.get_max_wrote_position() == result.append_message_result.wrote_bytes
    assert store.get_max_phy_offset() == 0  # nothing committed: nothing readable, nothing to dispatch
    assert store.look_message_by_offset(0) is None
    world.run_for(200)  # one commit round
    assert mfq.committed_where == store.get_max_phy_offset() == result.append_message_result.wrote_bytes
    world.run_for(5)
    assert [m.get_keys() for m in read_queue(store)] == ["k0"]


@pytest.mark.spec("STORE-17")
def test_each_segment_borrows_a_buffer_and_returns_it_once_fully_committed(pooled, rt, world):
    store = pooled
    pool = store.transient_store_pool
    assert pool.available_buffer_nums() == 5
    for i in range(60):  # about three 4 KiB segments
        store.put_message(inner(rt, i))
    files = store.commit_log.mapped_file_queue.mapped_files
    assert len(files) == 3
    assert pool.available_buffer_nums() == 2
    world.run_for(1000)
    assert [m.write_buffer is None for m in files] == [True, True, False]
    assert pool.available_buffer_nums() == 4


@pytest.mark.spec("STORE-17")
def test_shutdown_commits_everything_and_a_restart_reads_it_back(pooled, rt, make_store, store_root):
    store = pooled
    for i in range(30):
        store.put_message(inner(rt, i))
    end = store.commit_log.mapped_file_queue.get_max_wrote_position()
    store.shutdown()
    again = make_store(transient_store_pool_enable=True, flush_disk_type=FlushDiskType.ASYNC_FLUSH)
    assert again.get_max_phy_offset() == end
    assert [m.get_keys() for m in read_queue(again)] == [f"k{i}" for i in range(30)]
    assert again.put_message(inner(rt, 30)).append_message_result.logics_offset == 30


def test_commit_rounds_follow_the_4_9_3_intervals(pooled):
    service = pooled.commit_log.commit_log_service
    assert service.wait_interval_ms() == 200
    assert service.config.commit_commit_log_least_pages == 4
    assert service.config.commit_commit_log_thorough_interval == 200
    assert pooled.get_max_offset_in_queue(TOPIC, 0) == 0

"""FlushConsumeQueueService: ConsumeQueues flushed every second (2 dirty pages at least), fully every minute together
with the checkpoint."""

import struct

import pytest

from mqlab.store.flush_consume_queue_service import FlushConsumeQueueService
from tests.store.helpers import TOPIC, inner


def cq_state(store, queue_id=0):
    mfq = store.find_consume_queue(TOPIC, queue_id).mapped_file_queue
    return mfq.flushed_where, mfq.get_max_offset()


def checkpoint_on_disk(store_root):
    return struct.unpack_from(">qqq", (store_root / "checkpoint").read_bytes(), 0)


@pytest.mark.spec("CQ-9")
def test_the_service_runs_every_second_with_the_4_9_3_thresholds(make_store):
    service = make_store().flush_consume_queue_service
    assert isinstance(service, FlushConsumeQueueService)
    assert service.wait_interval_ms() == 1000
    assert service.config.flush_consume_queue_least_pages == 2
    assert service.config.flush_consume_queue_thorough_interval == 60_000


@pytest.mark.spec("CQ-9")
def test_a_regular_round_flushes_full_files_and_leaves_a_partly_filled_one(make_store, rt, world):
    store = make_store()
    world.run_for(1500)  # the first round (at 1000 ms) is thorough
    for i in range(50):  # 2.5 files of 20 units
        store.put_message(inner(rt, i))
    world.run_for(5)
    assert cq_state(store) == (0, 1000)
    world.run_for(1000)
    assert cq_state(store) == (800, 1000)  # both full files in one round; the half-filled one waits


@pytest.mark.spec("CQ-9", "STORE-18")
def test_a_thorough_round_flushes_everything_and_then_persists_the_logics_timestamp(make_store, rt, world, store_root):
    store = make_store()
    world.run_for(1500)
    results = [store.put_message(inner(rt, i)).append_message_result for i in range(50)]
    world.run_for(5)
    assert checkpoint_on_disk(store_root)[1] == 0
    world.run_for(60_000)
    assert cq_state(store) == (1000, 1000)
    assert checkpoint_on_disk(store_root)[1] == results[-1].store_timestamp


@pytest.mark.spec("CQ-9")
def test_run_once_counts_the_queues_it_visited(make_store, rt):
    store = make_store()
    for queue_id in range(3):
        store.put_message(inner(rt, queue_id, queue_id=queue_id))
    store.runtime.scheduler.sleep(5)
    assert store.flush_consume_queue_service.run_once() == len(list(store.iter_consume_queues()))

"""The store on real threads (ThreadedRuntime): concurrent puts get dense, unique queue offsets and every message is
dispatched and readable. Waits use generous bounds; nothing here depends on how the threads interleave."""

import threading
import time

import pytest

from mqlab.runtime.threaded import ThreadedRuntime
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.put_message_status import PutMessageStatus
from tests.store.helpers import TOPIC, assert_consistent, inner, read_queue, small_config

THREADS, PER_THREAD = 4, 100


@pytest.fixture
def threaded_rt():
    runtime = ThreadedRuntime.create("broker-t")
    yield runtime
    runtime.scheduler.close()


def wait_for(condition, seconds=30.0):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def put_concurrently(store, runtime, queue_ids):
    results, errors = [], []
    lock = threading.Lock()

    def worker(thread):
        try:
            for i in range(PER_THREAD):
                queue_id = queue_ids[(thread + i) % len(queue_ids)]
                msg = inner(runtime, thread * PER_THREAD + i, queue_id=queue_id, keys=f"t{thread}-{i}")
                result = store.put_message(msg)
                with lock:
                    results.append((queue_id, result))
        except Exception as exc:  # surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    return results


@pytest.mark.spec("STORE-19")
@pytest.mark.parametrize("flush", [FlushDiskType.SYNC_FLUSH, FlushDiskType.ASYNC_FLUSH])
def test_concurrent_puts_get_dense_unique_queue_offsets(tmp_path, threaded_rt, flush):
    store = DefaultMessageStore(
        small_config(tmp_path, flush_disk_type=flush, mapped_file_size_commit_log=16 * 1024), threaded_rt
    )
    store.load()
    store.start()
    try:
        results = put_concurrently(store, threaded_rt, [0, 1])
        assert {r.put_message_status for _, r in results} == {PutMessageStatus.PUT_OK}
        for queue_id in (0, 1):
            offsets = sorted(r.append_message_result.logics_offset for q, r in results if q == queue_id)
            assert offsets == list(range(THREADS * PER_THREAD // 2))
        physical = sorted(r.append_message_result.wrote_offset for _, r in results)
        assert len(set(physical)) == THREADS * PER_THREAD
        total = THREADS * PER_THREAD // 2
        assert wait_for(lambda: all(store.get_max_offset_in_queue(TOPIC, q) == total for q in (0, 1)))
        for queue_id in (0, 1):
            messages = read_queue(store, queue_id)
            assert [m.queue_offset for m in messages] == list(range(total))
            assert len({m.get_keys() for m in messages}) == total
        assert_consistent(store)
    finally:
        store.shutdown()


@pytest.mark.spec("STORE-19", "REC-7")
def test_a_threaded_store_restarts_with_everything_readable(tmp_path, threaded_rt):
    config = small_config(tmp_path)
    store = DefaultMessageStore(config, threaded_rt)
    store.load()
    store.start()
    put_concurrently(store, threaded_rt, [0])
    assert wait_for(lambda: store.dispatch_behind_bytes() == 0)
    store.shutdown()
    again = DefaultMessageStore(small_config(tmp_path), threaded_rt)
    again.load()
    again.start()
    try:
        assert again.recovery_report.last_exit_ok
        assert [m.queue_offset for m in read_queue(again)] == list(range(THREADS * PER_THREAD))
        assert again.put_message(inner(threaded_rt, 0)).append_message_result.logics_offset == THREADS * PER_THREAD
    finally:
        again.shutdown()

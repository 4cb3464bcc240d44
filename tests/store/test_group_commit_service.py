"""SYNC_FLUSH: GroupCommitService makes a WAIT=true put wait for the flush; FlushDiskWatcher times it out."""

import pytest

from mqlab.store.group_commit_request import GroupCommitRequest
from mqlab.store.group_commit_service import GroupCommitService
from mqlab.store.put_message_status import PutMessageStatus
from tests.store.helpers import TOPIC, inner


def record_end(result) -> int:
    return result.append_message_result.wrote_offset + result.append_message_result.wrote_bytes


@pytest.mark.spec("STORE-13")
def test_a_sync_put_completes_only_after_the_flush_covers_its_record(make_store, rt, world):
    store = make_store()
    future = store.async_put_message(inner(rt, 0))
    assert not future.done()  # queued for the group commit
    assert store.commit_log.mapped_file_queue.flushed_where == 0
    result = future.result(10_000)
    assert result.put_message_status is PutMessageStatus.PUT_OK
    assert store.commit_log.mapped_file_queue.flushed_where >= record_end(result)
    assert world.now_ms() == world.start_ms  # the service was woken at once: no virtual time passed


@pytest.mark.spec("STORE-13", "STORE-15")
def test_one_group_commit_serves_every_waiting_put(make_store, rt):
    store = make_store()
    futures = [store.async_put_message(inner(rt, i)) for i in range(5)]
    results = [f.result(10_000) for f in futures]
    assert {r.put_message_status for r in results} == {PutMessageStatus.PUT_OK}
    commits = rt.trace.events("GroupCommitService", event="doCommit")
    assert [e.fields["requests"] for e in commits] == [5]


@pytest.mark.spec("STORE-14")
def test_a_put_with_wait_false_returns_at_once_and_is_flushed_by_the_next_round(make_store, rt, world):
    store = make_store()
    future = store.async_put_message(inner(rt, 0, wait=False))
    assert future.done()
    result = future.result(0)
    assert result.put_message_status is PutMessageStatus.PUT_OK
    assert store.commit_log.mapped_file_queue.flushed_where < record_end(result)
    world.run_for(10)
    assert store.commit_log.mapped_file_queue.flushed_where == record_end(result)


@pytest.mark.spec("STORE-13", "STORE-21")
def test_without_a_running_flush_service_the_put_times_out_after_sync_flush_timeout(make_store, rt, world, monkeypatch):
    store = make_store(start=False, sync_flush_timeout=2000)
    monkeypatch.setattr(store.commit_log.flush_commit_log_service, "start", lambda: None)
    store.start()
    before = world.now_ms()
    result = store.put_message(inner(rt, 0))
    assert result.put_message_status is PutMessageStatus.FLUSH_DISK_TIMEOUT
    assert world.now_ms() - before == 2000
    assert result.is_ok()  # the message is in the CommitLog, only its flush is not confirmed
    world.run_for(10)
    assert store.get_max_offset_in_queue(TOPIC, 0) == 1
    assert rt.trace.events("FlushDiskWatcher", event="timeout")


@pytest.mark.spec("STORE-13")
def test_the_default_sync_flush_timeout_is_5_seconds(make_store, rt, world, monkeypatch):
    store = make_store(start=False)
    monkeypatch.setattr(store.commit_log.flush_commit_log_service, "start", lambda: None)
    store.start()
    before = world.now_ms()
    assert store.put_message(inner(rt, 0)).put_message_status is PutMessageStatus.FLUSH_DISK_TIMEOUT
    assert world.now_ms() - before == 5000


@pytest.mark.spec("STORE-13")
def test_a_flush_that_makes_no_progress_fails_the_request_after_two_attempts(make_store, rt, world, monkeypatch):
    store = make_store()
    attempts = []
    monkeypatch.setattr(store.commit_log.mapped_file_queue, "flush", lambda least: attempts.append(least) or True)
    before = world.now_ms()
    result = store.put_message(inner(rt, 0))
    assert result.put_message_status is PutMessageStatus.FLUSH_DISK_TIMEOUT
    assert world.now_ms() == before  # decided by doCommit, not by the watcher's deadline
    assert attempts == [0, 0]


@pytest.mark.store_left_damaged
@pytest.mark.spec("STORE-15")
def test_run_once_serves_the_requests_swapped_in_at_the_end_of_the_wait(rt, make_store):
    store = make_store(start=False)
    service = store.commit_log.flush_commit_log_service
    assert isinstance(service, GroupCommitService)
    mfq = store.commit_log.mapped_file_queue
    mapped_file = mfq.get_last_mapped_file(0, need_create=True)
    mapped_file.append_message_bytes(b"r" * 300)
    mapped_file.store_timestamp = 1_650_000_000_999
    request = GroupCommitRequest(300, rt.now_ms() + 5000, rt.scheduler.new_future())
    service.put_request(request)
    assert service.run_once() == 0  # still in the write list: nothing to serve yet
    assert mfq.flushed_where == 300  # but an idle round still flushes
    service.on_wait_end()
    assert service.run_once() == 1
    assert request.future().result(0) is PutMessageStatus.PUT_OK
    assert store.store_checkpoint.physic_msg_timestamp == 1_650_000_000_999


@pytest.mark.store_left_damaged
@pytest.mark.spec("STORE-15")
def test_an_idle_round_flushes_what_wait_false_puts_left(rt, make_store):
    store = make_store(start=False)
    service = store.commit_log.flush_commit_log_service
    mapped_file = store.commit_log.mapped_file_queue.get_last_mapped_file(0, need_create=True)
    mapped_file.append_message_bytes(b"s" * 10)
    service.on_wait_end()
    assert service.run_once() == 0
    assert store.commit_log.mapped_file_queue.flushed_where == 10


@pytest.mark.spec("STORE-15")
def test_the_service_waits_10_ms_between_rounds(make_store):
    assert make_store(start=False).commit_log.flush_commit_log_service.wait_interval_ms() == 10


@pytest.mark.spec("STORE-13")
def test_a_record_more_than_one_segment_past_the_flushed_offset_times_out_at_once(make_store, rt, world):
    # doCommit flushes at most twice per request and each flush covers one segment (4.9.3's rule).
    store = make_store()
    mfq = store.commit_log.mapped_file_queue
    i = 0
    while len(mfq.mapped_files) < 3:  # WAIT=false puts never drive the simulation: nothing is flushed
        assert store.put_message(inner(rt, i, wait=False)).put_message_status is PutMessageStatus.PUT_OK
        i += 1
    assert mfq.flushed_where == 0
    before = world.now_ms()
    late = store.put_message(inner(rt, i))
    assert late.put_message_status is PutMessageStatus.FLUSH_DISK_TIMEOUT
    assert world.now_ms() == before
    assert mfq.flushed_where == 2 * 4096
    assert store.put_message(inner(rt, i + 1)).put_message_status is PutMessageStatus.PUT_OK

"""FlushDiskWatcher (new in 4.9.3): a synchronous-flush request not served by its deadline gets FLUSH_DISK_TIMEOUT
(after 4.9.3's FlushDiskWatcherTest, in virtual time)."""

import pytest

from mqlab.store.flush_disk_watcher import FlushDiskWatcher
from mqlab.store.group_commit_request import GroupCommitRequest
from mqlab.store.put_message_status import PutMessageStatus

TIMEOUT_MS = 5000


def requests(rt, watcher, count=100):
    made = []
    for _ in range(count):
        request = GroupCommitRequest(0, rt.now_ms() + TIMEOUT_MS, rt.scheduler.new_future())
        watcher.add(request)
        made.append(request)
    return made


@pytest.mark.spec("STORE-21")
def test_requests_not_served_in_time_time_out_and_stay_timed_out(rt, world):
    # 4.9.3 FlushDiskWatcherTest#testTimeout
    watcher = FlushDiskWatcher(rt)
    made = requests(rt, watcher)
    world.run_for(TIMEOUT_MS - 1)
    assert not any(r.future().done() for r in made)
    world.run_for(TIMEOUT_MS + 1)
    for request in made:
        request.wakeup_customer(PutMessageStatus.PUT_OK)  # too late: the first completion wins
    assert all(r.future().result(0) is PutMessageStatus.FLUSH_DISK_TIMEOUT for r in made)
    assert watcher.pending == 0


@pytest.mark.spec("STORE-21")
def test_requests_served_in_time_keep_their_status(rt, world):
    # 4.9.3 FlushDiskWatcherTest#testWatcher
    watcher = FlushDiskWatcher(rt)
    made = requests(rt, watcher)
    for request in made:
        request.wakeup_customer(PutMessageStatus.PUT_OK)
    world.run_for(2 * TIMEOUT_MS)
    assert all(r.future().result(0) is PutMessageStatus.PUT_OK for r in made)
    assert watcher.pending == 0

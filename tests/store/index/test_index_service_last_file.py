"""IndexService#buildIndex reads the last file without the service lock while it has room (issue 25, item 6)."""

from __future__ import annotations

from tests.store.index.index_helpers import TOPIC, request


class _CountingLock:
    """The service's lock, counting how often it is taken."""

    def __init__(self, lock) -> None:
        self.inner = lock
        self.taken = 0

    def __enter__(self):
        self.taken += 1
        return self.inner.__enter__()

    def __exit__(self, *exc):
        return self.inner.__exit__(*exc)


def test_build_index_takes_no_lock_while_the_last_file_has_room(make_index_service):
    service = make_index_service(hash_slot_num=8, index_num=20)
    service.build_index(request(0, keys="k0"))  # creates the first file (under the lock)
    lock = service._lock = _CountingLock(service._lock)
    for i in range(1, 6):
        service.build_index(request(100 * i, keys=f"k{i}"))
    assert lock.taken == 0
    assert len(service.index_file_list) == 1
    assert service.query_offset(TOPIC, "k5", 10, 0, 2**62).phy_offsets == [500]


def test_build_index_rolls_to_a_new_file_through_the_locked_path(make_index_service):
    # index_num=3: entry 0 is never used, so each file holds two entries (one record with two keys here).
    service = make_index_service(hash_slot_num=8, index_num=3)
    lock = service._lock = _CountingLock(service._lock)
    service.build_index(request(0, keys="a b"))  # no file yet: created under the lock
    created = lock.taken
    assert created > 0 and len(service.index_file_list) == 1
    service.build_index(request(100, keys="c"))  # the file is full: the locked path makes the next one
    assert lock.taken > created
    assert len(service.index_file_list) == 2
    assert service.index_file_list[1].end_phy_offset == 100
    assert service.query_offset(TOPIC, "a", 10, 0, 2**62).phy_offsets == [0]
    assert service.query_offset(TOPIC, "c", 10, 0, 2**62).phy_offsets == [100]

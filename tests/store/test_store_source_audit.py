"""AUDIT-*: divergences from 4.9.3 in the store, found by reading the source side by side, pinned to 4.9.3."""

from __future__ import annotations

import pytest

from mqlab.common.message import message_const as mc
from mqlab.common.topic.topic_validator import RMQ_SYS_SCHEDULE_TOPIC
from mqlab.store.put_message_status import PutMessageStatus
from mqlab.store.reput_message_service import ReputMessageService
from tests.store.helpers import inner, keys_of, read_queue, segment_files


# -- AUDIT-1 -------------------------------------------------------------------------------------------------------
@pytest.mark.spec("AUDIT-1")
def test_start_waits_for_reput_however_long_it_takes(make_store, rt, world, monkeypatch):
    store = make_store()
    for i in range(30):
        assert store.put_message(inner(rt, i)).put_message_status is PutMessageStatus.PUT_OK
    store.shutdown()
    for path in (store.root / "consumequeue").rglob("*"):
        if path.is_file():
            path.unlink()  # every unit must be dispatched again at the next start
    started = world.clock.now_ms()
    real_run_once = ReputMessageService.run_once

    def slow_run_once(self):  # reput makes no progress for the first 90 s of virtual time
        return real_run_once(self) if world.clock.now_ms() - started > 90_000 else 0

    monkeypatch.setattr(ReputMessageService, "run_once", slow_run_once)
    again = make_store()
    assert world.clock.now_ms() - started > 90_000  # 4.9.3 waits; mqlab used to give up after 60 s
    assert again.dispatch_behind_bytes() == 0
    result = again.put_message(inner(rt, 30)).append_message_result
    assert result.logics_offset == 30  # not an offset an undispatched record already holds
    rt.scheduler.sleep(10)
    assert keys_of(read_queue(again)) == [f"k{i}" for i in range(31)]


# -- AUDIT-7 -------------------------------------------------------------------------------------------------------
@pytest.mark.spec("AUDIT-7")
def test_get_message_answers_none_before_start_and_after_shutdown(make_store, rt):
    store = make_store()
    store.put_message(inner(rt, 0))
    rt.scheduler.sleep(10)
    assert store.get_message("G", "TopicTest", 0, 0, 32) is not None
    store.shutdown()
    assert store.get_message("G", "TopicTest", 0, 0, 32) is None
    loaded = make_store(start=False)
    assert loaded.get_message("G", "TopicTest", 0, 0, 32) is None
    loaded.start()
    assert loaded.get_message("G", "TopicTest", 0, 0, 32).status.name == "FOUND"


# -- AUDIT-8 -------------------------------------------------------------------------------------------------------
@pytest.mark.store_left_damaged
@pytest.mark.spec("AUDIT-8")
def test_a_schedule_record_whose_delay_is_not_a_number_stops_recovery_there(make_store, rt, store_root):
    store = make_store()
    for i in range(3):
        store.put_message(inner(rt, i))
    delayed = store.put_message(inner(rt, 3, properties={mc.PROPERTY_DELAY_TIME_LEVEL: "3"})).append_message_result
    for i in range(4, 6):
        store.put_message(inner(rt, i))
    rt.scheduler.sleep(10)
    store.shutdown()
    # Properties are not covered by the body CRC: turn DELAY 3 into DELAY x in the file, as a damaged copy could.
    path = segment_files(store_root / "commitlog")[0]
    data = bytearray(path.read_bytes())
    record = data[delayed.wrote_offset : delayed.wrote_offset + delayed.wrote_bytes]
    at = delayed.wrote_offset + record.index(b"DELAY\x013") + len(b"DELAY\x01")
    data[at : at + 1] = b"x"
    path.write_bytes(bytes(data))
    (store_root / "abort").touch()
    again = make_store()
    outcome = again.recovery_report.commit_log
    assert again.get_max_phy_offset() == delayed.wrote_offset  # 4.9.3's check fails on Integer.parseInt here
    assert (
        outcome.stopped_because
        == f"{RMQ_SYS_SCHEDULE_TOPIC} record at {delayed.wrote_offset} has DELAY 'x', not a number"
    )
    assert keys_of(read_queue(again)) == ["k0", "k1", "k2"]
    assert outcome.quarantined is not None  # the cut records are kept (HARD-5)


@pytest.mark.spec("AUDIT-8")
@pytest.mark.parametrize(("delay", "ok"), [("3", True), ("+3", True), ("03", True), ("three", False), (" 3", False)])
def test_the_delay_of_a_schedule_record_is_read_as_integer_parse_int(make_store, rt, delay, ok):
    store = make_store()
    commit_log = store.commit_log
    properties = f"{mc.PROPERTY_DELAY_TIME_LEVEL}\x01{delay}\x02".encode()
    request = commit_log._dispatch_request(100, RMQ_SYS_SCHEDULE_TOPIC, 2, 0, 1_000, 0, 0, 0, properties)
    assert request.success is ok
    if ok:
        assert request.tags_code == 1_000 + 10_000  # level 3: 10 s after the store time
    else:
        assert request.msg_size == -1 and "not a number" in request.reason


@pytest.mark.spec("AUDIT-11")
def test_os_page_cache_busy_only_for_a_lock_held_between_the_timeout_and_10_000_000_ms(tmp_path):
    from mqlab.runtime import SimulatedWorld
    from mqlab.store.default_message_store import DefaultMessageStore
    from tests.store.helpers import small_config

    rt = SimulatedWorld().runtime("n")
    store = DefaultMessageStore(small_config(tmp_path / "s"), rt)
    store.load()
    try:
        now = rt.now_ms()
        cases = {0: False, now - 500: False, now - 1001: True, now - 9_999_999: True, now - 10_000_000: False}
        for begin, busy in cases.items():
            store.commit_log.begin_time_in_lock = begin
            assert store.is_os_page_cache_busy() is busy, begin
    finally:
        store.shutdown()

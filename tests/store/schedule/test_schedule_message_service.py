"""ScheduleMessageService: levels, storing, offsets file, load order, life cycle (docs/spec/store-delay-messages.md)."""

from __future__ import annotations

import pytest

from mqlab.common.jdk.string_hash import java_string_hash
from mqlab.common.topic.topic_validator import RMQ_SYS_SCHEDULE_TOPIC
from mqlab.store.config import store_path_config_helper as paths
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.crash import simulate_crash
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.schedule.schedule_message_service import InvalidDelayLevelError, ScheduleMessageService
from mqlab.store.store_errors import StoreLoadError
from tests.store.helpers import small_config
from tests.store.schedule.delay_helpers import delivered, put_delayed, schedule_messages, schedule_units

SECOND, MINUTE, HOUR = 1000, 60_000, 3_600_000


def service_for(rt, tmp_path, level_string: str) -> ScheduleMessageService:
    store = DefaultMessageStore(small_config(tmp_path, message_delay_level=level_string), rt)
    return store.schedule_message_service


# --- levels --------------------------------------------------------------------------------------------------------


@pytest.mark.spec("DELAY-1")
def test_default_levels_parse_to_the_4_9_3_table(make_store):
    service = make_store(start=False).schedule_message_service
    assert MessageStoreConfig().message_delay_level == "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h"
    assert service.get_max_delay_level() == 18
    assert service.delay_level_table == {
        1: 1 * SECOND,
        2: 5 * SECOND,
        3: 10 * SECOND,
        4: 30 * SECOND,
        **{level: (level - 4) * MINUTE for level in range(5, 15)},
        15: 20 * MINUTE,
        16: 30 * MINUTE,
        17: 1 * HOUR,
        18: 2 * HOUR,
    }


@pytest.mark.spec("DELAY-1")
def test_constants_and_defaults_match_4_9_3():
    assert ScheduleMessageService.FIRST_DELAY_TIME == 1000  # ScheduleMessageService.FIRST_DELAY_TIME
    assert ScheduleMessageService.DELAY_FOR_A_WHILE == 100  # ScheduleMessageService.DELAY_FOR_A_WHILE
    assert ScheduleMessageService.DELAY_FOR_A_PERIOD == 10_000  # ScheduleMessageService.DELAY_FOR_A_PERIOD
    assert MessageStoreConfig().flush_delay_offset_interval == 10_000  # MessageStoreConfig.flushDelayOffsetInterval
    assert MessageStoreConfig().enable_schedule_async_deliver is False  # MessageStoreConfig.enableScheduleAsyncDeliver


@pytest.mark.spec("DELAY-1")
def test_levels_are_not_parsed_before_load(rt, tmp_path):
    service = service_for(rt, tmp_path, "1s 5s")
    assert service.get_max_delay_level() == 0
    assert service.delay_level_table == {}


@pytest.mark.spec("DELAY-2")
@pytest.mark.parametrize(
    ("level_string", "table"),
    [
        ("2d", {1: 2 * 86_400_000}),
        ("1s 2m 3h 4d", {1: 1000, 2: 120_000, 3: 10_800_000, 4: 345_600_000}),
        ("1s 5s ", {1: 1000, 2: 5000}),  # Java's split drops trailing empty tokens
        ("+3s 0s -1s", {1: 3000, 2: 0, 3: -1000}),  # what Long#parseLong accepts
    ],
)
def test_level_strings_java_accepts(rt, tmp_path, level_string, table):
    service = service_for(rt, tmp_path, level_string)
    assert service.parse_delay_level() is True
    assert service.delay_level_table == table
    assert service.get_max_delay_level() == len(table)


@pytest.mark.spec("DELAY-2")
@pytest.mark.parametrize(
    ("level_string", "token", "level"),
    [
        ("1s 5x", "5x", 2),  # unknown unit
        ("1s  5s", "", 2),  # a double space makes an empty token
        (" 1s", "", 1),
        ("1s 10ms", "10ms", 2),  # "10m" is not a number
        ("1S", "1S", 1),  # units are lower case
        ("s", "s", 1),
        ("1s 99999999999999999999s", "99999999999999999999s", 2),  # beyond a Java long
        ("", "", 1),
    ],
)
def test_a_bad_token_is_named(rt, tmp_path, level_string, token, level):
    service = service_for(rt, tmp_path, level_string)
    with pytest.raises(InvalidDelayLevelError) as caught:
        service.parse_delay_level()
    assert caught.value.token == token
    assert caught.value.level == level
    assert caught.value.key == "messageDelayLevel"
    assert repr(token) in str(caught.value) and f"token {level} of" in str(caught.value)


@pytest.mark.spec("DELAY-2")
def test_a_bad_level_string_stops_the_store_loading(rt, tmp_path):
    store = DefaultMessageStore(small_config(tmp_path, message_delay_level="1s 5q"), rt)
    try:
        with pytest.raises(InvalidDelayLevelError, match="5q"):
            store.load()
    finally:
        store._close_files()


@pytest.mark.spec("DELAY-3")
def test_level_and_queue_id_and_deliver_timestamp(make_store):
    service = make_store(start=False).schedule_message_service
    assert [ScheduleMessageService.delay_level2queue_id(level) for level in (1, 2, 18)] == [0, 1, 17]
    assert [ScheduleMessageService.queue_id2delay_level(q) for q in (0, 1, 17)] == [1, 2, 18]
    assert service.compute_deliver_timestamp(3, 1_650_000_000_000) == 1_650_000_010_000
    assert service.compute_deliver_timestamp(18, 0) == 7_200_000
    assert service.compute_deliver_timestamp(999, 0) == 1000  # no such level: one second (ScheduleMessageServiceTest)


# --- storing -------------------------------------------------------------------------------------------------------


@pytest.mark.spec("DELAY-4")
def test_a_delayed_message_waits_in_the_schedule_queue_of_its_level(make_store, world):
    store = make_store()
    world.run_for(5)
    offset = put_delayed(store, 1, 3, queue_id=2)
    world.run_for(5)  # reput builds the ConsumeQueue unit
    assert offset == 0
    [msg] = schedule_messages(store, 3)
    assert msg.topic == RMQ_SYS_SCHEDULE_TOPIC and msg.queue_id == 2  # queue level - 1
    assert msg.get_property("REAL_TOPIC") == "TopicTest"
    assert msg.get_property("REAL_QID") == "2"
    assert msg.get_property("DELAY") == "3"
    [(commit_log_offset, size, tags_code)] = schedule_units(store, 3)
    assert (commit_log_offset, size) == (msg.commit_log_offset, msg.store_size)
    assert tags_code == msg.store_timestamp + 10_000  # the deliver time, not the hash of "TagA"
    assert tags_code != java_string_hash("TagA")
    assert delivered(store, 2) == []


@pytest.mark.spec("DELAY-5")
def test_a_level_above_the_highest_is_clamped(make_store, world):
    store = make_store()
    put_delayed(store, 1, 20)
    world.run_for(5)
    [msg] = schedule_messages(store, 18)
    assert msg.queue_id == 17
    assert msg.get_property("DELAY") == "18"
    [(_, _, tags_code)] = schedule_units(store, 18)
    assert tags_code == msg.store_timestamp + 2 * HOUR


@pytest.mark.spec("DELAY-5")
def test_level_zero_or_below_is_not_delayed(make_store, world):
    store = make_store()
    put_delayed(store, 1, 0)
    world.run_for(5)
    assert [m.get_keys() for m in delivered(store)] == ["k1"]
    assert store.get_max_offset_in_queue(RMQ_SYS_SCHEDULE_TOPIC, 0) == 0


# --- the offsets file ----------------------------------------------------------------------------------------------


def offsets_file(store: DefaultMessageStore):
    return paths.get_delay_offset_store_path(store.config.store_path_root_dir)


@pytest.mark.spec("DELAY-9")
def test_offsets_are_persisted_as_fastjson_writes_them(make_store, world):
    store = make_store()
    put_delayed(store, 1, 1)
    put_delayed(store, 2, 3)
    world.run_for(10_000)  # at 10 s the first periodic persist runs just before level 3's delivery
    assert offsets_file(store).read_text() == '{\n\t"offsetTable":{1:1\n\t}\n}'
    assert store.schedule_message_service.encode() == '{"offsetTable":{1:1,3:1}}'
    store.shutdown()
    assert offsets_file(store).read_text() == '{\n\t"offsetTable":{1:1,3:1\n\t}\n}'


@pytest.mark.spec("DELAY-9")
def test_persist_runs_after_10_s_then_every_interval_and_at_shutdown(make_store, world):
    store = make_store(flush_delay_offset_interval=3000)
    path = offsets_file(store)
    world.run_for(9_999)
    assert not path.exists()  # nothing persisted before the first 10 s
    world.run_for(1)
    assert path.read_text() == '{\n\t"offsetTable":{}\n}'  # nothing delivered yet: an empty table
    put_delayed(store, 1, 1)
    world.run_for(1_200)  # delivered
    assert store.schedule_message_service.offset_table == {1: 1}
    assert "1:1" not in path.read_text()
    world.run_for(1_800)  # 13 s: the second periodic persist
    assert path.read_text() == '{\n\t"offsetTable":{1:1\n\t}\n}'
    assert (path.parent / "delayOffset.json.bak").read_text() == '{\n\t"offsetTable":{}\n}'
    assert not (path.parent / "delayOffset.json.tmp").exists()
    put_delayed(store, 2, 1)
    world.run_for(1_100)  # delivered at 14.1 s, before the next periodic persist (16 s)
    store.shutdown()
    assert path.read_text() == '{\n\t"offsetTable":{1:2\n\t}\n}'


@pytest.mark.spec("DELAY-9")
@pytest.mark.parametrize(
    "text",
    [
        '{\n\t"offsetTable":{1:5,2:0\n\t}\n}',  # what fastjson writes
        '{"offsetTable":{1:5,2:0}}',
        '{"offsetTable": {"1": 5, "2": 0}}',  # standard JSON
    ],
)
def test_both_the_fastjson_form_and_standard_json_are_read(make_store, store_root, text):
    path = paths.get_delay_offset_store_path(store_root)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    store = make_store(start=False)
    # correct_delay_offset clamps into the (empty) queues; decoding itself reads both forms
    service = store.schedule_message_service
    service.offset_table.clear()
    service.decode(text)
    assert service.offset_table == {1: 5, 2: 0}


@pytest.mark.spec("DELAY-9")
def test_an_unreadable_file_falls_back_to_the_backup(make_store, store_root):
    path = paths.get_delay_offset_store_path(store_root)
    path.parent.mkdir(parents=True)
    path.write_text('{\n\t"offsetTable":{1:oops\n\t}\n}')
    (path.parent / "delayOffset.json.bak").write_text('{"offsetTable":{1:0}}')
    store = make_store(start=False)
    assert store.schedule_message_service.offset_table == {1: 0}


@pytest.mark.spec("DELAY-9")
def test_unreadable_file_and_backup_fail_the_load(rt, store_root):
    path = paths.get_delay_offset_store_path(store_root)
    path.parent.mkdir(parents=True)
    path.write_text('{"offsetTable":{"one":1}}')
    (path.parent / "delayOffset.json.bak").write_text("[")
    store = DefaultMessageStore(small_config(store_root), rt)
    try:
        with pytest.raises(StoreLoadError, match=r"delayOffset\.json"):
            store.load()
    finally:
        store._close_files()


# --- load order and correctDelayOffset ------------------------------------------------------------------------------


@pytest.mark.spec("DELAY-12")
def test_load_clamps_offsets_into_the_recovered_queues_and_start_reads_the_file_again(make_store, store_root, world):
    store = make_store()
    for i in range(3):
        put_delayed(store, i, 2)
    world.run_for(10)
    store.shutdown()  # level 2 queue holds offsets 0..2 (max 3), nothing delivered yet
    path = paths.get_delay_offset_store_path(store_root)
    path.write_text('{\n\t"offsetTable":{1:7,2:50\n\t}\n}')
    world.trace.clear()
    store = make_store(start=False)
    service = store.schedule_message_service
    assert service.offset_table == {1: 0, 2: 3}  # level 1: empty queue (max 0); level 2: max 3
    assert [e.fields["level"] for e in world.trace.events("ScheduleMessageService")] == [1, 2]
    store.start()
    assert service.offset_table == {1: 7, 2: 50}  # start() merged the file back in: the corrections are gone
    world.run_for(1000)  # the first tasks find no unit at 7 and 50 and reset to the queue max
    resets = [
        (e.fields["level"], e.fields["offset"], e.fields["reset"]) for e in world.trace.events(event="resetOffset")
    ]
    assert resets == [(1, 7, 0), (2, 50, 3)]
    put_delayed(store, 9, 1)
    world.run_for(1200)
    assert [m.get_keys() for m in delivered(store)] == ["k9"]


@pytest.mark.spec("DELAY-12")
def test_the_schedule_service_loads_after_recovery(make_store, monkeypatch):
    calls = []
    original_recover = DefaultMessageStore.recover
    original_load = ScheduleMessageService.load

    def recover(self, *args, **kwargs):
        calls.append(("recover", self.schedule_message_service.get_max_delay_level()))
        return original_recover(self, *args, **kwargs)

    def load(self):
        calls.append(("schedule load", self.get_max_delay_level()))
        return original_load(self)

    monkeypatch.setattr(DefaultMessageStore, "recover", recover)
    monkeypatch.setattr(ScheduleMessageService, "load", load)
    store = make_store(start=False)
    assert calls == [("recover", 0), ("schedule load", 0)]
    assert store.commit_log.schedule_message_service is store.schedule_message_service


@pytest.mark.spec("DELAY-13")
def test_after_a_crash_a_re_dispatched_delayed_message_loses_its_deliver_time(make_store, store_root, rt, world):
    store = make_store()
    put_delayed(store, 1, 4, tags="TagA")  # 30 s
    world.run_for(10)  # dispatched to the schedule queue, but the ConsumeQueue is not flushed yet
    report = simulate_crash(store)
    assert report.consume_queue_bytes_lost > 0
    store = make_store()  # abnormal recovery re-dispatches the record before the levels are parsed
    [(_, _, tags_code)] = schedule_units(store, 4)
    assert tags_code == java_string_hash("TagA")  # not store time + 30 s
    world.run_for(999)
    assert delivered(store) == []
    world.run_for(1)  # the very first task finds it "due": delivered 1 s after the restart, not 30 s after the send
    assert [m.get_keys() for m in delivered(store)] == ["k1"]


@pytest.mark.spec("DELAY-13")
def test_after_a_clean_restart_the_deliver_time_is_kept(make_store, world):
    store = make_store()
    put_delayed(store, 1, 4)
    world.run_for(10)
    store.shutdown()
    store = make_store()
    [(_, _, tags_code)] = schedule_units(store, 4)
    [msg] = schedule_messages(store, 4)
    assert tags_code == msg.store_timestamp + 30_000


# --- life cycle ----------------------------------------------------------------------------------------------------


@pytest.mark.spec("DELAY-16")
def test_a_slave_does_not_deliver(make_store, world):
    store = make_store(broker_role=BrokerRole.SLAVE)
    assert not store.schedule_message_service.is_started()
    master = make_store(root=store.root.parent / "master")
    assert master.schedule_message_service.is_started()
    master.handle_schedule_message_service(BrokerRole.SLAVE)
    assert not master.schedule_message_service.is_started()
    assert offsets_file(master).exists()  # stopping persists
    master.handle_schedule_message_service(BrokerRole.SYNC_MASTER)
    assert master.schedule_message_service.is_started()


@pytest.mark.spec("DELAY-17")
def test_asynchronous_delivery_is_refused(rt, store_root):
    store = DefaultMessageStore(small_config(store_root, enable_schedule_async_deliver=True), rt)
    try:
        with pytest.raises(StoreLoadError, match="enableScheduleAsyncDeliver"):
            store.load()
    finally:
        store._close_files()


@pytest.mark.spec("DELAY-9")
def test_running_stats_show_recorded_and_max_offsets(make_store, world):
    store = make_store()
    put_delayed(store, 1, 1)
    put_delayed(store, 2, 2)
    world.run_for(1_200)
    assert store.schedule_message_service.build_running_stats() == {"scheduleMessageOffset_1": "1,1"}

"""The delivery timer of each delay level (docs/spec/store-delay-messages.md): timing, the delivered copy, failures,
the offsets 4.9.3 records and what a restart then does."""

from __future__ import annotations

import pytest

from mqlab.common import util_all
from mqlab.common.jdk.string_hash import java_string_hash
from mqlab.common.message import message_decoder
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.common.topic.topic_validator import RMQ_SYS_SCHEDULE_TOPIC, RMQ_SYS_TRANS_HALF_TOPIC
from mqlab.runtime import SimulatedWorld
from mqlab.runtime.simulated import DEFAULT_START_MS
from mqlab.store.put_message_result import PutMessageResult
from mqlab.store.put_message_status import PutMessageStatus
from mqlab.store.schedule.deliver_delayed_message_timer_task import DeliverDelayedMessageTimerTask
from tests.store.helpers import read_queue
from tests.store.schedule.delay_helpers import delayed, delivered, put_delayed, schedule_messages

DAY = 86_400_000


def keys(messages):
    return [m.get_keys() for m in messages]


def deliveries(world):
    return [
        (e.time_ms - world.start_ms, e.fields["level"], e.fields["offset"]) for e in world.trace.events(event="deliver")
    ]


# --- timing --------------------------------------------------------------------------------------------------------


@pytest.mark.spec("DELAY-6")
def test_first_poll_one_second_after_start_then_every_100_ms(make_store, world):
    store = make_store()  # started at +0
    world.run_for(50)
    put_delayed(store, 1, 1)  # stored at +50: due at +1050
    put_delayed(store, 2, 2)  # due at +5050
    world.run_for(1049)  # +1099: the polls at +1000 (not due) and ... nothing yet
    assert delivered(store) == []
    world.run_for(1)  # +1100: the next poll
    assert keys(delivered(store)) == ["k1"]
    world.run_for(3999)  # +5099
    assert keys(delivered(store)) == ["k1"]
    world.run_for(1)
    assert keys(delivered(store)) == ["k1", "k2"]
    assert deliveries(world) == [(1100, 1, 0), (5100, 2, 0)]
    assert [m.store_timestamp - world.start_ms for m in delivered(store)] == [1100, 5100]


@pytest.mark.spec("DELAY-6")
def test_one_task_per_level_starts_one_second_after_start(make_store, world):
    store = make_store()
    service = store.schedule_message_service
    assert sorted(service._pending_tasks) == list(range(1, 19))
    put_delayed(store, 1, 1)  # stored at +0, due exactly at +1000: delivered by the very first task
    world.run_for(999)
    assert delivered(store) == []
    world.run_for(1)
    assert deliveries(world) == [(1000, 1, 0)]


@pytest.mark.spec("DELAY-6")
def test_due_messages_of_one_level_go_out_in_queue_order_in_one_run(make_store, world):
    store = make_store()
    for i in range(3):
        put_delayed(store, i, 1, queue_id=i % 2)
    world.run_for(1000)
    assert deliveries(world) == [(1000, 1, 0), (1000, 1, 1), (1000, 1, 2)]
    assert keys(delivered(store, 0)) == ["k0", "k2"]
    assert keys(delivered(store, 1)) == ["k1"]


@pytest.mark.spec("DELAY-6")
def test_a_task_run_returns_what_it_delivered_and_schedules_its_successor(make_store, world):
    store = make_store()
    service = store.schedule_message_service
    put_delayed(store, 1, 1)
    put_delayed(store, 2, 1)
    world.run_for(10)
    store.shutdown_flag = True  # keep the store's own chain quiet while the test drives one run by hand
    world.run_for(2000)
    store.shutdown_flag = False
    task = DeliverDelayedMessageTimerTask(service, 1, 0)
    assert task.run() == 2
    successor = service._pending_tasks[1]
    assert successor.time_ms == world.now_ms() + 100


# --- the delivered copy --------------------------------------------------------------------------------------------


@pytest.mark.spec("DELAY-7")
def test_the_delivered_copy_keeps_delay_real_topic_and_real_qid(make_store, world):
    store = make_store()
    put_delayed(store, 1, 1, queue_id=3, tags="TagA")
    world.run_for(1100)
    [original] = schedule_messages(store, 1)
    [copy] = delivered(store, 3)
    assert copy.topic == "TopicTest" and copy.queue_id == 3
    assert copy.get_property("DELAY") == "1"
    assert copy.get_property("REAL_TOPIC") == "TopicTest"
    assert copy.get_property("REAL_QID") == "3"
    assert copy.get_property("WAIT") == "true"  # the string was built before WAIT=false was set
    # the copy's properties string is the schedule copy's, byte for byte
    assert message_decoder.message_properties2string(copy.properties) == message_decoder.message_properties2string(
        original.properties
    )
    assert copy.body == original.body
    assert (copy.born_timestamp, copy.born_host, copy.store_host) == (
        original.born_timestamp,
        original.born_host,
        original.store_host,
    )
    assert copy.store_timestamp == original.store_timestamp + 1000
    unit = store.find_consume_queue("TopicTest", 3).get_index_buffer(0)
    assert int.from_bytes(unit.data[12:20], "big", signed=True) == java_string_hash("TagA")


@pytest.mark.spec("DELAY-7")
def test_the_delivered_copy_is_not_delayed_again(make_store, world):
    store = make_store()
    put_delayed(store, 1, 1)
    world.run_for(5000)
    assert store.get_max_offset_in_queue(RMQ_SYS_SCHEDULE_TOPIC, 0) == 1
    assert keys(delivered(store)) == ["k1"]


@pytest.mark.spec("DELAY-7")
def test_a_compressed_body_is_delivered_still_compressed(make_store, world):
    store = make_store()
    body = b"compress me " * 50
    msg = delayed(store.runtime, 1, 1, body=util_all.compress(body, 5), sys_flag=int(MessageSysFlag.COMPRESSED_FLAG))
    assert store.put_message(msg).is_ok()
    world.run_for(1100)
    [copy] = delivered(store)  # decoded as a consumer would: inflated
    assert copy.body == body
    assert copy.sys_flag & MessageSysFlag.COMPRESSED_FLAG


# --- failures ------------------------------------------------------------------------------------------------------


@pytest.mark.spec("DELAY-8")
def test_a_failed_put_is_retried_at_the_same_unit_after_100_ms(make_store, world, monkeypatch):
    store = make_store()
    put_delayed(store, 1, 1)
    put_delayed(store, 2, 1)
    real_put = store.put_message
    failures = iter([PutMessageResult(PutMessageStatus.OS_PAGECACHE_BUSY)])

    def flaky_put(msg):
        if msg.topic == "TopicTest":
            return next(failures, None) or real_put(msg)
        return real_put(msg)

    monkeypatch.setattr(store, "put_message", flaky_put)
    world.run_for(1100)
    failed = [
        (e.time_ms - world.start_ms, e.fields["offset"], e.fields["status"])
        for e in world.trace.events(event="deliverFailed")
    ]
    assert failed == [(1000, 0, "OS_PAGECACHE_BUSY")]
    assert deliveries(world) == [(1100, 1, 0), (1100, 1, 1)]
    assert keys(delivered(store)) == ["k1", "k2"]


@pytest.mark.spec("DELAY-8")
def test_a_unit_whose_message_cannot_be_read_is_skipped(make_store, world, monkeypatch):
    store = make_store()
    put_delayed(store, 1, 1)
    put_delayed(store, 2, 1)
    world.run_for(10)
    service = store.schedule_message_service
    first = schedule_messages(store, 1)[0].commit_log_offset
    real_look = service.look_message_by_offset
    monkeypatch.setattr(service, "look_message_by_offset", lambda o, s: None if o == first else real_look(o, s))
    world.run_for(1000)
    assert keys(delivered(store)) == ["k2"]
    assert service.offset_table == {1: 1}  # recorded after the second unit: task start 0 + 1


@pytest.mark.spec("DELAY-8")
def test_a_delayed_half_message_is_dropped(make_store, world):
    store = make_store()
    put_delayed(store, 1, 1, topic=RMQ_SYS_TRANS_HALF_TOPIC)
    put_delayed(store, 2, 1)
    world.run_for(1100)
    assert [e.fields["offset"] for e in world.trace.events(event="discardHalfMessage")] == [0]
    assert read_queue(store, 0, topic=RMQ_SYS_TRANS_HALF_TOPIC) == []
    assert keys(delivered(store)) == ["k2"]


# --- the recorded offset: 4.9.3's lag and mqlab's fix --------------------------------------------------------------


def send_two_due_and_one_pending(store, world):
    put_delayed(store, 0, 1)
    put_delayed(store, 1, 1)
    world.run_for(500)
    put_delayed(store, 2, 1)  # due 500 ms after the others
    world.run_for(500)  # +1000: the first task delivers units 0 and 1, unit 2 is not due


@pytest.mark.spec("DELAY-10")
def test_4_9_3_records_the_task_start_offset_plus_one(make_store, world):
    store = make_store()
    service = store.schedule_message_service
    send_two_due_and_one_pending(store, world)
    assert keys(delivered(store)) == ["k0", "k1"]
    assert [e.fields["recordedOffset"] for e in world.trace.events(event="deliver")] == [1, 1]
    assert service.offset_table == {1: 1}  # although units 0 and 1 are done
    assert service._pending_tasks[1] is not None
    world.run_for(500)  # the successor task starts at unit 2 and delivers it: start 2 + 1
    assert service.offset_table == {1: 3}


@pytest.mark.spec("DELAY-10")
def test_4_9_3_redelivers_after_a_restart_that_follows_a_partial_batch(make_store, world):
    store = make_store()
    send_two_due_and_one_pending(store, world)
    store.shutdown()  # persists {1:1}
    store = make_store()
    world.run_for(1000)
    # unit 1 is delivered a second time, then unit 2 (due long ago by now)
    assert keys(delivered(store)) == ["k0", "k1", "k1", "k2"]


@pytest.mark.spec("DELAY-10")
def test_4_9_3_redelivers_a_whole_batch_after_a_clean_restart(make_store, world):
    store = make_store()
    for i in range(3):
        put_delayed(store, i, 1)
    world.run_for(5000)  # all three delivered by one task; later tasks find nothing new
    assert store.schedule_message_service.offset_table == {1: 1}
    store.shutdown()
    store = make_store()
    world.run_for(1000)
    assert keys(delivered(store)) == ["k0", "k1", "k2", "k1", "k2"]


@pytest.mark.spec("DELAY-11")
def test_the_fix_records_the_offset_after_each_delivered_unit(make_store, world):
    store = make_store(start=False)
    store.schedule_message_service.fix_delay_offset_lag = True
    store.start()
    send_two_due_and_one_pending(store, world)
    assert [e.fields["recordedOffset"] for e in world.trace.events(event="deliver")] == [1, 2]
    store.shutdown()  # persists {1:2}
    store = make_store(start=False)
    store.schedule_message_service.fix_delay_offset_lag = True
    store.start()
    world.run_for(1000)
    assert keys(delivered(store)) == ["k0", "k1", "k2"]  # nothing twice


@pytest.mark.spec("DELAY-11")
def test_the_fix_is_off_by_default(make_store):
    assert make_store(start=False).schedule_message_service.fix_delay_offset_lag is False


# --- clock and restarts --------------------------------------------------------------------------------------------


@pytest.mark.spec("DELAY-14")
def test_a_deliver_time_too_far_ahead_is_corrected_to_now(make_store, store_root):
    later = SimulatedWorld(seed=7, start_ms=DEFAULT_START_MS + DAY)
    store = make_store(runtime=later.runtime("broker-a", ip="192.168.1.10"))
    put_delayed(store, 1, 2)  # due at start + 1 day + 5 s
    later.run_for(10)
    store.shutdown()
    earlier = SimulatedWorld(seed=7)  # the clock went back a day
    store = make_store(runtime=earlier.runtime("broker-a", ip="192.168.1.10"))
    earlier.run_for(1000)
    assert keys(delivered(store)) == ["k1"]  # deliver time > now + 5 s: treated as due now


@pytest.mark.spec("DELAY-14")
def test_correct_deliver_timestamp(make_store):
    service = make_store(start=False).schedule_message_service
    task = DeliverDelayedMessageTimerTask(service, 2, 0)  # level 2: 5 s
    assert task.correct_deliver_timestamp(10_000, 15_000) == 15_000
    assert task.correct_deliver_timestamp(10_000, 15_001) == 10_000
    assert task.correct_deliver_timestamp(10_000, 3) == 3


@pytest.mark.spec("DELAY-15")
def test_a_pending_delayed_message_is_delivered_after_a_restart(make_store, world):
    store = make_store()
    put_delayed(store, 1, 3)  # 10 s
    world.run_for(2000)
    store.shutdown()
    world.run_for(3000)  # the broker is down for 3 s
    store = make_store()  # restarted at +5 s
    world.run_for(4999)  # +9999
    assert delivered(store) == []
    world.run_for(1)  # +10 s: the poll grid of the new start (+6000, +6100, ...) hits +10000
    assert keys(delivered(store)) == ["k1"]


@pytest.mark.spec("DELAY-15")
def test_shutdown_stops_every_task(make_store, world):
    store = make_store()
    put_delayed(store, 1, 2)
    world.run_for(1000)
    store.shutdown()
    service = store.schedule_message_service
    assert not service.is_started() and service._pending_tasks == {}
    world.run_for(10_000)
    assert world.trace.events(event="deliver") == []

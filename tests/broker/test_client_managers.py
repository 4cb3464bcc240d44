import pytest

from mqlab.broker.client.client_channel_info import ClientChannelInfo
from mqlab.broker.client.consumer_group_event import ConsumerGroupEvent
from mqlab.broker.client.consumer_manager import CHANNEL_EXPIRED_TIMEOUT, ConsumerManager
from mqlab.broker.client.producer_manager import ProducerManager
from mqlab.broker.client.rebalance.rebalance_lock_manager import RebalanceLockManager
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.filter.filter_api import build_subscription_data
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.message_model import MessageModel


class Clock:
    def __init__(self):
        self.now = 1_000_000

    def __call__(self):
        return self.now


class Chan:
    def __init__(self, name):
        self.remote_address = name


def register(manager, group, chan, client_id, topics, version=1):
    subs = [build_subscription_data(t, "*", version) for t in topics]
    return manager.register_consumer(
        group,
        ClientChannelInfo(chan, client_id),
        ConsumeType.CONSUME_PASSIVELY,
        MessageModel.CLUSTERING,
        ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
        subs,
        True,
    )


@pytest.mark.spec("BRK-6")
def test_membership_changes_notify_the_group():
    events = []
    clock = Clock()
    manager = ConsumerManager(lambda event, group, payload: events.append((event, group)), clock)
    a, b = Chan("a"), Chan("b")
    assert register(manager, "g", a, "c1", ["T"]) is True
    assert register(manager, "g", a, "c1", ["T"]) is False  # a repeat heartbeat changes nothing
    assert register(manager, "g", a, "c1", ["T"], version=2) is False  # a newer subVersion is not a change
    assert register(manager, "g", b, "c2", ["T"]) is True
    assert register(manager, "g", b, "c2", ["T", "U"]) is True  # a new topic is
    changes = [e for e in events if e[0] is ConsumerGroupEvent.CHANGE]
    assert len(changes) == 3
    assert sorted(manager.get_consumer_group_info("g").get_all_client_id()) == ["c1", "c2"]
    manager.do_channel_close_event("a", a)
    assert manager.get_consumer_group_info("g").get_all_client_id() == ["c2"]
    assert events[-1] == (ConsumerGroupEvent.CHANGE, "g")


@pytest.mark.spec("BRK-6")
def test_silent_consumers_expire_after_120_s():
    clock = Clock()
    closed = []
    manager = ConsumerManager(lambda *a: None, clock, closed.append)
    chan = Chan("a")
    register(manager, "g", chan, "c1", ["T"])
    clock.now += CHANNEL_EXPIRED_TIMEOUT
    assert manager.scan_not_active_channel() == []
    clock.now += 1
    assert manager.scan_not_active_channel() == ["c1"]
    assert closed == [chan] and manager.get_consumer_group_info("g") is None


def test_producers_register_and_expire():
    clock = Clock()
    manager = ProducerManager(clock)
    chan = Chan("p")
    manager.register_producer("pg", ClientChannelInfo(chan, "p1"))
    assert manager.get_available_channel("pg") is chan
    clock.now += CHANNEL_EXPIRED_TIMEOUT + 1
    assert manager.scan_not_active_channel() == ["p1"]
    assert manager.get_available_channel("pg") is None


@pytest.mark.spec("BRK-7")
def test_queue_locks_belong_to_one_client_and_lapse_after_60_s():
    clock = Clock()
    locks = RebalanceLockManager(clock)
    mq0, mq1 = MessageQueue("T", "broker-a", 0), MessageQueue("T", "broker-a", 1)
    assert locks.try_lock_batch("g", [mq0, mq1], "c1") == {mq0, mq1}
    assert locks.try_lock_batch("g", [mq0, mq1], "c2") == set()
    clock.now += 60_000
    assert locks.try_lock("g", mq0, "c2") is False  # exactly 60 s: still held
    assert locks.try_lock("g", mq1, "c1") is True  # c1 renews mq1 only
    clock.now += 1
    assert locks.try_lock("g", mq0, "c2") is True
    locks.unlock_batch("g", [mq1], "c2")  # not c2's: nothing happens
    assert locks.try_lock_batch("g", [mq1], "c2") == set()
    locks.unlock_batch("g", [mq1], "c1")
    assert locks.try_lock_batch("g", [mq1], "c2") == {mq1}

"""PullRequest identity, PullResult / PullResultExt, MessageQueueLock."""

import threading

import pytest

from mqlab.client.consumer.pull_result import PullResult
from mqlab.client.consumer.pull_status import PullStatus
from mqlab.client.impl.consumer.message_queue_lock import MessageQueueLock
from mqlab.client.impl.consumer.process_queue import ProcessQueue
from mqlab.client.impl.consumer.pull_request import PullRequest
from mqlab.client.impl.consumer.pull_result_ext import PullResultExt
from mqlab.common.message.message_queue import MessageQueue
from tests.client.client_fakes import FakeClock, make_msg

MQ = MessageQueue("TopicTest", "broker-a", 1)

pytestmark = pytest.mark.spec("CLI-19")


def test_pull_requests_are_equal_by_group_and_queue():
    clock = FakeClock()
    a = PullRequest("group", MQ, ProcessQueue(clock), 10)
    b = PullRequest("group", MQ, ProcessQueue(clock), 99, previously_locked=True)
    assert a == b and hash(a) == hash(b)
    assert a != PullRequest("other", MQ, a.process_queue, 10)
    assert a != PullRequest("group", MessageQueue("TopicTest", "broker-a", 2), a.process_queue, 10)
    assert len({a, b}) == 1
    assert str(a) == (
        "PullRequest [consumerGroup=group, messageQueue=MessageQueue [topic=TopicTest, brokerName=broker-a, "
        "queueId=1], nextOffset=10]"
    )


def test_pull_status_members_and_result_str():
    assert [s.name for s in PullStatus] == ["FOUND", "NO_NEW_MSG", "NO_MATCHED_MSG", "OFFSET_ILLEGAL"]
    result = PullResult(PullStatus.FOUND, 12, 0, 40, [make_msg(10), make_msg(11)])
    assert str(result) == "PullResult [pullStatus=FOUND, nextBeginOffset=12, minOffset=0, maxOffset=40, msgFoundList=2]"
    assert str(PullResult(PullStatus.NO_NEW_MSG, 12, 0, 12)).endswith("msgFoundList=0]")


def test_pull_result_ext_carries_the_suggestion_and_the_raw_body():
    ext = PullResultExt(PullStatus.FOUND, 12, 0, 40, None, 1, b"\x00\x01")
    assert isinstance(ext, PullResult)
    assert (ext.suggest_which_broker_id, ext.message_binary) == (1, b"\x00\x01")
    assert str(ext).startswith("PullResult [pullStatus=FOUND")


def test_message_queue_lock_hands_out_one_lock_per_queue():
    locks = MessageQueueLock()
    lock = locks.fetch_lock_object(MQ)
    assert locks.fetch_lock_object(MessageQueue("TopicTest", "broker-a", 1)) is lock
    assert locks.fetch_lock_object(MessageQueue("TopicTest", "broker-a", 2)) is not lock
    with lock, lock:  # re-entrant, like synchronized
        pass
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(locks.fetch_lock_object(MQ))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(x is lock for x in seen)

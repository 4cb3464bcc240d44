"""DefaultLitePullConsumer on a simulated cluster: assign and subscribe, poll, seek, pause, commit."""

from __future__ import annotations

import pytest

from mqlab.client.consumer.default_lite_pull_consumer import DefaultLitePullConsumer
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.consumer import default_lite_pull_consumer_impl as lite_module
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.sysflag.pull_sys_flag import PullSysFlag
from tests.client.consumer.push_support import TOPIC, ConsumerCluster, sim_runtime


@pytest.fixture
def cluster(tmp_path):
    made = ConsumerCluster(tmp_path / "c")
    made.make_topic(TOPIC, 4)
    yield made
    made.close()


def queues(n=4):
    return [MessageQueue(TOPIC, "broker-a", i) for i in range(n)]


def poll_all(consumer, want, rounds=20, timeout=1000, sizes=None):
    got = []
    for _ in range(rounds):
        batch = consumer.poll(timeout)
        if sizes is not None and batch:
            sizes.append(len(batch))
        got += batch
        if len(got) >= want:
            break
    return got


@pytest.mark.spec("LITE-1")
def test_configuration_checks_and_mode_conflicts():
    assert lite_module.PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL == 50
    assert lite_module.PULL_TIME_DELAY_MILLS_WHEN_PAUSE == 1000
    assert lite_module.PULL_TIME_DELAY_MILLS_ON_EXCEPTION == 3000
    _, runtime = sim_runtime()
    consumer = DefaultLitePullConsumer("LG", runtime, consumer_timeout_millis_when_suspend=1000)
    with pytest.raises(MQClientException, match="consumerTimeoutMillisWhenSuspend must greater than"):
        consumer.start()
    with pytest.raises(MQClientException, match="consumerGroup can not equal"):
        DefaultLitePullConsumer(runtime=runtime).start()
    consumer = DefaultLitePullConsumer("LG", runtime)
    with pytest.raises(RuntimeError, match="not running"):
        consumer.poll(10)
    consumer.subscribe(TOPIC, "*")
    with pytest.raises(RuntimeError, match="mutually exclusive"):
        consumer.assign(queues())
    with pytest.raises(ValueError):
        DefaultLitePullConsumer("LG2", runtime).assign([])
    consumer.set_auto_commit_interval_millis(999)
    assert consumer.auto_commit_interval_millis == 5000
    consumer.set_auto_commit_interval_millis(1000)
    assert consumer.auto_commit_interval_millis == 1000


@pytest.mark.spec("LITE-2")
def test_assign_mode_polls_everything_and_an_empty_poll_waits_its_timeout(cluster):
    cluster.send(20)
    consumer = cluster.lite_consumer("LG")
    consumer.assign(queues())
    consumer.start()
    sizes = []
    got = poll_all(consumer, 20, sizes=sizes)
    assert sorted(int(m.body) for m in got) == list(range(20))
    assert max(sizes) <= 10  # one poll returns one pulled batch: at most pullBatchSize (10)
    before = cluster.now()
    with pytest.raises(ValueError):
        consumer.poll(-1)
    assert consumer.poll(2000) == []
    assert cluster.now() - before == 2000
    header = next(e.fields for e in cluster.world.trace.events("PullAPIWrapper", event="pullKernelImpl"))
    assert (
        header["sysFlag"]
        == PullSysFlag.FLAG_SUSPEND | PullSysFlag.FLAG_SUBSCRIPTION | PullSysFlag.FLAG_LITE_PULL_MESSAGE
    )
    assert header["commitOffset"] == 0


@pytest.mark.spec("LITE-2")
def test_a_message_sent_while_polling_arrives_through_long_polling(cluster):
    consumer = cluster.lite_consumer("LG")
    consumer.assign(queues())
    consumer.start()
    assert consumer.poll(3000) == []
    sent_at = cluster.now()
    cluster.world.scheduler.call_later(500, lambda: cluster.send(1, queue=1))
    [msg] = consumer.poll(5000)
    assert msg.queue_id == 1 and cluster.now() - sent_at < 600


@pytest.mark.spec("LITE-3")
def test_seek_moves_a_queue_and_checks_the_range(cluster):
    cluster.send(8, queue=0)
    consumer = cluster.lite_consumer("LG")
    mq = queues()[0]
    consumer.assign([mq])
    with pytest.raises(RuntimeError):
        consumer.seek(mq, 0)  # not running
    consumer.start()
    assert sorted(m.queue_offset for m in poll_all(consumer, 8)) == list(range(8))
    with pytest.raises(MQClientException, match="Seek offset illegal, seek offset = 9, min offset = 0, max offset = 8"):
        consumer.seek(mq, 9)
    with pytest.raises(MQClientException, match="not in assigned list"):
        consumer.seek(queues()[1], 0)
    consumer.seek(mq, 5)
    assert [m.queue_offset for m in poll_all(consumer, 3)] == [5, 6, 7]
    consumer.seek_to_begin(mq)
    assert [m.queue_offset for m in poll_all(consumer, 8)] == list(range(8))
    consumer.seek_to_end(mq)
    assert consumer.poll(1000) == []


@pytest.mark.spec("LITE-3")
def test_pause_holds_a_queue_back_and_resume_releases_it(cluster):
    cluster.send(2, queue=2)
    consumer = cluster.lite_consumer("LG")
    consumer.assign(queues())
    consumer.pause([queues()[2]])
    consumer.start()
    assert consumer.poll(3000) == []
    consumer.resume([queues()[2]])
    assert sorted(int(m.body) for m in poll_all(consumer, 2)) == [0, 1]


@pytest.mark.spec("LITE-4")
def test_commit_sync_stores_the_consumed_offsets_and_the_broker_gets_them_later(cluster):
    cluster.send(12)
    consumer = cluster.lite_consumer("LG", auto_commit=False)
    consumer.assign(queues())
    consumer.start()
    assert len(poll_all(consumer, 12)) == 12
    # Nothing committed yet: the offset store still holds the start offsets read from the broker (0 on a young queue).
    assert all(consumer.committed(mq) == 0 for mq in queues())
    consumer.commit_sync()
    expected = [cluster.broker_max_offset(TOPIC, q) for q in range(4)]
    assert [consumer.committed(mq) for mq in queues()] == expected
    cluster.run_for(10_000)  # persistConsumerOffset: 10 s after start, then every 5 s
    assert [cluster.broker_offset("LG", TOPIC, q) for q in range(4)] == expected


@pytest.mark.spec("LITE-4")
def test_auto_commit_happens_in_poll_once_the_interval_has_passed(cluster):
    cluster.send(4, queue=0)
    consumer = cluster.lite_consumer("LG", auto_commit_interval_millis=5000)
    mq = queues()[0]
    consumer.assign([mq])
    consumer.start()
    assert len(poll_all(consumer, 4)) == 4
    assert consumer.committed(mq) == 0  # the first poll committed (nothing consumed yet) and set the next deadline
    cluster.run_for(5000)
    consumer.poll(10)  # the deadline passed: this poll commits first
    assert consumer.committed(mq) == 4


@pytest.mark.spec("LITE-5")
def test_subscribing_consumers_split_the_queues_and_poll_every_message_once(cluster):
    cluster.send(24)
    first = cluster.lite_consumer("LG", node="l1")
    second = cluster.lite_consumer("LG", node="l2")
    for consumer in (first, second):
        consumer.subscribe(TOPIC, "*")
        consumer.start()
    got = []
    for _ in range(30):
        got += first.poll(500) + second.poll(500)
        if len(got) >= 24:
            break
    assert sorted(int(m.body) for m in got) == list(range(24))
    owned = [
        sorted(mq.queue_id for mq in c.default_lite_pull_consumer_impl.assigned_message_queue.message_queues())
        for c in (first, second)
    ]
    assert sorted(owned) == [[0, 1], [2, 3]]
    assert cluster.trace("DefaultLitePullConsumerImpl", "messageQueueChanged")
    # 4.9.3's lite pull start does not rebalance; the broker's notification after the first heartbeat does.
    assert cluster.trace("ClientRemotingProcessor", "notifyConsumerIdsChanged", node="l1")

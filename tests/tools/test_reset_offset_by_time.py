"""``mqlab admin resetOffsetByTime`` in a simulation: the broker's computation, the consumers' reset, the fallback.

Each test builds the same world: 20 messages sent 100 ms apart (virtual time) to the 4 queues of ``TopicTest`` (5
per queue, round robin), consumed by a push consumer of group ``CG`` whose offsets are then committed (every queue
at its max offset, 5).
"""

from __future__ import annotations

import pytest

from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.factory import mq_client_instance
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.tools.admin.default_mq_admin_ext import DefaultMQAdminExt
from tests.client.consumer.push_support import BROKER, TOPIC, ConsumerCluster, Recorder
from tests.tools.admin_cli import AdminCli

GROUP = "CG"
QUEUES = 4
PER_QUEUE = 5


class World(AdminCli):
    """The cluster, the consumer and its recorder, with helpers for the admin side."""

    def __init__(self, tmp_path):
        self.cluster = ConsumerCluster(tmp_path / "c")
        self.cluster.make_topic(TOPIC, QUEUES)
        for i in range(QUEUES * PER_QUEUE):
            self.cluster.send(1, start=i)
            self.cluster.run_for(100)
        self.recorder = Recorder(self.cluster.world.clock.now_ms)
        self.consumer = self.cluster.push_consumer(GROUP, self.recorder)
        assert self.cluster.wait_until(lambda: len(self.recorder.bodies) >= QUEUES * PER_QUEUE, 10_000)
        self.cluster.run_for(11_000)  # the offsets are committed 10 s after the consumer started
        assert self.broker_offsets() == [PER_QUEUE] * QUEUES
        self.store = self.broker.message_store

    @property
    def broker(self):
        return self.cluster.brokers[BROKER]

    def broker_offsets(self, group: str = GROUP) -> list[int]:
        return [self.cluster.broker_offset(group, TOPIC, q) for q in range(QUEUES)]

    def store_time(self, queue_id: int, offset: int) -> int:
        return self.store.get_message_store_timestamp(TOPIC, queue_id, offset)

    def nearest(self, timestamp: int) -> list[int]:
        """A model of 4.9.3's answer: per queue, the offset stored nearest to the time (the lower one on a tie)."""
        return [
            min(range(PER_QUEUE), key=lambda o, q=q: (abs(self.store_time(q, o) - timestamp), o)) for q in range(QUEUES)
        ]

    def admin_ext(self) -> DefaultMQAdminExt:
        runtime = self.cluster.client_runtime()
        admin = DefaultMQAdminExt(runtime, namesrv_addr=self.cluster.namesrv_addr, instance_name="api")
        admin.start()
        return admin

    def reconsumed(self, since: int) -> dict[int, list[int]]:
        """Queue id → offsets consumed after ``since`` calls, in consumption order."""
        seen: dict[int, list[int]] = {q: [] for q in range(QUEUES)}
        for _, batch in self.recorder.calls[since:]:
            for topic, queue_id, offset, _body, _times in batch:
                if topic == TOPIC:
                    seen[queue_id].append(offset)
        return seen

    def close(self):
        self.cluster.close()


@pytest.fixture
def world(tmp_path):
    made = World(tmp_path)
    yield made
    made.close()


def _offsets(result) -> list[int]:
    return [row["offset"] for row in sorted(result["offsets"], key=lambda r: r["queueId"])]


# -- the reset with consumers online -------------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-13", "BRK-36", "INST-16")
def test_a_reset_to_a_time_in_the_middle_makes_the_consumer_reconsume_from_the_nearest_offsets(world):
    target = world.store_time(2, 2)
    expected = world.nearest(target)
    assert expected[2] == 2 and len(set(expected)) > 1  # an exact match on queue 2, neighbours elsewhere
    before = len(world.recorder.calls)
    result = world.admin_json("resetOffsetByTime", "-g", GROUP, "-t", TOPIC, "-s", str(target))
    assert (result["group"], result["topic"], result["force"], result["timestamp"]) == (GROUP, TOPIC, True, target)
    assert result["consumersOnline"] is True and _offsets(result) == expected
    assert [(r["brokerName"], r["queueId"]) for r in result["offsets"]] == [(BROKER, q) for q in range(QUEUES)]
    # 4.9.3: the broker does not touch its own offsets; the consumer commits the new ones itself
    world.cluster.run_for(100)  # the oneway RESET_CONSUMER_CLIENT_OFFSET reaches the consumer
    assert world.broker_offsets() == [PER_QUEUE] * QUEUES
    [suspended] = world.cluster.trace("MQClientInstance", "resetOffset.suspended")
    assert suspended == {"group": GROUP, "topic": TOPIC, "queues": QUEUES}
    world.cluster.run_for(8_900)  # the consumer waits 10 s (virtual) before committing and pulling again
    assert world.reconsumed(before) == {q: [] for q in range(QUEUES)}
    assert world.cluster.trace("MQClientInstance", "resetOffset.done") == []
    world.cluster.run_for(3_000)
    [done] = world.cluster.trace("MQClientInstance", "resetOffset.done")
    assert done["offsets"] == [f"{BROKER}:{q}={expected[q]}" for q in range(QUEUES)]
    assert world.reconsumed(before) == {q: list(range(expected[q], PER_QUEUE)) for q in range(QUEUES)}
    world.cluster.run_for(6_000)
    progress = world.admin_json("consumerProgress", "-g", GROUP)
    assert progress["diffTotal"] == 0  # everything consumed again and committed


@pytest.mark.spec("BRK-36")
def test_timestamps_before_the_first_and_after_the_last_message_and_now(world):
    admin = world.admin_ext()
    try:
        mqs = [MessageQueue(TOPIC, BROKER, q) for q in range(QUEUES)]
        first = admin.reset_offset_by_timestamp(TOPIC, GROUP, 1, True)
        assert [first[mq] for mq in mqs] == [0] * QUEUES  # before every message: the min offset
        last = world.store_time(QUEUES - 1, PER_QUEUE - 1)
        after = admin.reset_offset_by_timestamp(TOPIC, GROUP, last + 60_000, True)
        # 4.9.3 answers the message stored nearest the time: after the last one, that is the last one, not the max
        assert [after[mq] for mq in mqs] == [PER_QUEUE - 1] * QUEUES
        now = admin.reset_offset_by_timestamp(TOPIC, GROUP, -1, True)
        assert [now[mq] for mq in mqs] == [PER_QUEUE] * QUEUES
    finally:
        admin.shutdown()


@pytest.mark.spec("BRK-36")
def test_without_force_a_group_is_never_moved_forward(world):
    broker = world.broker
    for q in range(QUEUES):
        broker.consumer_offset_manager.commit_offset("test", "OTHER", TOPIC, q, 1)
    late = world.store_time(0, 3)
    compute = broker.broker2client.compute_reset_offset
    assert [compute(TOPIC, "OTHER", q, late, False) for q in range(QUEUES)] == [1] * QUEUES
    assert [compute(TOPIC, "OTHER", q, late, True) for q in range(QUEUES)] == world.nearest(late)
    assert [compute(TOPIC, "OTHER", q, 1, False) for q in range(QUEUES)] == [0] * QUEUES
    assert compute(TOPIC, "NOBODY", 0, late, True) is None
    # through the command: "now" (the max offset) is where CG already is, so nothing moves
    result = world.admin_json("resetOffsetByTime", "-g", GROUP, "-t", TOPIC, "-s", "now", "-f", "false")
    assert result["force"] is False and result["timestamp"] == -1 and _offsets(result) == [PER_QUEUE] * QUEUES


@pytest.mark.spec("BRK-36", "INST-16")
def test_a_cpp_reset_sends_the_list_body_which_a_java_consumer_cannot_read(world):
    before = len(world.recorder.calls)
    result = world.admin_json("resetOffsetByTime", "-g", GROUP, "-t", TOPIC, "-s", "1", "-c")
    assert _offsets(result) == [0] * QUEUES  # the answer to the admin is the usual map
    world.cluster.run_for(12_000)
    [failed] = world.cluster.trace("ClientRemotingProcessor", "resetOffsetFailed")
    assert "ValueError" in failed["error"] and "not list" in failed["error"]
    assert world.cluster.trace("MQClientInstance", "resetOffset.suspended") == []
    assert world.reconsumed(before) == {q: [] for q in range(QUEUES)}


@pytest.mark.spec("BRK-36")
def test_a_consumer_older_than_3_0_7_makes_the_reset_fail(world):
    info = world.broker.consumer_manager.get_consumer_group_info(GROUP)
    [channel_info] = info.channel_info_table.values()
    channel_info.version = 27  # V3_0_6
    code, out, err = world.admin("resetOffsetByTime", "-g", GROUP, "-t", TOPIC, "-s", "now")
    assert (code, out) == (1, "") and "the client does not support this feature. version=27" in err


@pytest.mark.spec("INST-16")
def test_a_lite_pull_consumer_is_not_reset(world):
    lite = world.cluster.lite_consumer("LG")
    lite.subscribe(TOPIC, "*")
    lite.start()
    instance = lite.default_lite_pull_consumer_impl.mq_client_factory
    table = {MessageQueue(TOPIC, BROKER, q): 0 for q in range(QUEUES)}
    assert instance.reset_offset(TOPIC, "LG", table) is None
    assert instance.reset_offset(TOPIC, "NO_SUCH_GROUP", table) is None
    events = world.cluster.trace("MQClientInstance", "resetOffset.noConsumer")
    assert [e["group"] for e in events] == ["LG", "NO_SUCH_GROUP"]


@pytest.mark.spec("INST-16")
def test_the_wait_is_on_the_scheduler_and_ends_with_the_instance(world, monkeypatch):
    monkeypatch.setattr(mq_client_instance, "RESET_OFFSET_SETTLE_MILLIS", 500)
    instance = world.consumer.default_mq_push_consumer_impl.mq_client_factory
    impl = world.consumer.default_mq_push_consumer_impl
    start = world.cluster.world.clock.now_ms()
    timer = instance.reset_offset(TOPIC, GROUP, {MessageQueue(TOPIC, BROKER, 0): 1})
    assert timer is not None and world.cluster.world.clock.now_ms() == start  # returned at once
    assert impl.pause is True
    world.cluster.run_for(600)
    assert impl.pause is False
    assert world.reconsumed(0)[0][-(PER_QUEUE - 1) :] == list(range(1, PER_QUEUE))


# -- no consumer online --------------------------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-14", "BRK-36")
def test_without_a_consumer_online_the_command_commits_the_offsets_itself(world):
    world.consumer.shutdown()
    world.cluster.run_for(1_000)
    admin = world.admin_ext()
    try:
        with pytest.raises(MQClientException) as failure:
            admin.reset_offset_by_timestamp(TOPIC, GROUP, 1, True)
        assert failure.value.response_code == ResponseCode.CONSUMER_NOT_ONLINE
        assert "Consumer not online, so can not reset offset, Group: CG Topic: TopicTest Timestamp: 1" in str(
            failure.value
        )
    finally:
        admin.shutdown()
    target = world.store_time(1, 2)
    expected = world.nearest(target)
    result = world.admin_json("resetOffsetByTime", "-g", GROUP, "-t", TOPIC, "-s", str(target))
    assert result["consumersOnline"] is False
    assert [
        (r["queueId"], r["brokerOffset"], r["consumerOffset"], r["rollbackOffset"]) for r in result["rollbackStats"]
    ] == [(q, PER_QUEUE, PER_QUEUE, expected[q]) for q in range(QUEUES)]
    assert world.broker_offsets() == expected
    progress = world.admin_json("consumerProgress", "-g", GROUP)
    rows = {q["queueId"]: q for q in progress["queues"] if q["topic"] == TOPIC}
    assert [rows[q]["consumerOffset"] for q in range(QUEUES)] == expected
    assert progress["diffTotal"] == sum(PER_QUEUE - e for e in expected)
    # without force, a later time does not move the group forward (the old rule: at most the consumer offset)
    later = world.admin_json("resetOffsetByTime", "-g", GROUP, "-t", TOPIC, "-s", "now", "-f", "false")
    assert [r["timestampOffset"] for r in later["rollbackStats"]] == [PER_QUEUE] * QUEUES
    assert [r["rollbackOffset"] for r in later["rollbackStats"]] == expected
    assert world.broker_offsets() == expected
    code, out, _ = world.admin("resetOffsetByTime", "-g", GROUP, "-t", TOPIC, "-s", "1")
    lines = out.splitlines()
    assert code == 0 and lines[0] == (
        f"rollback consumer offset by specified consumerGroup[{GROUP}], topic[{TOPIC}], force[true], "
        "timestamp(string)[1], timestamp(long)[1]"
    )
    assert lines[1].split() == [
        "#brokerName",
        "#queueId",
        "#brokerOffset",
        "#consumerOffset",
        "#timestampOffset",
        "#rollbackOffset",
    ]
    assert [line.split() for line in lines[2:]] == [
        [BROKER, str(q), str(PER_QUEUE), str(expected[q]), "0", "0"] for q in range(QUEUES)
    ]
    assert world.broker_offsets() == [0] * QUEUES


# -- failures ------------------------------------------------------------------------------------------------------
@pytest.mark.spec("ADMIN-13", "ADMIN-12")
@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["-g", "NOBODY", "-t", TOPIC], "The consumer group <NOBODY> not exist"),
        (["-g", GROUP, "-t", "NoSuchTopic"], "NoSuchTopic"),
    ],
)
def test_an_unknown_group_or_topic_fails_with_one_line(world, argv, expected):
    code, out, err = world.admin("resetOffsetByTime", *argv, "-s", "now")
    assert (code, out) == (1, "")
    assert err.startswith("mqlab admin resetOffsetByTime: ") and expected in err and err.count("\n") == 1

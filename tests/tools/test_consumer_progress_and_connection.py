"""``consumerProgress`` without ``-g`` and ``consumerConnection -g`` in a simulation with two brokers.

The world: ``TopicTest`` has 4 queues on each of ``broker-a`` and ``broker-b``. Group ``gone_group`` consumed the
first 8 messages, committed its offsets and stopped; then ``live_group`` started two push consumers on their own
nodes, and 3 more messages were sent, which only ``live_group`` consumed. So ``live_group`` has two members and no
lag, ``gone_group`` none online and a lag of 3.
"""

from __future__ import annotations

import pytest

from tests.client.consumer.push_support import TOPIC, ConsumerCluster, Recorder
from tests.tools.admin_cli import AdminCli

LIVE, GONE = "live_group", "gone_group"
FIRST, LATE = 8, 3
BROKERS = ("broker-a", "broker-b")


class World(AdminCli):
    def __init__(self, tmp_path):
        self.cluster = cluster = ConsumerCluster(tmp_path / "c", brokers=BROKERS)
        cluster.make_topic(TOPIC, 4)
        cluster.send(FIRST)
        gone = Recorder(cluster.world.clock.now_ms)
        gone_consumer = cluster.push_consumer(GONE, gone, node="gone-1")
        assert cluster.wait_until(lambda: len(gone.bodies) >= FIRST, 10_000)
        cluster.run_for(11_000)  # offsets are committed every 5 s, first 10 s after the start
        gone_consumer.shutdown()
        self.live = [Recorder(cluster.world.clock.now_ms) for _ in range(2)]
        self.live_consumers = [
            cluster.push_consumer(LIVE, recorder, node=f"live-{i}") for i, recorder in enumerate(self.live, 1)
        ]
        cluster.send(LATE, start=FIRST)
        total = FIRST + LATE
        assert cluster.wait_until(lambda: sum(len(r.bodies) for r in self.live) >= total, 30_000)
        cluster.run_for(11_000)
        for name in BROKERS:
            assert cluster.broker_offset(GONE, TOPIC, 0, name) >= 0  # the gone group has offsets on both brokers


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    made = World(tmp_path_factory.mktemp("progress"))
    yield made
    made.cluster.close()


@pytest.mark.spec("ADMIN-15")
def test_consumer_progress_without_g_lists_every_group_with_members_type_and_lag(world):
    data = world.admin_json("consumerProgress")
    assert data["groups"] == [
        {
            "group": LIVE,
            "count": 2,
            "version": 399,
            "versionDesc": "V4_9_3",
            "consumeType": "PUSH",
            "messageModel": "CLUSTERING",
            "consumeTps": 0,
            "diffTotal": 0,
        },
        {
            "group": GONE,
            "count": 0,
            "version": None,
            "versionDesc": "OFFLINE",
            "consumeType": "",
            "messageModel": "",
            "consumeTps": 0,
            "diffTotal": LATE,
        },
    ]
    code, out, err = world.admin("consumerProgress")
    lines = out.splitlines()
    assert (code, err) == (0, "")
    assert lines[0].split() == ["#Group", "#Count", "#Version", "#Type", "#Model", "#TPS", "#Diff", "Total"]
    assert lines[0].index("#Count") == 66 and lines[0].index("#Version") == 74
    assert [line.split() for line in lines[1:]] == [
        [LIVE, "2", "V4_9_3", "PUSH", "CLUSTERING", "0", "0"],
        [GONE, "0", "OFFLINE", "0", str(LATE)],
    ]
    # the columns stay in place when type and model are empty
    assert lines[2].index(str(LATE), 64) == lines[0].index("#Diff Total")


@pytest.mark.spec("ADMIN-15")
def test_the_group_lag_without_g_is_the_sum_of_the_per_queue_lags_of_g(world):
    per_queue = world.admin_json("consumerProgress", "-g", GONE)
    assert {q["brokerName"] for q in per_queue["queues"]} == set(BROKERS)
    assert per_queue["diffTotal"] == LATE


@pytest.mark.spec("ADMIN-16")
def test_consumer_connection_shows_each_member_its_subscriptions_and_settings(world):
    data = world.admin_json("consumerConnection", "-g", LIVE)
    instances = [c.default_mq_push_consumer_impl.mq_client_factory for c in world.live_consumers]
    client_ids = sorted(instance.client_id for instance in instances)
    assert [c["clientId"] for c in data["connections"]] == client_ids
    for conn in data["connections"]:
        assert (conn["language"], conn["version"], conn["versionDesc"]) == ("JAVA", 399, "V4_9_3")
        assert conn["clientAddr"].split(":")[0] == conn["clientId"].split("@")[0]  # the member's own node
    assert sorted((s["topic"], s["subExpression"]) for s in data["subscriptions"]) == [
        ("%RETRY%" + LIVE, "*"),
        (TOPIC, "*"),
    ]
    assert (data["consumeType"], data["messageModel"], data["consumeFromWhere"]) == (
        "CONSUME_PASSIVELY",
        "CLUSTERING",
        "CONSUME_FROM_FIRST_OFFSET",
    )
    code, out, err = world.admin("consumerConnection", "-g", LIVE)
    lines = out.splitlines()
    assert (code, err) == (0, "")
    assert lines[0].split() == ["#ClientId", "#ClientAddr", "#Language", "#Version"]
    # each run asks a broker picked at random, and each broker sees its own connection (port) of a member
    rows = [line.split() for line in lines[1:3]]
    assert [[r[0], r[1].split(":")[0], r[2], r[3]] for r in rows] == [
        [cid, cid.split("@")[0], "JAVA", "V4_9_3"] for cid in client_ids
    ]
    assert lines[3:6] == ["", "Below is subscription:", "#Topic               #SubExpression"]
    assert sorted(lines[6:8]) == sorted(f"{s['topic']:<20} {s['subExpression']}" for s in data["subscriptions"])
    assert lines[8:] == [
        "",
        "ConsumeType: CONSUME_PASSIVELY",
        "MessageModel: CLUSTERING",
        "ConsumeFromWhere: CONSUME_FROM_FIRST_OFFSET",
    ]


@pytest.mark.spec("ADMIN-16", "ADMIN-12")
def test_consumer_connection_of_a_group_with_nobody_online_fails_as_mqadmin_does(world):
    code, out, err = world.admin("consumerConnection", "-g", GONE)
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert err.startswith("mqlab admin consumerConnection: MQBrokerException: CODE: 206")
    assert f"the consumer group[{GONE}] not online" in err
    code, out, err = world.admin("consumerConnection", "-g", "never_group")
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert "%RETRY%never_group" in err

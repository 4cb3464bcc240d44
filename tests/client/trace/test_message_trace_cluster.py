"""Message traces in a simulated cluster: a traced producer and push consumer, the trace topic, queryMsgTraceById.

The world: ``broker-a`` with ``traceTopicEnable``; ``TopicTest`` with 4 queues. A traced producer (node
``producer``, 10.0.0.52) sends one message (tags ``TagA``, keys ``k1 k2``) synchronously; a traced push consumer of
``CG`` (node ``consumer``) consumes it.
"""

from __future__ import annotations

import pytest

from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.trace.trace_data_encoder import decoder_from_trace_data_string
from mqlab.client.trace.trace_type import TraceType
from mqlab.common.constant import perm_name
from mqlab.common.message.message import Message
from mqlab.common.topic import topic_validator
from mqlab.tools.command.command_util import format_date
from tests.client.cluster_fixtures import Callback
from tests.client.consumer.push_support import TOPIC, ConsumerCluster, Recorder
from tests.tools.admin_cli import AdminCli

TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC"


class World(AdminCli):
    def __init__(self, tmp_path, **broker):
        self.cluster = cluster = ConsumerCluster(tmp_path, broker={"trace_topic_enable": True, **broker})
        cluster.make_topic(TOPIC, 4)
        self.producer = cluster.producer("PG", runtime=cluster.client_runtime("producer"), enable_msg_trace=True)

    def consume(self, group: str, verdict=None, node: str = "consumer") -> Recorder:
        recorder = Recorder(self.cluster.world.clock.now_ms, verdict)
        self.cluster.push_consumer(group, recorder, node=node, enable_msg_trace=True)
        return recorder

    def traces(self) -> list:
        """Every stored trace message (born host, KEYS, decoded contexts)."""
        return [
            (m.get_born_host_string(), m.get_keys(), decoder_from_trace_data_string(m.body.decode()))
            for m in self.cluster.stored("broker-a", TRACE_TOPIC)
        ]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    made = World(tmp_path_factory.mktemp("trace"))
    made.sent_at = made.cluster.now()
    made.result = made.producer.send(Message(TOPIC, "TagA", "k1 k2", b"hello trace"))
    made.recorder = made.consume("CG")
    assert made.cluster.wait_until(lambda: len(made.recorder.messages) == 1, 20_000)
    made.cluster.run_for(1000)
    yield made
    made.cluster.close()


@pytest.mark.spec("TRACE-3")
def test_the_broker_creates_the_trace_topic_at_start(world):
    config = world.cluster.brokers["broker-a"].topic_config_manager.select_topic_config(TRACE_TOPIC)
    assert (config.read_queue_nums, config.write_queue_nums, config.perm) == (
        1,
        1,
        perm_name.PERM_READ | perm_name.PERM_WRITE,
    )
    assert topic_validator.is_system_topic(TRACE_TOPIC)


@pytest.mark.spec("TRACE-1")
@pytest.mark.spec("TRACE-4")
def test_a_sync_send_leaves_one_pub_record(world):
    pubs = [(host, keys, c) for host, keys, cs in world.traces() for c in cs if c.trace_type is TraceType.Pub]
    assert len(pubs) == 1
    host, keys, ctx = pubs[0]
    bean = ctx.trace_beans[0]
    result = world.result
    assert host == "10.0.0.52"  # the producer's node sent the trace message
    assert sorted(keys.split(" ")) == sorted([result.msg_id, "k1", "k2"])
    assert (ctx.group_name, ctx.region_id, ctx.is_success) == ("PG", "DefaultRegion", True)
    assert (bean.topic, bean.msg_id, bean.offset_msg_id, bean.tags, bean.keys) == (
        TOPIC, result.msg_id, result.offset_msg_id, "TagA", "k1 k2",
    )  # fmt: skip
    assert (bean.store_host, bean.body_length, bean.msg_type.name) == ("10.0.0.11:10911", 11, "Normal_Msg")
    assert ctx.time_stamp >= world.sent_at and ctx.cost_time >= 0


@pytest.mark.spec("TRACE-1")
@pytest.mark.spec("TRACE-5")
def test_a_consume_leaves_sub_before_and_sub_after_records(world):
    subs = [(host, c) for host, _, cs in world.traces() for c in cs if c.trace_type is not TraceType.Pub]
    assert [c.trace_type for _, c in subs] == [TraceType.SubBefore, TraceType.SubAfter]
    (host, before), (_, after) = subs
    assert host == "10.0.0.53"
    assert (before.group_name, before.region_id, before.trace_beans[0].msg_id) == ("CG", "null", world.result.msg_id)
    assert (before.trace_beans[0].retry_times, before.trace_beans[0].keys) == (0, "k1 k2")
    assert after.request_id == before.request_id
    assert (after.group_name, after.is_success, after.context_code) == ("CG", True, 0)
    assert after.time_stamp >= before.time_stamp


@pytest.mark.spec("TRACE-10")
def test_query_msg_trace_by_id_prints_the_pub_and_the_sub_rows(world):
    code, out, err = world.admin("queryMsgTraceById", "-i", world.result.msg_id)
    assert (code, err) == (0, "")
    pub, before, sub = world.admin_json("queryMsgTraceById", "-i", world.result.msg_id)
    assert before["msg_type"] == "SubBefore"  # decoded, kept in the JSON, not printed
    tz = world.cluster.world.runtime("tz-probe", ip="10.0.0.99").tz
    fmt = "{:<10} {:<20} {:<20} {:<20} {:<10} {:<10}"
    assert out.split("\n") == [
        fmt.format("#Type", "#ProducerGroup", "#ClientHost", "#SendTime", "#CostTimes", "#Status"),
        fmt.format("Pub", "PG", "10.0.0.52", format_date(pub["time_stamp"], tz), f"{pub['cost_time']}ms", "success"),
        "",
        fmt.format("#Type", "#ConsumerGroup", "#ClientHost", "#ConsumerTime", "#CostTimes", "#Status"),
        fmt.format("Sub", "CG", "10.0.0.53", format_date(sub["time_stamp"], tz), f"{sub['cost_time']}ms", "success"),
        "",
        "",
    ]
    assert (pub["msg_type"], sub["msg_type"]) == ("Pub", "SubAfter")


@pytest.mark.spec("TRACE-10")
def test_query_msg_trace_by_id_without_traces_fails(world):
    code, out, err = world.admin("queryMsgTraceById", "-i", "0A0000330000000000000000DEADBEEF")
    assert code == 1 and out == ""
    assert "query message by key finished, but no message." in err
    code, _, err = world.admin("queryMsgTraceById", "-i", world.result.msg_id, "-t", "NoSuchTraceTopic")
    assert code == 1 and "NoSuchTraceTopic" in err


@pytest.mark.spec("TRACE-4")
def test_async_sends_are_traced_once_with_their_result_and_oneway_sends_not_at_all(tmp_path):
    world = World(tmp_path)
    callback = Callback(world.producer.runtime)
    world.producer.send_async(Message(TOPIC, "TagB", None, b"async"), callback)
    world.producer.send_oneway(Message(TOPIC, "TagC", None, b"oneway"))
    assert world.cluster.wait_until(lambda: callback.done, 5000)
    world.cluster.run_for(1000)
    pubs = [c for _, _, cs in world.traces() for c in cs]
    assert [(c.trace_type, c.trace_beans[0].msg_id, c.trace_beans[0].tags) for c in pubs] == [
        (TraceType.Pub, callback.results[0].msg_id, "TagB")
    ]
    world.cluster.close()


@pytest.mark.spec("TRACE-4")
def test_a_broker_with_trace_on_false_gets_no_pub_records(tmp_path):
    world = World(tmp_path, trace_on=False)
    world.producer.send(Message(TOPIC, "TagA", None, b"x"))
    world.cluster.run_for(1000)
    assert world.traces() == []
    world.cluster.close()


@pytest.mark.spec("TRACE-5")
def test_a_failed_consume_is_recorded_as_failed_with_its_return_type(tmp_path):
    world = World(tmp_path)
    world.producer.send(Message(TOPIC, "TagA", None, b"x"))
    recorder = world.consume("BadCG", lambda msgs, ctx: ConsumeConcurrentlyStatus.RECONSUME_LATER)
    assert world.cluster.wait_until(lambda: len(recorder.messages) >= 1, 20_000)
    world.cluster.run_for(1000)
    afters = [c for _, _, cs in world.traces() for c in cs if c.trace_type is TraceType.SubAfter]
    assert (afters[0].is_success, afters[0].context_code) == (False, 4)  # ConsumeReturnType.FAILED
    world.cluster.close()


@pytest.mark.spec("TRACE-1")
def test_a_customised_trace_topic_and_no_tracing_without_the_flag(tmp_path):
    world = World(tmp_path)
    cluster = world.cluster
    cluster.make_topic("MyTrace", 1)
    custom = cluster.producer("PG2", runtime=cluster.client_runtime("p2"), enable_msg_trace=True,
                              customized_trace_topic="MyTrace")  # fmt: skip
    plain = cluster.producer("PG3", runtime=cluster.client_runtime("p3"))
    assert plain.trace_dispatcher is None and not plain.default_mq_producer_impl.has_send_message_hook()
    custom.send(Message(TOPIC, "TagA", None, b"x"))
    plain.send(Message(TOPIC, "TagA", None, b"y"))
    cluster.run_for(1000)
    stored = cluster.stored("broker-a", "MyTrace")
    assert [decoder_from_trace_data_string(m.body.decode())[0].group_name for m in stored] == ["PG2"]
    assert world.traces() == []
    cluster.close()

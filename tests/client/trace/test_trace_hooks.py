"""The send and consume trace hooks on their own: what they record, what they skip."""

from __future__ import annotations

import pytest

from mqlab.client.hook.consume_message_context import ConsumeMessageContext
from mqlab.client.hook.send_message_context import SendMessageContext
from mqlab.client.impl.producer.default_mq_producer_impl import DefaultMQProducerImpl
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.client.producer.send_result import SendResult
from mqlab.client.producer.send_status import SendStatus
from mqlab.client.trace.hook.consume_message_trace_hook_impl import ConsumeMessageTraceHookImpl
from mqlab.client.trace.hook.send_message_trace_hook_impl import SendMessageTraceHookImpl
from mqlab.client.trace.trace_type import TraceType
from mqlab.common import mix_all
from mqlab.common.message import message_const as mc
from mqlab.common.message.message import Message
from mqlab.common.message.message_client_ext import MessageClientExt
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.message.message_type import MessageType
from mqlab.runtime import SimulatedWorld


class Sink:
    """A dispatcher that keeps what it is given."""

    trace_topic_name = "RMQ_SYS_TRACE_TOPIC"

    def __init__(self):
        self.contexts = []

    def append(self, ctx):
        self.contexts.append(ctx)
        return True


@pytest.fixture
def world():
    return SimulatedWorld(seed=5)


def result(status=SendStatus.SEND_OK, region="DefaultRegion", trace_on=True) -> SendResult:
    return SendResult(send_status=status, msg_id="UNIQ", message_queue=MessageQueue("T", "b", 0), queue_offset=0,
                      offset_msg_id="OFF", region_id=region, trace_on=trace_on)  # fmt: skip


@pytest.mark.spec("TRACE-4")
def test_send_hook_fills_the_pub_context_after_a_result(world):
    rt = world.runtime("p", ip="10.0.0.52")
    sink = Sink()
    hook = SendMessageTraceHookImpl(sink, rt)
    msg = Message("T", "TagA", "k", b"12345")
    ctx = SendMessageContext(producer_group="PG", message=msg, broker_addr="10.0.0.11:10911")
    hook.send_message_before(ctx)
    world.run_for(10)
    ctx.send_result = result(SendStatus.FLUSH_DISK_TIMEOUT)
    hook.send_message_after(ctx)
    (trace,) = sink.contexts
    bean = trace.trace_beans[0]
    assert (trace.trace_type, trace.group_name, trace.cost_time, trace.is_success, trace.region_id) == (
        TraceType.Pub, "PG", 10, False, "DefaultRegion",
    )  # fmt: skip
    assert (bean.msg_id, bean.offset_msg_id, bean.store_time - trace.time_stamp, bean.body_length) == (
        "UNIQ", "OFF", 5, 5,
    )  # fmt: skip


@pytest.mark.spec("TRACE-4")
def test_send_hook_skips_trace_messages_missing_results_regions_and_trace_off(world):
    rt = world.runtime("p", ip="10.0.0.52")
    sink = Sink()
    hook = SendMessageTraceHookImpl(sink, rt)
    trace_msg = SendMessageContext(message=Message("RMQ_SYS_TRACE_TOPIC", None, None, b"x"))
    hook.send_message_before(trace_msg)
    assert trace_msg.mq_trace_context is None
    for send_result in (None, result(region=None), result(trace_on=False)):
        ctx = SendMessageContext(producer_group="PG", message=Message("T", None, None, b"x"))
        hook.send_message_before(ctx)
        ctx.send_result = send_result
        hook.send_message_after(ctx)
    hook.send_message_after(None)
    hook.send_message_before(None)
    assert sink.contexts == []
    assert hook.hook_name() == "SendMessageTraceHook"


@pytest.mark.spec("TRACE-4")
def test_the_producer_sets_the_message_type_of_the_context(world):
    rt = world.runtime("p", ip="10.0.0.52")
    impl = DefaultMQProducerImpl(DefaultMQProducer("PG", rt), rt)
    seen = []

    class Spy:
        def hook_name(self):
            return "spy"

        def send_message_before(self, context):
            seen.append(context.msg_type)

        def send_message_after(self, context):
            raise RuntimeError("a hook's failure is swallowed")

    impl.register_send_message_hook(Spy())
    mq = MessageQueue("T", "b", 0)
    half = Message("T", None, None, b"x")
    half.put_property(mc.PROPERTY_TRANSACTION_PREPARED, "true")
    delayed = Message("T", None, None, b"x")
    delayed.set_delay_time_level(3)
    timed = Message("T", None, None, b"x")
    timed.put_property("__STARTDELIVERTIME", "1")
    for msg in (Message("T", None, None, b"x"), half, delayed, timed):
        impl.execute_send_message_hook_after(impl._send_message_hook_before(msg, mq, "a:1", None))
    assert seen == [MessageType.Normal_Msg, MessageType.Trans_Msg_Half, MessageType.Delay_Msg, MessageType.Delay_Msg]


def consumed(msg_id: str, **props: str) -> MessageClientExt:
    msg = MessageClientExt()
    msg.topic, msg.store_size, msg.store_timestamp, msg.reconsume_times = "T", 120, 42, 1
    msg.put_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, msg_id)
    for name, value in props.items():
        msg.put_property(name, value)
    return msg


@pytest.mark.spec("TRACE-5")
def test_consume_hook_skips_trace_off_messages_and_divides_cost_by_the_batch(world):
    rt = world.runtime("c", ip="10.0.0.53")
    sink = Sink()
    hook = ConsumeMessageTraceHookImpl(sink, rt)
    msgs = [consumed("A", MSG_REGION="R1"), consumed("B", TRACE_ON="false"), consumed("C")]
    ctx = ConsumeMessageContext(consumer_group="CG", msg_list=msgs)
    hook.consume_message_before(ctx)
    world.run_for(30)
    ctx.success = True
    ctx.props[mix_all.CONSUME_CONTEXT_TYPE] = "TIME_OUT"
    hook.consume_message_after(ctx)
    before, after = sink.contexts
    assert [b.msg_id for b in before.trace_beans] == ["A", "C"]
    assert (before.trace_beans[0].body_length, before.trace_beans[0].store_time, before.trace_beans[0].retry_times) == (
        120, 42, 1,
    )  # fmt: skip
    assert before.region_id is None  # the last traced message has no MSG_REGION
    assert (after.trace_type, after.cost_time, after.context_code, after.request_id) == (
        TraceType.SubAfter, 10, 1, before.request_id,
    )  # fmt: skip


@pytest.mark.spec("TRACE-5")
def test_consume_hook_records_nothing_when_every_message_has_trace_off(world):
    rt = world.runtime("c", ip="10.0.0.53")
    sink = Sink()
    hook = ConsumeMessageTraceHookImpl(sink, rt)
    ctx = ConsumeMessageContext(consumer_group="CG", msg_list=[consumed("A", TRACE_ON="false")])
    hook.consume_message_before(ctx)
    hook.consume_message_after(ctx)
    hook.consume_message_before(ConsumeMessageContext(consumer_group="CG", msg_list=[]))
    assert sink.contexts == []
    assert hook.hook_name() == "ConsumeMessageTraceHook"

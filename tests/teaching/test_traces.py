"""Reading a trace: choosing events, printing them as TraceEvent.format does, short message queues."""

import pytest

from mqlab.common.message.message_queue import MessageQueue
from mqlab.runtime.trace import Trace
from mqlab.teaching import print_trace, short_mq, shorten_mqs, trace_events, trace_lines

MQ = "MessageQueue [topic=PullTopic, brokerName=broker-a, queueId=0]"


@pytest.fixture
def trace() -> Trace:
    trace = Trace(origin_ms=1000)
    trace.record(1000, "producer", "DefaultMQProducerImpl", "selectQueue", mq=MQ)
    trace.record(1003, "broker-a", "CommitLog", "putMessage", offset=0, size=201)
    trace.record(1010, "consumer", "RebalanceImpl", "addProcessQueue", group="g", mq=MQ, offset=0)
    trace.record(1020, "broker-a", "CommitLog", "putMessage", offset=201, size=201)
    return trace


@pytest.mark.spec("TEACH-10")
def test_lines_are_trace_event_format_lines(trace):
    assert trace_lines(trace, "CommitLog") == [event.format(1000) for event in trace.events("CommitLog")]
    assert trace_lines(trace, "CommitLog", origin_ms=1003)[0].startswith("+       0ms broker-a")


@pytest.mark.spec("TEACH-10")
def test_events_by_component_node_name_time_and_predicate(trace):
    assert len(trace_events(trace)) == 4
    assert [e.node for e in trace_events(trace, ["CommitLog", "RebalanceImpl"], node={"consumer", "x"})] == ["consumer"]
    assert [e.time_ms for e in trace_events(trace, events={"putMessage"}, since_ms=1004)] == [1020]
    assert [e.fields["offset"] for e in trace_events(trace, where=lambda e: e.fields.get("offset") == 201)] == [201]


@pytest.mark.spec("TEACH-10")
def test_print_trace_drops_fields_and_shortens_queues(trace, capsys):
    print_trace(trace, "RebalanceImpl", skip={"group"}, mq_format="{broker}:{queue_id}")
    assert capsys.readouterr().out == (
        "+      10ms consumer   RebalanceImpl            addProcessQueue mq=broker-a:0 offset=0\n"
    )
    print_trace(trace, "NoSuchComponent")
    assert capsys.readouterr().out == ""


@pytest.mark.spec("TEACH-10")
def test_short_mq_reads_queues_and_their_text():
    queue = MessageQueue("PullTopic", "broker-a", 3)
    assert short_mq(queue) == "PullTopic:3"
    assert short_mq(str(queue)) == "PullTopic:3"
    assert short_mq(MQ, "{broker}:{queue_id}") == "broker-a:0"
    assert short_mq("MessageQueue [topic=%RETRY%g, brokerName=b, queueId=0]") == "%RETRY%g:0"
    assert shorten_mqs(f"pulled {MQ} then {MQ}.") == "pulled PullTopic:0 then PullTopic:0."
    with pytest.raises(ValueError, match="not a MessageQueue"):
        short_mq("PullTopic:0")

"""Sequence diagrams from the trace: one participant per node, arrows from the remoting events."""

import html
import shutil
from pathlib import Path

import pytest

from mqlab.common.protocol.request_code import RequestCode
from mqlab.runtime.trace import Trace, TraceEvent
from mqlab.teaching import sequence_diagram, trace_to_mermaid


def remoting(time_ms, node, side, event, **fields):
    return TraceEvent(time_ms, node, f"NettyRemoting{side}", event, fields)


# A producer asks the name server for a route, sends to broker-a; broker-a registers (oneway) with the name server.
EVENTS = [
    remoting(0, "producer", "Client", "invoke_sync", code=105, opaque=0, remote="10.0.0.1:9876", timeout_ms=3000),
    remoting(2, "namesrv", "Server", "request", code=105, opaque=0, remote="10.0.2.1:32768", oneway=False),
    remoting(4, "producer", "Client", "response", code=0, opaque=0, remote="10.0.0.1:9876"),
    remoting(5, "producer", "Client", "invoke_sync", code=310, opaque=1, remote="10.0.1.1:10911", timeout_ms=3000),
    remoting(6, "broker-a", "Client", "invoke_oneway", code=103, opaque=0, remote="10.0.0.1:9876"),
    remoting(7, "broker-a", "Server", "request", code=310, opaque=1, remote="10.0.2.1:32769", oneway=False),
    TraceEvent(7, "broker-a", "CommitLog", "putMessage", {"offset": 0}),
    remoting(8, "namesrv", "Server", "request", code=103, opaque=0, remote="10.0.1.1:40000", oneway=True),
    remoting(9, "producer", "Client", "response", code=0, opaque=1, remote="10.0.1.1:10911"),
    remoting(10, "producer", "Client", "invoke_sync", code=34, opaque=2, remote="10.0.1.1:10911", timeout_ms=3000),
    remoting(3010, "producer", "Client", "timeout", code=34, opaque=2, remote="10.0.1.1:10911", timeout_ms=3000),
]


@pytest.mark.spec("TEACH-8")
def test_a_participant_per_node_an_arrow_per_request_and_response():
    assert trace_to_mermaid(EVENTS, notes=[("CommitLog", "putMessage")]) == (
        "sequenceDiagram\n"
        "    participant producer\n"
        "    participant namesrv\n"
        "    participant broker_a as broker-a\n"
        "    producer->>namesrv: GET_ROUTEINFO_BY_TOPIC\n"
        "    namesrv-->>producer: SUCCESS (GET_ROUTEINFO_BY_TOPIC)\n"
        "    producer->>broker_a: SEND_MESSAGE_V2\n"
        "    Note over broker_a: CommitLog putMessage\n"
        "    broker_a-)namesrv: REGISTER_BROKER\n"
        "    broker_a-->>producer: SUCCESS (SEND_MESSAGE_V2)\n"
        "    Note over producer: timeout HEART_BEAT after 3000 ms\n"
    )


@pytest.mark.spec("TEACH-8")
def test_filters_times_order_limit_and_title():
    trace = Trace(origin_ms=0)
    for event in EVENTS:
        trace.record(event.time_ms, event.node, event.component, event.event, **event.fields)
    diagram = trace_to_mermaid(
        trace,
        nodes=["broker-a", "producer"],
        exclude_codes=[RequestCode.HEART_BEAT],
        show_time=True,
        title="send; then #more",
    )
    assert diagram == (
        "sequenceDiagram\n"
        "    title send then more\n"
        "    participant broker_a as broker-a\n"
        "    participant producer\n"
        "    producer->>broker_a: +7 ms SEND_MESSAGE_V2\n"
        "    broker_a-->>producer: +9 ms SUCCESS (SEND_MESSAGE_V2)\n"
    )
    only_routes = trace_to_mermaid(trace, codes=[RequestCode.GET_ROUTEINFO_BY_TOPIC], limit=1)
    assert only_routes.splitlines()[-2:] == [
        "    producer->>namesrv: GET_ROUTEINFO_BY_TOPIC",
        "    Note over producer: 1 more messages not shown",
    ]
    assert trace.to_mermaid(since_ms=5, codes=[310]) == trace_to_mermaid(EVENTS[3:], codes=[310])


@pytest.mark.spec("TEACH-8")
def test_unknown_senders_keep_their_address_unless_named():
    late = [remoting(1, "namesrv", "Server", "request", code=105, opaque=9, remote="10.0.2.7:5000", oneway=False)]
    assert trace_to_mermaid(late).splitlines()[1:] == [
        "    participant n_10_0_2_7_5000 as 10.0.2.7 5000",
        "    participant namesrv",
        "    n_10_0_2_7_5000->>namesrv: GET_ROUTEINFO_BY_TOPIC",
    ]
    named = trace_to_mermaid(late, addresses={"10.0.2.7": "consumer"})
    assert "    consumer->>namesrv: GET_ROUTEINFO_BY_TOPIC" in named.splitlines()


@pytest.mark.spec("TEACH-8")
def test_same_opaque_from_two_clients_is_told_apart_by_address():
    events = [
        remoting(0, "broker-a", "Server", "start", address="10.0.1.1:10911"),
        TraceEvent(0, "broker-b", "SimNetwork", "listen", {"address": "10.0.1.2:10911"}),
        remoting(0, "c1", "Client", "invoke_sync", code=34, opaque=0, remote="10.0.1.1:10911", timeout_ms=3000),
        remoting(0, "c2", "Client", "invoke_sync", code=34, opaque=0, remote="10.0.1.2:10911", timeout_ms=3000),
        remoting(1, "broker-b", "Server", "request", code=34, opaque=0, remote="10.0.2.2:1", oneway=False),
        remoting(1, "broker-a", "Server", "request", code=34, opaque=0, remote="10.0.2.1:1", oneway=False),
        remoting(2, "c2", "Client", "response", code=0, opaque=0, remote="10.0.1.2:10911"),
    ]
    expected = ["c2->>broker_b: HEART_BEAT", "c1->>broker_a: HEART_BEAT", "broker_b-->>c2: SUCCESS (HEART_BEAT)"]
    assert arrows(events) == expected
    # Without the servers' own events, the caller names the addresses.
    named = {"10.0.1.1": "broker-a", "10.0.1.2": "broker-b"}
    assert arrows(events[2:], addresses=named) == expected
    # Nobody says: the earliest matching invoke is taken.
    assert arrows(events[2:])[0] == "c1->>broker_b: HEART_BEAT"


def arrows(events, **options):
    return [line.strip() for line in trace_to_mermaid(events, **options).splitlines() if "->>" in line]


@pytest.mark.spec("TEACH-8")
def test_a_simulated_send_draws_the_same_diagram_every_run(tmp_path):
    from mqlab.client.producer.default_mq_producer import DefaultMQProducer
    from mqlab.cluster import Cluster
    from mqlab.common.message.message import Message

    def run(root):
        cluster = Cluster.simulated(root, seed=3).start()
        try:
            cluster.world.trace.clear()
            producer = DefaultMQProducer("g", cluster.client_runtime("producer"), namesrv_addr=cluster.namesrv_addr)
            producer.start()
            producer.send(Message("TopicTest", "TagA", "k", b"hello"))
            producer.shutdown()
            return trace_to_mermaid(cluster.world.trace, exclude_codes=[RequestCode.HEART_BEAT])
        finally:
            cluster.shutdown()

    first, second = run(tmp_path / "a"), run(tmp_path / "b")
    assert first == second
    lines = first.splitlines()
    assert lines[:4] == [
        "sequenceDiagram",
        "    participant producer",
        "    participant namesrv",
        "    participant broker_a as broker-a",
    ]
    assert "    producer->>broker_a: SEND_MESSAGE_V2" in lines
    assert "    broker_a-->>producer: SUCCESS (SEND_MESSAGE_V2)" in lines
    assert lines.index("    producer->>broker_a: SEND_MESSAGE_V2") < lines.index(
        "    broker_a-->>producer: SUCCESS (SEND_MESSAGE_V2)"
    )


def test_sequence_diagram_displays_as_a_mermaid_fence():
    diagram = sequence_diagram(EVENTS[:3])
    assert repr(diagram) == str(diagram) == trace_to_mermaid(EVENTS[:3])
    assert diagram._repr_markdown_() == f"```mermaid\n{trace_to_mermaid(EVENTS[:3])}```\n"


# --- drawn by the site's mermaid ------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium")
PAGE = """<!doctype html><html><head><title>Diagram</title></head><body>
<pre class="mermaid">{source}</pre>
<script src="mermaid.min.js"></script>
<script>
mermaid.initialize({{startOnLoad: false}});
document.querySelectorAll("pre.mermaid").forEach(async (pre, i) => {{
  const {{svg}} = await mermaid.render("d" + i, pre.textContent);
  const host = document.createElement("div");
  host.className = "mermaid";
  host.attachShadow({{mode: "closed"}}).innerHTML = svg;
  pre.replaceWith(host);
}});
</script></body></html>"""


@pytest.mark.spec("TEACH-8")
@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium")
def test_the_sites_mermaid_draws_the_diagram(tmp_path):
    from tools import check_site

    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(ROOT / "docs/javascripts/mermaid.min.js", site / "mermaid.min.js")
    source = trace_to_mermaid(EVENTS, notes=["CommitLog"], note_fields=True, show_time=True, title="a send")
    (site / "index.html").write_text(PAGE.format(source=html.escape(source)))
    assert check_site.check_site(site, (), None, CHROMIUM) == []

"""Message traces on real threads and loopback TCP: a traced producer and push consumer, then queryMsgTraceById."""

from __future__ import annotations

import io
import time

import pytest

from mqlab.cli import build_parser
from mqlab.common.message.message import Message
from mqlab.tools.command.mq_admin_startup import run_sub_command
from tests.client.consumer.push_support import TOPIC, ConsumerCluster, Recorder


@pytest.mark.spec("TRACE-1")
@pytest.mark.spec("TRACE-10")
def test_pub_and_sub_traces_over_loopback_tcp(tmp_path):
    cluster = ConsumerCluster(tmp_path, "tcp", broker={"trace_topic_enable": True})
    try:
        cluster.make_topic(TOPIC, 4)
        producer = cluster.producer("PG", runtime=cluster.client_runtime("producer"), enable_msg_trace=True)
        result = producer.send(Message(TOPIC, "TagA", "k1", b"hello"))
        recorder = Recorder(lambda: int(time.time() * 1000))
        cluster.push_consumer("CG", recorder, node="consumer", enable_msg_trace=True)
        assert cluster.wait_until(lambda: recorder.messages, 20_000)
        args = build_parser().parse_args(
            ["admin", "queryMsgTraceById", "-n", cluster.namesrv_addr, "-i", result.msg_id]
        )

        def rows() -> list[list[str]]:
            out, err = io.StringIO(), io.StringIO()
            run_sub_command(args, out=out, err=err)
            return [line.split()[:3] for line in out.getvalue().splitlines() if line and not line.startswith("#")]

        # the consumer's traces leave up to a few ms after consumption: ask until both rows are there
        assert cluster.wait_until(lambda: len(rows()) == 2, 5000)
        assert rows() == [["Pub", "PG", "127.0.0.1"], ["Sub", "CG", "127.0.0.1"]]
    finally:
        cluster.close()

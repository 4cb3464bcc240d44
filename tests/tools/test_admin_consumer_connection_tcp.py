"""``mqlab admin consumerConnection`` and ``consumerProgress`` (no ``-g``) through the command line, real TCP."""

from __future__ import annotations

import threading

import pytest

from mqlab.cli import main
from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.cluster import Cluster
from mqlab.common.message.message import Message
from tests.tools.admin_cli import start_consumer

TOPIC = "ConnectionTopic"
GROUP = "connection_group"
COUNT = 8


@pytest.mark.spec("ADMIN-15", "ADMIN-16", "BRK-37")
def test_consumer_connection_and_progress_over_tcp_show_both_members_of_a_running_group(tmp_path, capsys):
    cluster = Cluster.real(tmp_path / "cluster").start()
    producer = DefaultMQProducer(
        "connection_producer", cluster.client_runtime("producer"), namesrv_addr=cluster.namesrv_addr
    )
    producer.start()
    consumers: list[DefaultMQPushConsumer] = []
    try:
        for i in range(COUNT):
            producer.send(Message(TOPIC, "TagA", None, f"body {i}".encode()))
        consumed: set[str] = set()
        lock = threading.Lock()

        def on_messages(msgs, context):
            with lock:
                consumed.update(m.get_msg_id() for m in msgs)
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

        for i in (1, 2):
            consumer = start_consumer(
                cluster, GROUP, TOPIC, on_messages, node=f"consumer-{i}", expression="TagA || TagB"
            )
            consumers.append(consumer)
        client_ids = sorted(c.default_mq_push_consumer_impl.mq_client_factory.client_id for c in consumers)
        broker = cluster.broker()

        def both_joined() -> bool:
            info = broker.consumer_manager.get_consumer_group_info(GROUP)
            return info is not None and len(info.channel_info_table) == 2

        assert cluster.wait_until(both_joined, 30_000)
        assert cluster.wait_until(lambda: len(consumed) >= COUNT, 30_000)

        code = main(["admin", "consumerConnection", "-n", cluster.namesrv_addr, "-g", GROUP])
        out, err = capsys.readouterr()
        lines = out.splitlines()
        assert (code, err) == (0, "")
        assert lines[0].split() == ["#ClientId", "#ClientAddr", "#Language", "#Version"]
        rows = [line.split() for line in lines[1:3]]
        assert [(r[0], r[2], r[3]) for r in rows] == [(cid, "JAVA", "V4_9_3") for cid in client_ids]
        assert all(r[1].startswith("127.0.0.1:") for r in rows)  # each member's own loopback connection
        assert "TagA || TagB" in out and f"%RETRY%{GROUP}" in out
        assert lines[-3:] == [
            "ConsumeType: CONSUME_PASSIVELY",
            "MessageModel: CLUSTERING",
            "ConsumeFromWhere: CONSUME_FROM_FIRST_OFFSET",
        ]

        code = main(["admin", "consumerProgress", "-n", cluster.namesrv_addr])
        out, err = capsys.readouterr()
        assert (code, err) == (0, "")
        rows = {line.split()[0]: line.split() for line in out.splitlines()[1:]}
        assert rows[GROUP][1:6] == ["2", "V4_9_3", "PUSH", "CLUSTERING", "0"]

        code = main(["admin", "consumerConnection", "-n", cluster.namesrv_addr, "-g", "nobody_group"])
        out, err = capsys.readouterr()
        assert (code, out) == (1, "") and "%RETRY%nobody_group" in err and err.count("\n") == 1
    finally:
        for consumer in consumers:
            consumer.shutdown()
        producer.shutdown()
        cluster.shutdown()

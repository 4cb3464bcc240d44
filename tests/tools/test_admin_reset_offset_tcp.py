"""``mqlab admin resetOffsetByTime -n ...`` through the command line against a real cluster (threads, TCP)."""

from __future__ import annotations

import threading
import time

import pytest

from mqlab.cli import main
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.impl.factory import mq_client_instance
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.cluster import Cluster
from mqlab.common.message.message import Message
from tests.tools.admin_cli import start_consumer

TOPIC = "ResetTopic"
GROUP = "reset_group"
COUNT = 12
QUEUES = 4


@pytest.mark.spec("ADMIN-13", "ADMIN-14", "BRK-36", "INST-16")
def test_reset_offset_by_time_over_tcp_resets_a_running_consumer_then_an_offline_group(tmp_path, capsys, monkeypatch):
    # Java waits 10 s before the consumer commits the new offsets; half a second is enough for loopback TCP.
    monkeypatch.setattr(mq_client_instance, "RESET_OFFSET_SETTLE_MILLIS", 500)
    cluster = Cluster.real(tmp_path / "cluster").start()
    producer = DefaultMQProducer(
        "reset_producer", cluster.client_runtime("producer"), namesrv_addr=cluster.namesrv_addr
    )
    producer.start()
    consumer = None
    try:
        for i in range(COUNT):
            producer.send(Message(TOPIC, "TagA", None, f"body {i}".encode()))
            time.sleep(0.02)  # distinct store times
        consumed: list[tuple[int, int]] = []
        lock = threading.Lock()

        def on_messages(msgs, context):
            with lock:
                consumed.extend((m.queue_id, m.queue_offset) for m in msgs)
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

        consumer = start_consumer(cluster, GROUP, TOPIC, on_messages)
        assert cluster.wait_until(lambda: len(consumed) >= COUNT, 30_000)
        broker = cluster.broker()
        store = broker.message_store
        max_offsets = [store.get_max_offset_in_queue(TOPIC, q) for q in range(QUEUES)]
        consumer.default_mq_push_consumer_impl.persist_consumer_offset()

        def committed() -> list[int]:
            return [broker.consumer_offset_manager.query_offset(GROUP, TOPIC, q) for q in range(QUEUES)]

        assert cluster.wait_until(lambda: committed() == max_offsets, 30_000)

        def store_time(q: int, o: int) -> int:
            return store.get_message_store_timestamp(TOPIC, q, o)

        target = store_time(1, 1)
        expected = [
            min(range(max_offsets[q]), key=lambda o, q=q: (abs(store_time(q, o) - target), o)) for q in range(QUEUES)
        ]
        with lock:
            consumed.clear()
        code = main(
            ["admin", "resetOffsetByTime", "-n", cluster.namesrv_addr, "-g", GROUP, "-t", TOPIC, "-s", str(target)]
        )
        out, err = capsys.readouterr()
        lines = out.splitlines()
        assert (code, err) == (0, "")
        assert lines[0] == (
            f"rollback consumer offset by specified group[{GROUP}], topic[{TOPIC}], force[true], "
            f"timestamp(string)[{target}], timestamp(long)[{target}]"
        )
        assert lines[1].split() == ["#brokerName", "#queueId", "#offset"]
        assert [line.split() for line in lines[2:]] == [["broker-a", str(q), str(expected[q])] for q in range(QUEUES)]
        wanted = {(q, o) for q in range(QUEUES) for o in range(expected[q], max_offsets[q])}

        def reconsumed() -> bool:
            with lock:
                return set(consumed) >= wanted

        assert cluster.wait_until(reconsumed, 30_000), "the consumer did not consume again from the reset offsets"
        with lock:
            assert set(consumed) == wanted
        consumer.shutdown()
        consumer = None
        # no consumer online: the command commits the offsets itself and prints the older command's table
        code = main(["admin", "resetOffsetByTime", "-n", cluster.namesrv_addr, "-g", GROUP, "-t", TOPIC, "-s", "1"])
        out, err = capsys.readouterr()
        lines = out.splitlines()
        assert (code, err) == (0, "") and lines[0].startswith(
            f"rollback consumer offset by specified consumerGroup[{GROUP}]"
        )
        assert [line.split()[:2] + line.split()[4:] for line in lines[2:]] == [
            ["broker-a", str(q), "0", "0"] for q in range(QUEUES)
        ]
        assert committed() == [0] * QUEUES
    finally:
        if consumer is not None:
            consumer.shutdown()
        producer.shutdown()
        cluster.shutdown()

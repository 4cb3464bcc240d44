"""The push consumer on real threads and loopback TCP: concurrent and orderly consumption, offsets on the broker."""

from __future__ import annotations

import threading

import pytest

from tests.client.consumer.push_support import TOPIC, ConsumerCluster, Recorder


@pytest.mark.spec("PUSH-20", "CONSUME-8")
def test_concurrent_and_orderly_consumers_over_loopback_tcp(tmp_path):
    cluster = ConsumerCluster(tmp_path, "tcp")
    try:
        cluster.make_topic(TOPIC, 4)
        assert cluster.namesrv_addr.startswith("127.0.0.1:")
        cluster.send(20)
        lock = threading.Lock()
        concurrent = Recorder(cluster.now)
        orderly = Recorder(cluster.now, orderly=True)

        def locked(recorder):
            def call(msgs, context):
                with lock:  # real consume threads: keep the recorder's lists consistent
                    return recorder(msgs, context)

            return call

        consumer = cluster.push_consumer("CG-tcp", locked(concurrent))
        cluster.push_consumer("CO-tcp", locked(orderly), orderly=True)
        assert cluster.wait_until(lambda: len(concurrent.bodies) >= 20 and len(orderly.bodies) >= 20, 20_000)
        assert sorted(concurrent.bodies, key=int) == [str(i).encode() for i in range(20)]
        by_queue: dict[int, list[int]] = {}
        for _, batch in orderly.calls:
            for _, queue_id, offset, _, _ in batch:
                by_queue.setdefault(queue_id, []).append(offset)
        assert all(offsets == sorted(offsets) for offsets in by_queue.values())
        consumer.shutdown()  # persists the offsets on the broker
        for queue_id in range(4):
            assert cluster.broker_offset("CG-tcp", TOPIC, queue_id) == cluster.broker_max_offset(TOPIC, queue_id)
    finally:
        cluster.close()

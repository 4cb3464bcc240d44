"""The same producer on real threads and loopback TCP: a name server, a broker and a producer in one process."""

from __future__ import annotations

import pytest

from mqlab.client.producer.send_status import SendStatus
from mqlab.common.message import message_const as mc
from mqlab.common.message.message import Message
from tests.client.cluster_fixtures import Callback, ClientCluster


@pytest.mark.spec("SEND-15")
def test_sync_async_and_oneway_sends_over_loopback_tcp(tmp_path):
    cluster = ClientCluster(tmp_path, "tcp")
    try:
        producer = cluster.producer("PG-tcp")
        assert producer.namesrv_addr.startswith("127.0.0.1:")
        sent = [producer.send(Message("TcpTopic", "TagA", f"k{i}", b"sync-%d" % i)) for i in range(3)]
        assert all(r.send_status is SendStatus.SEND_OK for r in sent)
        callback = Callback(producer.runtime)
        producer.send_async(Message("TcpTopic", body=b"async"), callback)
        assert cluster.wait_until(lambda: callback.done, 5000)
        assert callback.results and not callback.errors
        producer.send_oneway(Message("TcpTopic", body=b"oneway"))
        assert cluster.wait_until(lambda: len(cluster.stored("broker-a", "TcpTopic")) == 5, 5000)
        stored = cluster.stored("broker-a", "TcpTopic")
        assert sorted(m.body for m in stored) == [b"async", b"oneway", b"sync-0", b"sync-1", b"sync-2"]
        ids = {m.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX) for m in stored}
        assert {r.msg_id for r in sent} | {callback.results[0].msg_id} <= ids
        # the producer's heartbeat reaches the broker's ProducerManager
        table = cluster.brokers["broker-a"].producer_manager.group_channel_table
        assert cluster.wait_until(lambda: "PG-tcp" in table, 5000)
    finally:
        cluster.close()

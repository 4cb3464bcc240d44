"""A broker's clean shutdown ends every service's wait with one last round, as 4.9.3's ServiceThread does.

The workload of issue 22 (item 12): a broker that never had a half message is sent one plain message and shut down.
4.9.3's ``TransactionalMessageCheckService`` checks once more when its wait is ended by the shutdown; the check looks
for the half topic's queues and, finding no such topic, creates ``RMQ_SYS_TRANS_HALF_TOPIC`` (perm 6, one read and
one write queue) and persists it in ``config/topics.json``.
"""

from __future__ import annotations

import json

import pytest

from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.topic import topic_validator as tv


@pytest.mark.spec("AUDIT-12")
def test_clean_shutdown_runs_the_transaction_check_once_more_and_persists_the_half_topic(cluster):
    client = cluster.client()
    assert client.send(client.message("TopicTest", b"plain", tags="TagA")).code == ResponseCode.SUCCESS
    cluster.run_for(5_000)  # far less than transactionCheckInterval (60 s): no check has run yet
    topics_file = cluster.tmp_path / "store" / "config" / "topics.json"
    assert tv.RMQ_SYS_TRANS_HALF_TOPIC not in cluster.controller.topic_config_manager.topic_config_table
    records_before = cluster.controller.message_store.get_max_phy_offset()
    cluster.close()
    table = json.loads(topics_file.read_text())["topicConfigTable"]
    half = table[tv.RMQ_SYS_TRANS_HALF_TOPIC]
    assert (half["perm"], half["readQueueNums"], half["writeQueueNums"]) == (6, 1, 1)
    assert cluster.controller.message_store.get_max_phy_offset() == records_before  # the check wrote nothing


@pytest.mark.spec("AUDIT-12")
def test_the_last_check_of_a_broker_with_an_open_half_message_reads_nothing_from_the_stopped_store(cluster):
    from tests.broker.test_transactions import send_half

    client = cluster.client()
    send_half(client)
    cluster.run_for(7_000)  # older than transactionTimeOut (6 s), and no check yet (transactionCheckInterval 60 s)
    store = cluster.controller.message_store
    end_before = store.get_max_phy_offset()
    cluster.close()  # as in 4.9.3 the check service stops after the store: its last round finds no message
    assert store.get_max_phy_offset() == end_before
    ends = [
        e.fields
        for e in cluster.world.trace
        if (e.component, e.event) == ("TransactionalMessageCheckService", "checkEnd")
    ]
    assert len(ends) == 1 and ends[0]["checked"] == 0

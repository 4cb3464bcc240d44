"""AUDIT-*: divergences from 4.9.3 in the broker, found by reading the source side by side, pinned to 4.9.3."""

from __future__ import annotations

import pytest

from mqlab.broker.processor.send_message_processor import SendMessageProcessor
from mqlab.common.protocol.response_code import ResponseCode


# -- AUDIT-2 (the store side is in tests/store/test_default_message_store.py) ---------------------------------------
@pytest.mark.spec("AUDIT-2")
def test_an_oversized_batch_is_answered_system_error_over_the_wire(make_cluster):
    cluster = make_cluster(store={"max_message_size": 2048})
    client = cluster.client()
    response = client.send_batch([client.message("TopicTest", b"x" * 300) for _ in range(10)])
    assert response.code == ResponseCode.SYSTEM_ERROR
    assert "MessageSizeExceededError: message size exceeded" in response.remark
    assert client.send_batch([client.message("TopicTest", b"x" * 300)]).code == ResponseCode.SUCCESS


# -- AUDIT-6 -------------------------------------------------------------------------------------------------------
@pytest.mark.spec("AUDIT-6")
def test_disk_util_splits_store_paths_on_the_multi_path_splitter(cluster):
    processor = SendMessageProcessor(cluster.controller)
    config = cluster.controller.message_store_config
    config.store_path_commit_log = f"{config.store_path_commit_log},{config.store_path_commit_log}"
    text = processor.disk_util()
    assert text.startswith("CL: ") and "CL: -1.00" not in text  # both paths exist: a ";" split saw one bad path

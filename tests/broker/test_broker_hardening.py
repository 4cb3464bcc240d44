"""HARD-1/HARD-2: a group name or topic that would name a file outside the store root is refused everywhere."""

from __future__ import annotations

import logging

import pytest

from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.validators import check_group
from mqlab.common.protocol.header import broker_headers as bh
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.topic.topic_validator import is_safe_path_component, validate_group
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.store.put_message_status import PutMessageStatus
from mqlab.store.store_errors import StorePathError
from tests.broker.test_broker_send import send_back

ESCAPE = "../../../../x"
BAD_GROUPS = [ESCAPE, "a/b", "..", "", "   ", "G 1", "x" * 256, "组"]


def files_outside(store_root):
    """Every file below the test's directory that is not below the store root (the name server's own aside)."""
    base = store_root.parent.parent  # the test's tmp_path: "../../../../x" from consumequeue/%DLQ%.. lands here
    return sorted(
        str(p.relative_to(base))
        for p in base.rglob("*")
        if p.is_file() and store_root not in p.parents and p.name != "kvConfig.json"
    )


@pytest.mark.spec("HARD-1")
@pytest.mark.parametrize("group", BAD_GROUPS)
def test_broker_rules_are_the_clients_rules(group):
    failure = validate_group(group)
    assert failure is not None and failure[0] == ResponseCode.SYSTEM_ERROR
    with pytest.raises(MQClientException) as raised:
        check_group(group)
    assert raised.value.error_message == failure[1] or failure[1] in str(raised.value)


@pytest.mark.spec("HARD-1")
@pytest.mark.parametrize("group", ["G1", "CID_RMQ_SYS_x", "%RETRY%G1", "a|b-c_d", "x" * 255])
def test_valid_groups_pass(group):
    assert validate_group(group) is None
    check_group(group)


@pytest.mark.spec("HARD-1")
def test_heartbeat_then_send_back_with_a_path_group_writes_nothing_outside_the_store(cluster):
    client = cluster.client()
    client.send(client.message("TopicTest", b"payload"), queue_id=0)
    heartbeat = client.heartbeat(ESCAPE, {"TopicTest": "*"})
    assert heartbeat.code == ResponseCode.SYSTEM_ERROR
    assert (
        heartbeat.remark
        == f"the specified group[{ESCAPE}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$"
    )
    response = send_back(client, 0, group=ESCAPE, delay_level=-1)
    assert (response.code, response.remark) == (heartbeat.code, heartbeat.remark)
    cluster.run_for(100)
    store_root = cluster.controller.message_store.root
    assert files_outside(store_root) == []
    topics = cluster.controller.topic_config_manager.topic_config_table
    assert not any(ESCAPE in name for name in topics)
    assert cluster.controller.subscription_group_manager.find_subscription_group_config(ESCAPE) is None
    assert cluster.controller.consumer_manager.get_consumer_group_info(ESCAPE) is None


@pytest.mark.spec("HARD-1")
def test_a_heartbeat_with_one_bad_group_registers_none_of_its_groups(cluster):
    client = cluster.client()
    response = client.heartbeat("GoodGroup", {"TopicTest": "*"}, producer="bad/producer")
    assert response.code == ResponseCode.SYSTEM_ERROR and "bad/producer" in response.remark
    assert cluster.controller.consumer_manager.get_consumer_group_info("GoodGroup") is None


@pytest.mark.spec("HARD-1")
def test_pull_and_offsets_refuse_an_invalid_group(cluster):
    client = cluster.client()
    client.send(client.message("TopicTest", b"payload"), queue_id=0)
    pulled = client.pull(ESCAPE, "TopicTest", 0, 0, suspend=False)
    assert pulled.code == ResponseCode.SYSTEM_ERROR and "illegal characters" in pulled.remark
    update = bh.UpdateConsumerOffsetRequestHeader(consumer_group=ESCAPE, topic="TopicTest", queue_id=0, commit_offset=1)
    response = client.call(RequestCode.UPDATE_CONSUMER_OFFSET, update)
    assert response.code == ResponseCode.SYSTEM_ERROR
    query = bh.QueryConsumerOffsetRequestHeader(consumer_group=ESCAPE, topic="TopicTest", queue_id=0)
    assert client.call(RequestCode.QUERY_CONSUMER_OFFSET, query).code == ResponseCode.SYSTEM_ERROR
    offsets = cluster.controller.consumer_offset_manager.offset_table
    assert not any(ESCAPE in key for key in offsets)


@pytest.mark.spec("HARD-1")
def test_admin_cannot_create_a_subscription_group_with_an_invalid_name(cluster):
    client = cluster.client()
    body = b'{"groupName":"../evil","consumeEnable":true}'
    response = client.call(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, body=body)
    assert response.code == ResponseCode.SYSTEM_ERROR and "../evil" in response.remark
    assert cluster.controller.subscription_group_manager.subscription_group_table.get("../evil") is None


@pytest.mark.spec("HARD-1")
def test_retry_topics_are_only_created_with_valid_names(cluster):
    manager = cluster.controller.topic_config_manager
    assert manager.create_topic_in_send_message_back_method("%RETRY%../x", 1, 6, 0) is None
    assert manager.create_topic_in_send_message_back_method("%RETRY%G1", 1, 6, 0) is not None


@pytest.mark.spec("HARD-2")
@pytest.mark.parametrize("topic", ["..", ".", "a/b", "%DLQ%../../x", "a\\b", "a\x00b"])
def test_the_store_refuses_topics_that_cannot_be_a_directory(cluster, topic):
    store = cluster.controller.message_store
    assert not is_safe_path_component(topic)
    msg = MessageExtBrokerInner.bare()
    msg.topic, msg.queue_id, msg.body, msg.properties_string = topic, 0, b"x", ""
    assert store.check_message(msg) is PutMessageStatus.MESSAGE_ILLEGAL
    with pytest.raises(StorePathError, match="cannot name a directory below"):
        store.find_consume_queue(topic, 0)
    assert files_outside(store.root) == []


@pytest.mark.spec("HARD-9")
def test_each_failed_registration_is_logged(cluster, caplog):
    caplog.set_level(logging.WARNING, logger="mqlab")
    cluster.namesrv.close()  # the name server is gone
    cluster.controller.register_broker_all(True, False, True)
    cluster.run_for(5000)
    lines = [r.getMessage() for r in caplog.records if r.name == "mqlab.RocketmqBroker"]
    assert any(line.startswith("registerBroker to name server 10.0.0.1:9876 failed") for line in lines), lines

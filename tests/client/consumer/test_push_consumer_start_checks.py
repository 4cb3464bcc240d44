"""HARD-9: a push consumer whose subscription the broker cannot serve fails at start(), not in every pull."""

from __future__ import annotations

import logging

import pytest

from mqlab.client.consumer.message_selector import MessageSelector
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.common.protocol.response_code import ResponseCode
from tests.client.consumer.push_support import TOPIC, ConsumerCluster


def listener(msgs, ctx):
    return None


@pytest.mark.spec("HARD-9")
def test_sql92_on_a_broker_without_property_filtering_fails_at_start(tmp_path):
    cluster = ConsumerCluster(tmp_path / "c")
    cluster.make_topic(TOPIC, 4)
    try:
        consumer = cluster.push_consumer("CG", listener, start=False)
        consumer.subscribe(TOPIC, MessageSelector.by_sql("a > 1"))
        with pytest.raises(MQClientException) as raised:
            consumer.start()
        assert raised.value.response_code == ResponseCode.SYSTEM_ERROR
        assert "The broker does not support consumer to filter message by SQL92" in str(raised.value)
    finally:
        cluster.close()


@pytest.mark.spec("HARD-9")
def test_a_group_the_broker_will_not_create_fails_at_start(tmp_path):
    cluster = ConsumerCluster(tmp_path / "c", broker={"auto_create_subscription_group": False})
    cluster.make_topic(TOPIC, 4)
    try:
        with pytest.raises(MQClientException) as raised:
            cluster.push_consumer("NoSuchGroup", listener)
        assert raised.value.response_code == ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST
        assert "subscription group [NoSuchGroup] does not exist" in str(raised.value)
    finally:
        cluster.close()


@pytest.mark.spec("HARD-9")
def test_a_served_group_starts_as_before(tmp_path):
    cluster = ConsumerCluster(tmp_path / "c")
    cluster.make_topic(TOPIC, 4)
    try:
        consumer = cluster.push_consumer("CG", listener)
        assert consumer.default_mq_push_consumer_impl.service_state.name == "RUNNING"
    finally:
        cluster.close()


@pytest.mark.spec("HARD-9")
def test_pull_failures_are_logged(tmp_path, caplog):
    cluster = ConsumerCluster(tmp_path / "c")
    cluster.make_topic(TOPIC, 4)
    try:
        cluster.push_consumer("CG", listener)
        caplog.set_level(logging.WARNING, logger="mqlab")
        cluster.brokers["broker-a"].broker_config.broker_permission = 2  # write only: pulls answer NO_PERMISSION
        cluster.world.run_for(20_000)
    finally:
        cluster.close()
    assert any("pull" in r.getMessage() and r.name == "mqlab.RocketmqClient" for r in caplog.records)

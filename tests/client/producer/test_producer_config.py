"""Parity of ProducerConfig with DefaultMQProducer's fields in rocketmq-all-4.9.3."""

from dataclasses import fields

import pytest

from mqlab.client.client_config import ClientConfig
from mqlab.client.producer.producer_config import ProducerConfig

# (Java field, Python field, 4.9.3 default after `new DefaultMQProducer()`).
DEFAULTS = [
    ("producerGroup", "producer_group", "DEFAULT_PRODUCER"),
    ("createTopicKey", "create_topic_key", "TBW102"),
    ("defaultTopicQueueNums", "default_topic_queue_nums", 4),
    ("sendMsgTimeout", "send_msg_timeout", 3000),
    ("compressMsgBodyOverHowmuch", "compress_msg_body_over_howmuch", 4096),
    ("retryTimesWhenSendFailed", "retry_times_when_send_failed", 2),
    ("retryTimesWhenSendAsyncFailed", "retry_times_when_send_async_failed", 2),
    ("retryAnotherBrokerWhenNotStoreOK", "retry_another_broker_when_not_store_ok", False),
    ("maxMessageSize", "max_message_size", 4 * 1024 * 1024),
    ("retryResponseCodes", "retry_response_codes", {17, 14, 1, 16, 204, 205}),
]

pytestmark = pytest.mark.spec("CLI-10")


@pytest.mark.parametrize(("java_field", "field", "expected"), DEFAULTS, ids=[row[0] for row in DEFAULTS])
def test_default_equals_4_9_3(java_field, field, expected):
    assert getattr(ProducerConfig(client_ip="10.0.0.1"), field) == expected, f"DefaultMQProducer.{java_field}"


def test_every_own_field_has_a_parity_row():
    own = {f.name for f in fields(ProducerConfig)} - {f.name for f in fields(ClientConfig)}
    assert own == {row[1] for row in DEFAULTS}


def test_is_a_client_config():
    config = ProducerConfig(client_ip="10.0.0.1", producer_group="pg")
    assert isinstance(config, ClientConfig)
    assert config.build_mq_client_id() == "10.0.0.1@DEFAULT"
    assert config.persist_consumer_offset_interval == 5000


def test_retry_codes_are_per_instance():
    a, b = ProducerConfig(client_ip="10.0.0.1"), ProducerConfig(client_ip="10.0.0.1")
    a.retry_response_codes.add(999)
    assert 999 not in b.retry_response_codes

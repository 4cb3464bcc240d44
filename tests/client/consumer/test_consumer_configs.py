"""Parity of PushConsumerConfig / LitePullConsumerConfig with rocketmq-all-4.9.3's consumers."""

from dataclasses import fields
from datetime import UTC, timedelta, timezone

import pytest

from mqlab.client.client_config import ClientConfig
from mqlab.client.consumer.lite_pull_consumer_config import MIN_AUTOCOMMIT_INTERVAL_MILLIS, LitePullConsumerConfig
from mqlab.client.consumer.push_consumer_config import PushConsumerConfig, default_consume_timestamp
from mqlab.client.consumer.rebalance.allocate_message_queue_averagely import AllocateMessageQueueAveragely
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.protocol.heartbeat.message_model import MessageModel

# (Java field, Python field, 4.9.3 default after `new DefaultMQPushConsumer()`); consumeTimestamp is clock-dependent.
PUSH_DEFAULTS = [
    ("consumerGroup", "consumer_group", "DEFAULT_CONSUMER"),
    ("messageModel", "message_model", MessageModel.CLUSTERING),
    ("consumeFromWhere", "consume_from_where", ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET),
    ("consumeTimestamp", "consume_timestamp", None),
    ("subscription", "subscription", {}),
    ("messageListener", "message_listener", None),
    ("offsetStore", "offset_store", None),
    ("consumeThreadMin", "consume_thread_min", 20),
    ("consumeThreadMax", "consume_thread_max", 20),
    ("adjustThreadPoolNumsThreshold", "adjust_thread_pool_nums_threshold", 100000),
    ("consumeConcurrentlyMaxSpan", "consume_concurrently_max_span", 2000),
    ("pullThresholdForQueue", "pull_threshold_for_queue", 1000),
    ("pullThresholdSizeForQueue", "pull_threshold_size_for_queue", 100),
    ("pullThresholdForTopic", "pull_threshold_for_topic", -1),
    ("pullThresholdSizeForTopic", "pull_threshold_size_for_topic", -1),
    ("pullInterval", "pull_interval", 0),
    ("consumeMessageBatchMaxSize", "consume_message_batch_max_size", 1),
    ("pullBatchSize", "pull_batch_size", 32),
    ("postSubscriptionWhenPull", "post_subscription_when_pull", False),
    ("maxReconsumeTimes", "max_reconsume_times", -1),
    ("suspendCurrentQueueTimeMillis", "suspend_current_queue_time_millis", 1000),
    ("consumeTimeout", "consume_timeout", 15),
    ("awaitTerminationMillisWhenShutdown", "await_termination_millis_when_shutdown", 0),
]

LITE_DEFAULTS = [
    ("consumerGroup", "consumer_group", "DEFAULT_CONSUMER"),
    ("brokerSuspendMaxTimeMillis", "broker_suspend_max_time_millis", 20000),
    ("consumerTimeoutMillisWhenSuspend", "consumer_timeout_millis_when_suspend", 30000),
    ("consumerPullTimeoutMillis", "consumer_pull_timeout_millis", 10000),
    ("messageModel", "message_model", MessageModel.CLUSTERING),
    ("messageQueueListener", "message_queue_listener", None),
    ("offsetStore", "offset_store", None),
    ("autoCommit", "auto_commit", True),
    ("pullThreadNums", "pull_thread_nums", 20),
    ("autoCommitIntervalMillis", "auto_commit_interval_millis", 5000),
    ("pullBatchSize", "pull_batch_size", 10),
    ("pullThresholdForAll", "pull_threshold_for_all", 10000),
    ("consumeMaxSpan", "consume_max_span", 2000),
    ("pullThresholdForQueue", "pull_threshold_for_queue", 1000),
    ("pullThresholdSizeForQueue", "pull_threshold_size_for_queue", 100),
    ("pollTimeoutMillis", "poll_timeout_millis", 5000),
    ("topicMetadataCheckIntervalMillis", "topic_metadata_check_interval_millis", 30000),
    ("consumeFromWhere", "consume_from_where", ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET),
    ("consumeTimestamp", "consume_timestamp", None),
]

pytestmark = pytest.mark.spec("CLI-11")


@pytest.mark.parametrize(("java_field", "field", "expected"), PUSH_DEFAULTS, ids=[r[0] for r in PUSH_DEFAULTS])
def test_push_consumer_default_equals_4_9_3(java_field, field, expected):
    assert getattr(PushConsumerConfig(client_ip="10.0.0.1"), field) == expected, f"DefaultMQPushConsumer.{java_field}"


@pytest.mark.parametrize(("java_field", "field", "expected"), LITE_DEFAULTS, ids=[r[0] for r in LITE_DEFAULTS])
def test_lite_pull_consumer_default_equals_4_9_3(java_field, field, expected):
    config = LitePullConsumerConfig(client_ip="10.0.0.1")
    assert getattr(config, field) == expected, f"DefaultLitePullConsumer.{java_field}"


@pytest.mark.parametrize(
    ("config_class", "rows"), [(PushConsumerConfig, PUSH_DEFAULTS), (LitePullConsumerConfig, LITE_DEFAULTS)]
)
def test_every_own_field_has_a_parity_row(config_class, rows):
    own = {f.name for f in fields(config_class)} - {f.name for f in fields(ClientConfig)}
    assert own == {row[1] for row in rows} | {"allocate_message_queue_strategy"}


@pytest.mark.parametrize("config_class", [PushConsumerConfig, LitePullConsumerConfig])
def test_default_allocation_strategy_is_averagely_and_per_instance(config_class):
    a, b = config_class(client_ip="10.0.0.1"), config_class(client_ip="10.0.0.1")
    assert isinstance(a.allocate_message_queue_strategy, AllocateMessageQueueAveragely)
    assert a.allocate_message_queue_strategy is not b.allocate_message_queue_strategy
    assert isinstance(a, ClientConfig) and a.unit_mode is False


def test_min_autocommit_interval():
    assert MIN_AUTOCOMMIT_INTERVAL_MILLIS == 1000, "DefaultLitePullConsumer.MIN_AUTOCOMMIT_INTERVAL_MILLIS"


def test_default_consume_timestamp_is_half_an_hour_before_now():
    now = 1_700_000_000_000  # 2023-11-14 22:13:20 UTC
    assert default_consume_timestamp(now, UTC) == "20231114214320"
    assert default_consume_timestamp(now, timezone(timedelta(hours=8))) == "20231115054320"

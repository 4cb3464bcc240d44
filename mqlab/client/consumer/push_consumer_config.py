"""The settings of a push consumer, with RocketMQ 4.9.3's defaults: where to start, how much to cache, how to retry.

A push consumer pulls in a loop and caches per queue; the pull loop backs off (50 ms) while a queue holds more than
``pull_threshold_for_queue`` messages or ``pull_threshold_size_for_queue`` MiB, or (concurrent consumption) when the
cached offsets span more than ``consume_concurrently_max_span``. Listeners get at most
``consume_message_batch_max_size`` messages per call; a failed message is retried ``max_reconsume_times`` times (-1:
16 for concurrent, effectively unlimited for orderly consumption) before it goes to the dead-letter queue, and a
message not finished within ``consume_timeout`` minutes is sent back.

Java: the configuration fields of org.apache.rocketmq.client.consumer.DefaultMQPushConsumer (rocketmq-all-4.9.3).
The behaviour lives in ``DefaultMQPushConsumer`` / ``DefaultMQPushConsumerImpl``, which read these fields.
Left out: ``traceDispatcher`` (message tracing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import tzinfo

from mqlab.client.client_config import ClientConfig
from mqlab.client.consumer.allocate_message_queue_strategy import AllocateMessageQueueStrategy
from mqlab.client.consumer.listener.message_listener import MessageListener
from mqlab.client.consumer.rebalance.allocate_message_queue_averagely import AllocateMessageQueueAveragely
from mqlab.client.consumer.store.offset_store import OffsetStore
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.mix_all import DEFAULT_CONSUMER_GROUP, JavaInt, JavaLong
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.util_all import time_millis_to_human_string3

# How far back the default CONSUME_FROM_TIMESTAMP start lies (half an hour).
DEFAULT_CONSUME_TIMESTAMP_LOOKBACK_MILLIS = 1000 * 60 * 30


def default_consume_timestamp(now_ms: int, tz: tzinfo) -> str:
    """Half an hour before ``now_ms`` as ``yyyyMMddHHmmss`` in ``tz``: Java's field initialiser of consumeTimestamp.

    Java evaluates it when the consumer object is built, from the wall clock and the JVM time zone; in mqlab the
    consumer calls this with its runtime's clock and time zone.

    Java: the initialiser of DefaultMQPushConsumer#consumeTimestamp (UtilAll#timeMillisToHumanString3)
    """
    return time_millis_to_human_string3(now_ms - DEFAULT_CONSUME_TIMESTAMP_LOOKBACK_MILLIS, tz)


@dataclass(slots=True, kw_only=True)
class PushConsumerConfig(ClientConfig):
    """DefaultMQPushConsumer's own fields (sizes in MiB where the name says Size, times in ms unless noted).

    Java: the configuration fields of DefaultMQPushConsumer

    ``consumer_group`` defaults to ``DEFAULT_CONSUMER`` (Java's no-argument constructor), which ``checkConfig``
    rejects. ``consume_timestamp`` is None until the consumer fills it with :func:`default_consume_timestamp` (it
    depends on the clock). ``unit_mode`` is declared again by Java's DefaultMQPushConsumer (its own field, same
    default) and is inherited here.
    """

    consumer_group: str = DEFAULT_CONSUMER_GROUP
    message_model: MessageModel = MessageModel.CLUSTERING
    consume_from_where: ConsumeFromWhere = ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET
    # yyyyMMddHHmmss, used with CONSUME_FROM_TIMESTAMP.
    consume_timestamp: str | None = None
    allocate_message_queue_strategy: AllocateMessageQueueStrategy = field(default_factory=AllocateMessageQueueAveragely)
    # Topic → subscription expression (Java: HashMap; the deprecated setSubscription fills it).
    subscription: JavaHashMap[str, str] = field(default_factory=JavaHashMap)
    message_listener: MessageListener | None = None
    offset_store: OffsetStore | None = None
    consume_thread_min: JavaInt = 20
    consume_thread_max: JavaInt = 20
    # Thread-pool adjustment is a no-op in 4.9.x; the field is kept.
    adjust_thread_pool_nums_threshold: JavaLong = 100000
    consume_concurrently_max_span: JavaInt = 2000
    pull_threshold_for_queue: JavaInt = 1000
    # MiB.
    pull_threshold_size_for_queue: JavaInt = 100
    # -1: no topic-wide limit; otherwise the per-queue limits become topic limit / queues held.
    pull_threshold_for_topic: JavaInt = -1
    pull_threshold_size_for_topic: JavaInt = -1
    pull_interval: JavaLong = 0
    consume_message_batch_max_size: JavaInt = 1
    pull_batch_size: JavaInt = 32
    post_subscription_when_pull: bool = False
    # -1: 16 for concurrent consumption, Integer.MAX_VALUE for orderly consumption.
    max_reconsume_times: JavaInt = -1
    suspend_current_queue_time_millis: JavaLong = 1000
    # Minutes.
    consume_timeout: JavaLong = 15
    await_termination_millis_when_shutdown: JavaLong = 0

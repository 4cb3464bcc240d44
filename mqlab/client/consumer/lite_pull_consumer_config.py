"""The settings of a lite pull consumer, with RocketMQ 4.9.3's defaults.

A lite pull consumer pulls in background threads into a local buffer and hands messages to ``poll()`` calls; it
commits offsets itself every ``auto_commit_interval_millis`` when ``auto_commit`` is on.

Java: the configuration fields of org.apache.rocketmq.client.consumer.DefaultLitePullConsumer (rocketmq-all-4.9.3).
Left out: ``traceDispatcher``, ``enableMsgTrace``, ``customizedTraceTopic`` (message tracing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqlab.client.client_config import ClientConfig
from mqlab.client.consumer.allocate_message_queue_strategy import AllocateMessageQueueStrategy
from mqlab.client.consumer.rebalance.allocate_message_queue_averagely import AllocateMessageQueueAveragely
from mqlab.client.consumer.store.offset_store import OffsetStore
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.mix_all import DEFAULT_CONSUMER_GROUP, JavaInt, JavaLong
from mqlab.common.protocol.heartbeat.message_model import MessageModel

# The smallest auto-commit interval the setter accepts (Java: DefaultLitePullConsumer.MIN_AUTOCOMMIT_INTERVAL_MILLIS).
MIN_AUTOCOMMIT_INTERVAL_MILLIS = 1000


@dataclass(slots=True, kw_only=True)
class LitePullConsumerConfig(ClientConfig):
    """DefaultLitePullConsumer's own fields (sizes in MiB where the name says Size, times in ms).

    Java: the configuration fields of DefaultLitePullConsumer

    ``consume_timestamp`` is None until the consumer fills it (see ``push_consumer_config.default_consume_timestamp``).
    """

    consumer_group: str = DEFAULT_CONSUMER_GROUP
    broker_suspend_max_time_millis: JavaLong = 1000 * 20
    consumer_timeout_millis_when_suspend: JavaLong = 1000 * 30
    consumer_pull_timeout_millis: JavaLong = 1000 * 10
    message_model: MessageModel = MessageModel.CLUSTERING
    # Java: MessageQueueListener, told when the assigned queues change.
    message_queue_listener: Any = None
    offset_store: OffsetStore | None = None
    allocate_message_queue_strategy: AllocateMessageQueueStrategy = field(default_factory=AllocateMessageQueueAveragely)
    auto_commit: bool = True
    pull_thread_nums: JavaInt = 20
    auto_commit_interval_millis: JavaLong = 5 * 1000
    pull_batch_size: JavaInt = 10
    pull_threshold_for_all: JavaLong = 10000
    consume_max_span: JavaInt = 2000
    pull_threshold_for_queue: JavaInt = 1000
    # MiB.
    pull_threshold_size_for_queue: JavaInt = 100
    poll_timeout_millis: JavaLong = 1000 * 5
    topic_metadata_check_interval_millis: JavaLong = 30 * 1000
    consume_from_where: ConsumeFromWhere = ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET
    consume_timestamp: str | None = None

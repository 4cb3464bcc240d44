"""The settings of a producer, with RocketMQ 4.9.3's defaults: how long a send may take and how often it is retried.

A sync send gets ``1 + retry_times_when_send_failed`` attempts inside one ``send_msg_timeout`` budget; an async send
retries ``retry_times_when_send_async_failed`` times from the callback path. Bodies of at least
``compress_msg_body_over_howmuch`` bytes are zlib-compressed; bodies above ``max_message_size`` are refused by the
client. A new topic is created from ``create_topic_key`` (TBW102) with ``default_topic_queue_nums`` queues when the
broker allows auto-creation.

Java: the configuration fields of org.apache.rocketmq.client.producer.DefaultMQProducer (rocketmq-all-4.9.3). The
producer's behaviour lives in ``DefaultMQProducer`` / ``DefaultMQProducerImpl``, which read these fields.
Left out: ``traceDispatcher`` (message tracing).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.client.client_config import ClientConfig
from mqlab.common.mix_all import DEFAULT_PRODUCER_GROUP, JavaInt
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.topic.topic_validator import AUTO_CREATE_TOPIC_KEY_TOPIC

# Broker answers after which a sync send tries again (4.9.3 made this set a field; 4.9.1 had it in a switch).
DEFAULT_RETRY_RESPONSE_CODES = frozenset(
    {
        ResponseCode.TOPIC_NOT_EXIST,
        ResponseCode.SERVICE_NOT_AVAILABLE,
        ResponseCode.SYSTEM_ERROR,
        ResponseCode.NO_PERMISSION,
        ResponseCode.NO_BUYER_ID,
        ResponseCode.NOT_IN_CURRENT_UNIT,
    }
)


@dataclass(slots=True, kw_only=True)
class ProducerConfig(ClientConfig):
    """DefaultMQProducer's own fields (sizes in bytes, times in ms) on top of ClientConfig's.

    Java: the configuration fields of DefaultMQProducer

    ``producer_group`` defaults to ``DEFAULT_PRODUCER``, which is what Java's no-argument constructor sets and what
    ``DefaultMQProducerImpl#checkConfig`` rejects: a real producer names its group.
    """

    producer_group: str = DEFAULT_PRODUCER_GROUP
    # The topic whose config the broker copies when it auto-creates a topic on first send.
    create_topic_key: str = AUTO_CREATE_TOPIC_KEY_TOPIC
    default_topic_queue_nums: JavaInt = 4
    send_msg_timeout: JavaInt = 3000
    # Compress a (non-batch) body whose length is at least this many bytes.
    compress_msg_body_over_howmuch: JavaInt = 1024 * 4
    retry_times_when_send_failed: JavaInt = 2
    retry_times_when_send_async_failed: JavaInt = 2
    # Retry a sync send whose status is not SEND_OK on another broker.
    retry_another_broker_when_not_store_ok: bool = False
    max_message_size: JavaInt = 1024 * 1024 * 4
    retry_response_codes: set[int] = field(default_factory=lambda: set(DEFAULT_RETRY_RESPONSE_CODES))

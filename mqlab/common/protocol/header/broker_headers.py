"""Request and response headers of the broker's requests (send, pull, offsets, queries, admin).

Java: org.apache.rocketmq.common.protocol.header.* (rocketmq-all-4.9.3). Each class keeps its Java name; fields are
the Java fields in snake_case and travel under their Java names (``SendMessageRequestHeaderV2`` uses the one-letter
names ``a``..``m`` to keep frames small). ``required`` marks Java's ``@CFNotNull``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqlab.remoting.command_custom_header import CommandCustomHeader


@dataclass
class SendMessageRequestHeader(CommandCustomHeader):
    """Java: SendMessageRequestHeader."""

    producer_group: str | None = field(default=None, metadata={"required": True})
    topic: str | None = field(default=None, metadata={"required": True})
    default_topic: str | None = field(default=None, metadata={"required": True})
    default_topic_queue_nums: int | None = field(default=None, metadata={"required": True})
    queue_id: int | None = field(default=None, metadata={"required": True})
    sys_flag: int | None = field(default=None, metadata={"required": True})
    born_timestamp: int | None = field(default=None, metadata={"required": True})
    flag: int | None = field(default=None, metadata={"required": True})
    properties: str | None = None
    reconsume_times: int | None = None
    unit_mode: bool = False
    batch: bool = False
    max_reconsume_times: int | None = None


@dataclass
class SendMessageRequestHeaderV2(CommandCustomHeader):
    """Java: SendMessageRequestHeaderV2."""

    a: str | None = field(default=None, metadata={"required": True})
    b: str | None = field(default=None, metadata={"required": True})
    c: str | None = field(default=None, metadata={"required": True})
    d: int | None = field(default=None, metadata={"required": True})
    e: int | None = field(default=None, metadata={"required": True})
    f: int | None = field(default=None, metadata={"required": True})
    g: int | None = field(default=None, metadata={"required": True})
    h: int | None = field(default=None, metadata={"required": True})
    i: str | None = None
    j: int | None = None
    k: bool = False
    l: int | None = None  # noqa: E741 (the one-letter wire name of maxReconsumeTimes)
    m: bool = False


@dataclass
class SendMessageResponseHeader(CommandCustomHeader):
    """Java: SendMessageResponseHeader."""

    msg_id: str | None = field(default=None, metadata={"required": True})
    queue_id: int | None = field(default=None, metadata={"required": True})
    queue_offset: int | None = field(default=None, metadata={"required": True})
    transaction_id: str | None = None


@dataclass
class PullMessageRequestHeader(CommandCustomHeader):
    """Java: PullMessageRequestHeader."""

    consumer_group: str | None = field(default=None, metadata={"required": True})
    topic: str | None = field(default=None, metadata={"required": True})
    queue_id: int | None = field(default=None, metadata={"required": True})
    queue_offset: int | None = field(default=None, metadata={"required": True})
    max_msg_nums: int | None = field(default=None, metadata={"required": True})
    sys_flag: int | None = field(default=None, metadata={"required": True})
    commit_offset: int | None = field(default=None, metadata={"required": True})
    suspend_timeout_millis: int | None = field(default=None, metadata={"required": True})
    subscription: str | None = None
    sub_version: int | None = field(default=None, metadata={"required": True})
    expression_type: str | None = None


@dataclass
class PullMessageResponseHeader(CommandCustomHeader):
    """Java: PullMessageResponseHeader."""

    suggest_which_broker_id: int | None = field(default=None, metadata={"required": True})
    next_begin_offset: int | None = field(default=None, metadata={"required": True})
    min_offset: int | None = field(default=None, metadata={"required": True})
    max_offset: int | None = field(default=None, metadata={"required": True})


@dataclass
class QueryConsumerOffsetRequestHeader(CommandCustomHeader):
    """Java: QueryConsumerOffsetRequestHeader."""

    consumer_group: str | None = field(default=None, metadata={"required": True})
    topic: str | None = field(default=None, metadata={"required": True})
    queue_id: int | None = field(default=None, metadata={"required": True})


@dataclass
class QueryConsumerOffsetResponseHeader(CommandCustomHeader):
    """Java: QueryConsumerOffsetResponseHeader."""

    offset: int | None = field(default=None, metadata={"required": True})


@dataclass
class UpdateConsumerOffsetRequestHeader(CommandCustomHeader):
    """Java: UpdateConsumerOffsetRequestHeader."""

    consumer_group: str | None = field(default=None, metadata={"required": True})
    topic: str | None = field(default=None, metadata={"required": True})
    queue_id: int | None = field(default=None, metadata={"required": True})
    commit_offset: int | None = field(default=None, metadata={"required": True})


@dataclass
class UpdateConsumerOffsetResponseHeader(CommandCustomHeader):
    """Java: UpdateConsumerOffsetResponseHeader."""


@dataclass
class GetConsumerListByGroupRequestHeader(CommandCustomHeader):
    """Java: GetConsumerListByGroupRequestHeader."""

    consumer_group: str | None = field(default=None, metadata={"required": True})


@dataclass
class GetConsumerConnectionListRequestHeader(CommandCustomHeader):
    """Java: GetConsumerConnectionListRequestHeader."""

    consumer_group: str | None = field(default=None, metadata={"required": True})


@dataclass
class ConsumerSendMsgBackRequestHeader(CommandCustomHeader):
    """Java: ConsumerSendMsgBackRequestHeader."""

    offset: int | None = field(default=None, metadata={"required": True})
    group: str | None = field(default=None, metadata={"required": True})
    delay_level: int | None = field(default=None, metadata={"required": True})
    origin_msg_id: str | None = None
    origin_topic: str | None = None
    unit_mode: bool = False
    max_reconsume_times: int | None = None


@dataclass
class GetMaxOffsetRequestHeader(CommandCustomHeader):
    """Java: GetMaxOffsetRequestHeader."""

    topic: str | None = field(default=None, metadata={"required": True})
    queue_id: int | None = field(default=None, metadata={"required": True})


@dataclass
class GetMaxOffsetResponseHeader(CommandCustomHeader):
    """Java: GetMaxOffsetResponseHeader."""

    offset: int | None = field(default=None, metadata={"required": True})


@dataclass
class GetMinOffsetRequestHeader(CommandCustomHeader):
    """Java: GetMinOffsetRequestHeader."""

    topic: str | None = field(default=None, metadata={"required": True})
    queue_id: int | None = field(default=None, metadata={"required": True})


@dataclass
class GetMinOffsetResponseHeader(CommandCustomHeader):
    """Java: GetMinOffsetResponseHeader."""

    offset: int | None = field(default=None, metadata={"required": True})


@dataclass
class SearchOffsetRequestHeader(CommandCustomHeader):
    """Java: SearchOffsetRequestHeader."""

    topic: str | None = field(default=None, metadata={"required": True})
    queue_id: int | None = field(default=None, metadata={"required": True})
    timestamp: int | None = field(default=None, metadata={"required": True})


@dataclass
class SearchOffsetResponseHeader(CommandCustomHeader):
    """Java: SearchOffsetResponseHeader."""

    offset: int | None = field(default=None, metadata={"required": True})


@dataclass
class GetEarliestMsgStoretimeRequestHeader(CommandCustomHeader):
    """Java: GetEarliestMsgStoretimeRequestHeader."""

    topic: str | None = field(default=None, metadata={"required": True})
    queue_id: int | None = field(default=None, metadata={"required": True})


@dataclass
class GetEarliestMsgStoretimeResponseHeader(CommandCustomHeader):
    """Java: GetEarliestMsgStoretimeResponseHeader."""

    timestamp: int | None = field(default=None, metadata={"required": True})


@dataclass
class ViewMessageRequestHeader(CommandCustomHeader):
    """Java: ViewMessageRequestHeader."""

    offset: int | None = field(default=None, metadata={"required": True})


@dataclass
class QueryMessageRequestHeader(CommandCustomHeader):
    """Java: QueryMessageRequestHeader."""

    topic: str | None = field(default=None, metadata={"required": True})
    key: str | None = field(default=None, metadata={"required": True})
    max_num: int | None = field(default=None, metadata={"required": True})
    begin_timestamp: int | None = field(default=None, metadata={"required": True})
    end_timestamp: int | None = field(default=None, metadata={"required": True})


@dataclass
class QueryMessageResponseHeader(CommandCustomHeader):
    """Java: QueryMessageResponseHeader."""

    index_last_update_timestamp: int | None = field(default=None, metadata={"required": True})
    index_last_update_phyoffset: int | None = field(default=None, metadata={"required": True})


@dataclass
class UnregisterClientRequestHeader(CommandCustomHeader):
    """Java: UnregisterClientRequestHeader."""

    client_id: str | None = field(default=None, metadata={"required": True, "java": "clientID"})
    producer_group: str | None = None
    consumer_group: str | None = None


@dataclass
class NotifyConsumerIdsChangedRequestHeader(CommandCustomHeader):
    """Java: NotifyConsumerIdsChangedRequestHeader."""

    consumer_group: str | None = field(default=None, metadata={"required": True})


@dataclass
class CreateTopicRequestHeader(CommandCustomHeader):
    """Java: CreateTopicRequestHeader."""

    topic: str | None = field(default=None, metadata={"required": True})
    default_topic: str | None = field(default=None, metadata={"required": True})
    read_queue_nums: int | None = field(default=None, metadata={"required": True})
    write_queue_nums: int | None = field(default=None, metadata={"required": True})
    perm: int | None = field(default=None, metadata={"required": True})
    topic_filter_type: str | None = field(default=None, metadata={"required": True})
    topic_sys_flag: int | None = None
    order: bool = field(default=False, metadata={"required": True})


@dataclass
class GetTopicStatsInfoRequestHeader(CommandCustomHeader):
    """Java: GetTopicStatsInfoRequestHeader."""

    topic: str | None = field(default=None, metadata={"required": True})


@dataclass
class GetConsumeStatsRequestHeader(CommandCustomHeader):
    """Java: GetConsumeStatsRequestHeader."""

    consumer_group: str | None = field(default=None, metadata={"required": True})
    topic: str | None = None


@dataclass
class DeleteTopicRequestHeader(CommandCustomHeader):
    """Java: DeleteTopicRequestHeader."""

    topic: str | None = field(default=None, metadata={"required": True})


@dataclass
class QueryTopicConsumeByWhoRequestHeader(CommandCustomHeader):
    """Java: QueryTopicConsumeByWhoRequestHeader."""

    topic: str | None = field(default=None, metadata={"required": True})


@dataclass
class ResetOffsetRequestHeader(CommandCustomHeader):
    """Java: ResetOffsetRequestHeader.

    Sent by an admin tool with INVOKE_BROKER_TO_RESET_OFFSET and by the broker to each consumer with
    RESET_CONSUMER_CLIENT_OFFSET (there ``is_force`` stays false: the broker has already applied it).
    ``timestamp`` is epoch ms, or -1 for "now" (each queue's max offset).
    """

    topic: str | None = field(default=None, metadata={"required": True})
    group: str | None = field(default=None, metadata={"required": True})
    timestamp: int | None = field(default=None, metadata={"required": True})
    is_force: bool | None = field(default=False, metadata={"required": True, "java": "isForce"})


@dataclass
class GetAllTopicConfigResponseHeader(CommandCustomHeader):
    """Java: GetAllTopicConfigResponseHeader."""


# -- admin requests: broker config, producers, groups, relayed consumer calls, queues ------------------------
@dataclass
class GetBrokerConfigResponseHeader(CommandCustomHeader):
    """Java: GetBrokerConfigResponseHeader (``version``: the configuration's DataVersion as JSON)."""

    version: str | None = field(default=None, metadata={"required": True})


@dataclass
class GetProducerConnectionListRequestHeader(CommandCustomHeader):
    """Java: GetProducerConnectionListRequestHeader."""

    producer_group: str | None = field(default=None, metadata={"required": True})


@dataclass
class DeleteSubscriptionGroupRequestHeader(CommandCustomHeader):
    """Java: DeleteSubscriptionGroupRequestHeader (a primitive boolean: always sent)."""

    group_name: str | None = field(default=None, metadata={"required": True})
    remove_offset: bool = False


@dataclass
class GetConsumerRunningInfoRequestHeader(CommandCustomHeader):
    """Java: GetConsumerRunningInfoRequestHeader."""

    consumer_group: str | None = field(default=None, metadata={"required": True})
    client_id: str | None = field(default=None, metadata={"required": True})
    jstack_enable: bool = False


@dataclass
class ConsumeMessageDirectlyResultRequestHeader(CommandCustomHeader):
    """Java: ConsumeMessageDirectlyResultRequestHeader (``msg_id``: an offsetMsgId; the broker adds its name)."""

    consumer_group: str | None = field(default=None, metadata={"required": True})
    client_id: str | None = None
    msg_id: str | None = None
    broker_name: str | None = None


@dataclass
class QueryConsumeQueueRequestHeader(CommandCustomHeader):
    """Java: QueryConsumeQueueRequestHeader (no field is marked required; the numbers are primitives)."""

    topic: str | None = None
    queue_id: int = 0
    index: int = 0
    count: int = 0
    consumer_group: str | None = None


@dataclass
class CloneGroupOffsetRequestHeader(CommandCustomHeader):
    """Java: CloneGroupOffsetRequestHeader."""

    src_group: str | None = field(default=None, metadata={"required": True})
    dest_group: str | None = field(default=None, metadata={"required": True})
    topic: str | None = None
    offline: bool = False


@dataclass
class QueryConsumeTimeSpanRequestHeader(CommandCustomHeader):
    """Java: QueryConsumeTimeSpanRequestHeader."""

    topic: str | None = field(default=None, metadata={"required": True})
    group: str | None = field(default=None, metadata={"required": True})


def create_send_message_request_header_v2(v1: SendMessageRequestHeader) -> SendMessageRequestHeaderV2:
    """The short-named form a Java producer sends. Java: SendMessageRequestHeaderV2#createSendMessageRequestHeaderV2."""
    return SendMessageRequestHeaderV2(
        v1.producer_group,
        v1.topic,
        v1.default_topic,
        v1.default_topic_queue_nums,
        v1.queue_id,
        v1.sys_flag,
        v1.born_timestamp,
        v1.flag,
        v1.properties,
        v1.reconsume_times,
        v1.unit_mode,
        v1.max_reconsume_times,
        v1.batch,
    )


def create_send_message_request_header_v1(v2: SendMessageRequestHeaderV2) -> SendMessageRequestHeader:
    """Back to the long names. Java: SendMessageRequestHeaderV2#createSendMessageRequestHeaderV1."""
    return SendMessageRequestHeader(v2.a, v2.b, v2.c, v2.d, v2.e, v2.f, v2.g, v2.h, v2.i, v2.j, v2.k, v2.m, v2.l)

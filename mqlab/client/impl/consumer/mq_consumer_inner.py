"""What a client instance needs from each consumer registered with it.

``MQClientInstance`` builds the consumer part of every heartbeat from ``group_name``, ``consume_type``,
``message_model``, ``consume_from_where``, ``subscriptions`` and ``is_unit_mode``; refreshes the routes of the
subscribed topics and hands each consumer the readable queues (``update_topic_subscribe_info``), forcing a refresh
when ``is_subscribe_topic_need_update``; runs ``do_rebalance`` from the RebalanceService and
``persist_consumer_offset`` every ``persistConsumerOffsetInterval``; and asks ``consumer_running_info`` when a broker
relays GET_CONSUMER_RUNNING_INFO.

Java: org.apache.rocketmq.client.impl.consumer.MQConsumerInner (rocketmq-all-4.9.3). ``DefaultMQPushConsumerImpl``,
``DefaultMQPullConsumerImpl`` and ``DefaultLitePullConsumerImpl`` implement it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
    from mqlab.common.message.message_queue import MessageQueue
    from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
    from mqlab.common.protocol.heartbeat.message_model import MessageModel
    from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData


class MQConsumerInner(Protocol):
    """The consumer side of a client instance (methods, as in the Java interface)."""

    def group_name(self) -> str:
        """Java: MQConsumerInner#groupName."""
        ...

    def message_model(self) -> MessageModel:
        """CLUSTERING or BROADCASTING. Java: MQConsumerInner#messageModel."""
        ...

    def consume_type(self) -> ConsumeType:
        """CONSUME_PASSIVELY (push) or CONSUME_ACTIVELY (pull). Java: MQConsumerInner#consumeType."""
        ...

    def consume_from_where(self) -> ConsumeFromWhere:
        """Java: MQConsumerInner#consumeFromWhere."""
        ...

    def subscriptions(self) -> Iterable[SubscriptionData]:
        """The topics (with expressions) this consumer subscribes to. Java: MQConsumerInner#subscriptions."""
        ...

    def do_rebalance(self) -> None:
        """Recompute this consumer's queues. Java: MQConsumerInner#doRebalance."""
        ...

    def persist_consumer_offset(self) -> None:
        """Push the offsets to their store. Java: MQConsumerInner#persistConsumerOffset."""
        ...

    def update_topic_subscribe_info(self, topic: str, info: set[MessageQueue]) -> None:
        """The readable queues of ``topic`` from a new route. Java: MQConsumerInner#updateTopicSubscribeInfo."""
        ...

    def is_subscribe_topic_need_update(self, topic: str) -> bool:
        """True when subscribed to ``topic`` without queues for it. Java: MQConsumerInner#isSubscribeTopicNeedUpdate."""
        ...

    def is_unit_mode(self) -> bool:
        """Java: MQConsumerInner#isUnitMode."""
        ...

    def consumer_running_info(self) -> Any:
        """A ``ConsumerRunningInfo`` (anything with ``encode() -> bytes``), or None.

        Java: MQConsumerInner#consumerRunningInfo
        """
        ...

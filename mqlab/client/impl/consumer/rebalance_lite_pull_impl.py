"""The lite pull consumer's side of rebalance: it tells the consumer which queues it now has, and pulls nothing itself.

Differences from the push side: the start offset is read ``MEMORY_FIRST_THEN_STORE`` (an offset the consumer
committed in memory wins over the broker's); ``dispatch_pull_request`` does nothing, because the consumer's
``MessageQueueListener`` (called from ``message_queue_changed``) starts and stops its own pull tasks; a queue is
given up by persisting and forgetting its offset; and a lite pull queue is never dropped for being idle
(CONSUME_ACTIVELY).

Java: org.apache.rocketmq.client.impl.consumer.RebalanceLitePullImpl (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Set
from typing import TYPE_CHECKING

from mqlab.client.consumer.store.read_offset_type import ReadOffsetType
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.consumer.rebalance_impl import RebalanceImpl
from mqlab.client.impl.consumer.rebalance_push_impl import parse_consume_timestamp
from mqlab.common import mix_all
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType

if TYPE_CHECKING:
    from mqlab.client.impl.consumer.default_lite_pull_consumer_impl import DefaultLitePullConsumerImpl
    from mqlab.client.impl.consumer.process_queue import ProcessQueue
    from mqlab.client.impl.consumer.pull_request import PullRequest
    from mqlab.common.message.message_queue import MessageQueue


class RebalanceLitePullImpl(RebalanceImpl):
    """RebalanceImpl of a DefaultLitePullConsumerImpl.

    Args:
        lite_pull_consumer_impl: the consumer (offset store, settings, its message-queue listener).
    """

    def __init__(self, lite_pull_consumer_impl: DefaultLitePullConsumerImpl, **kwargs):
        super().__init__(**kwargs)
        self.lite_pull_consumer_impl = lite_pull_consumer_impl

    def message_queue_changed(self, topic: str, mq_all: Set[MessageQueue], mq_divided: Set[MessageQueue]) -> None:
        """Tell the consumer's MessageQueueListener (its failure is only traced).

        Java: RebalanceLitePullImpl#messageQueueChanged
        """
        listener = self.lite_pull_consumer_impl.default_lite_pull_consumer.message_queue_listener
        if listener is None:
            return
        try:
            listener.message_queue_changed(topic, mq_all, mq_divided)
        except Exception as exc:  # Java logs "messageQueueChanged exception"
            self._trace("messageQueueChangedException", topic=topic, error=repr(exc))

    def remove_unnecessary_message_queue(self, mq: MessageQueue, pq: ProcessQueue) -> bool:
        """Persist and forget the offset. Java: RebalanceLitePullImpl#removeUnnecessaryMessageQueue."""
        store = self.lite_pull_consumer_impl.offset_store
        store.persist(mq)
        store.remove_offset(mq)
        return True

    def consume_type(self) -> ConsumeType:
        """Java: RebalanceLitePullImpl#consumeType."""
        return ConsumeType.CONSUME_ACTIVELY

    def remove_dirty_offset(self, mq: MessageQueue) -> None:
        """Java: RebalanceLitePullImpl#removeDirtyOffset."""
        self.lite_pull_consumer_impl.offset_store.remove_offset(mq)

    def compute_pull_from_where_with_exception(self, mq: MessageQueue) -> int:
        """As the push consumer's (facts §11.8), but the offset is read memory first, then from the store.

        Java: RebalanceLitePullImpl#computePullFromWhereWithException
        """
        consumer = self.lite_pull_consumer_impl.default_lite_pull_consumer
        consume_from_where = consumer.consume_from_where
        last_offset = self.lite_pull_consumer_impl.offset_store.read_offset(mq, ReadOffsetType.MEMORY_FIRST_THEN_STORE)
        is_retry = mq.topic.startswith(mix_all.RETRY_GROUP_TOPIC_PREFIX)
        admin = self.mq_client_factory.mq_admin_impl
        result = -1
        if last_offset >= 0:
            result = last_offset
        elif last_offset == -1:
            if consume_from_where is ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET:
                result = 0 if is_retry else admin.max_offset(mq)
            elif consume_from_where is ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET:
                result = 0
            elif consume_from_where is ConsumeFromWhere.CONSUME_FROM_TIMESTAMP:
                if is_retry:
                    result = admin.max_offset(mq)
                else:
                    timestamp = parse_consume_timestamp(consumer.consume_timestamp, self.mq_client_factory.runtime.tz)
                    if timestamp is None:
                        raise MQClientException(f"consumeTimestamp is invalid: {consumer.consume_timestamp}")
                    result = admin.search_offset(mq, timestamp)
            # The deprecated values fall through Java's switch: no offset, -1.
        self._trace(
            "computePullFromWhere",
            mq=str(mq),
            consumeFromWhere=consume_from_where.name,
            lastOffset=last_offset,
            result=result,
        )
        return result

    def dispatch_pull_request(self, pull_request_list: list[PullRequest]) -> None:
        """Nothing: the consumer's pull tasks follow ``message_queue_changed``.

        Java: RebalanceLitePullImpl#dispatchPullRequest
        """

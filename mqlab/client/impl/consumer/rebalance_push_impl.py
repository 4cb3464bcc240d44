"""The push consumer's side of rebalance: where a new queue starts, and how a queue is given up.

* ``compute_pull_from_where_with_exception`` reads the group's committed offset from the broker
  (``readOffset(READ_FROM_STORE)``). An offset ≥ 0 wins whatever ``consumeFromWhere`` says. With none (-1):
  LAST_OFFSET (and the three deprecated values) starts at the queue's max offset, but at 0 for a retry topic;
  FIRST_OFFSET starts at 0; TIMESTAMP searches the offset of ``consumeTimestamp`` (``yyyyMMddHHmmss``), but a
  retry topic starts at its max offset. Any other answer (-2: the broker could not be asked) gives -1 and the queue
  is skipped this round.
* ``remove_unnecessary_message_queue`` persists the queue's offset and forgets it; an orderly CLUSTERING consumer
  also gives the broker lock back, but only once it can take the queue's consume lock within 1 s (no batch is being
  consumed), at once if nothing is cached, else 20 s later (``UNLOCK_DELAY_TIME_MILLS``) so messages in flight can
  finish before another consumer takes the queue.
* ``message_queue_changed`` sets the subscription's version to now (so brokers replace the old subscription), recomputes
  the per-queue thresholds from the topic-wide ones when those are set, and sends a heartbeat at once.
* ``dispatch_pull_request`` hands each new PullRequest to the PullMessageService.

Java: org.apache.rocketmq.client.impl.consumer.RebalancePushImpl (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Set
from datetime import tzinfo
from typing import TYPE_CHECKING

from mqlab.client.consumer.store.read_offset_type import ReadOffsetType
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.consumer.rebalance_impl import RebalanceImpl
from mqlab.common import mix_all, util_all
from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.message_model import MessageModel

if TYPE_CHECKING:
    from mqlab.client.impl.consumer.default_mq_push_consumer_impl import DefaultMQPushConsumerImpl
    from mqlab.client.impl.consumer.process_queue import ProcessQueue
    from mqlab.client.impl.consumer.pull_request import PullRequest
    from mqlab.common.message.message_queue import MessageQueue

# System property rocketmq.client.unlockDelayTimeMills.
UNLOCK_DELAY_TIME_MILLS = 20_000
# How long removeUnnecessaryMessageQueue waits for the queue's consume lock (Java: tryLock(1000, ms)).
CONSUME_LOCK_WAIT_MILLIS = 1000
_LAST_OFFSET_LIKE = (
    ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST,
    ConsumeFromWhere.CONSUME_FROM_MIN_OFFSET,
    ConsumeFromWhere.CONSUME_FROM_MAX_OFFSET,
    ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
)


def parse_consume_timestamp(text: str | None, tz: tzinfo) -> int | None:
    """``yyyyMMddHHmmss`` in time zone ``tz`` → epoch ms (None if it does not parse), read leniently as in 4.9.3.

    Java: UtilAll#parseDate(consumeTimestamp, YYYYMMDDHHMMSS).getTime() (the JVM's time zone)
    """
    return util_all.parse_date_yyyymmddhhmmss(text, tz)


class RebalancePushImpl(RebalanceImpl):
    """RebalanceImpl of a DefaultMQPushConsumerImpl.

    Args:
        default_mq_push_consumer_impl: the consumer (offset store, settings, orderly or not).
    """

    def __init__(self, default_mq_push_consumer_impl: DefaultMQPushConsumerImpl, **kwargs):
        super().__init__(**kwargs)
        self.default_mq_push_consumer_impl = default_mq_push_consumer_impl
        self.unlock_delay_time_mills = UNLOCK_DELAY_TIME_MILLS

    def message_queue_changed(self, topic: str, mq_all: Set[MessageQueue], mq_divided: Set[MessageQueue]) -> None:
        """New subscription version, per-queue thresholds from topic-wide ones, heartbeat now.

        Java: RebalancePushImpl#messageQueueChanged
        """
        subscription_data = self.subscription_inner.get(topic)
        if subscription_data is not None:
            subscription_data.sub_version = self._now_ms()
        current_queue_count = len(self.process_queue_table)
        consumer = self.default_mq_push_consumer_impl.default_mq_push_consumer
        if current_queue_count != 0:
            if consumer.pull_threshold_for_topic != -1:
                new_val = max(1, consumer.pull_threshold_for_topic // current_queue_count)
                self._trace("pullThresholdForQueue", old=consumer.pull_threshold_for_queue, new=new_val)
                consumer.pull_threshold_for_queue = new_val
            if consumer.pull_threshold_size_for_topic != -1:
                new_val = max(1, consumer.pull_threshold_size_for_topic // current_queue_count)
                self._trace("pullThresholdSizeForQueue", old=consumer.pull_threshold_size_for_queue, new=new_val)
                consumer.pull_threshold_size_for_queue = new_val
        # Tell the brokers now: their view of the subscription (and of who consumes) decides filtering and rebalance.
        self.mq_client_factory.send_heartbeat_to_all_broker_with_lock()

    def remove_unnecessary_message_queue(self, mq: MessageQueue, pq: ProcessQueue) -> bool:
        """Persist and forget the offset; orderly clustering consumers also unlock (see the module docstring).

        Java: RebalancePushImpl#removeUnnecessaryMessageQueue
        """
        impl = self.default_mq_push_consumer_impl
        impl.offset_store.persist(mq)
        impl.offset_store.remove_offset(mq)
        if not (impl.consume_orderly and impl.message_model() is MessageModel.CLUSTERING):
            return True
        acquired = False
        try:
            acquired = pq.consume_lock.acquire(timeout=CONSUME_LOCK_WAIT_MILLIS / 1000)
            if acquired:
                return self.unlock_delay(mq, pq)
            self._trace("consumeLockBusy", mq=str(mq), tryUnlockTimes=pq.try_unlock_times)
            pq.inc_try_unlock_times()
        except Exception as exc:  # Java logs "removeUnnecessaryMessageQueue Exception"
            self._trace("removeUnnecessaryMessageQueueException", mq=str(mq), error=repr(exc))
        finally:
            if acquired:
                pq.consume_lock.release()
        return False

    def unlock_delay(self, mq: MessageQueue, pq: ProcessQueue) -> bool:
        """Unlock at once if nothing is cached, else 20 s later (oneway either way); always True.

        Java: RebalancePushImpl#unlockDelay
        """
        if pq.has_temp_message():
            self._trace("unlockDelay", mq=str(mq), delay=self.unlock_delay_time_mills)
            self.mq_client_factory.runtime.scheduler.call_later(
                self.unlock_delay_time_mills, lambda: self.unlock(mq, True), name="unlockDelay"
            )
        else:
            self.unlock(mq, True)
        return True

    def consume_type(self) -> ConsumeType:
        """Java: RebalancePushImpl#consumeType."""
        return ConsumeType.CONSUME_PASSIVELY

    def remove_dirty_offset(self, mq: MessageQueue) -> None:
        """Java: RebalancePushImpl#removeDirtyOffset."""
        self.default_mq_push_consumer_impl.offset_store.remove_offset(mq)

    def compute_pull_from_where_with_exception(self, mq: MessageQueue) -> int:
        """The start offset of a newly assigned queue (facts §11.8; see the module docstring).

        Raises:
            MQClientException: the broker could not answer the max-offset or search-offset question.

        Java: RebalancePushImpl#computePullFromWhereWithException
        """
        consumer = self.default_mq_push_consumer_impl.default_mq_push_consumer
        consume_from_where = consumer.consume_from_where
        last_offset = self.default_mq_push_consumer_impl.offset_store.read_offset(mq, ReadOffsetType.READ_FROM_STORE)
        is_retry = mq.topic.startswith(mix_all.RETRY_GROUP_TOPIC_PREFIX)
        admin = self.mq_client_factory.mq_admin_impl
        result = -1
        if last_offset >= 0:
            result = last_offset
        elif last_offset == -1:
            if consume_from_where in _LAST_OFFSET_LIKE:
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
        self._trace(
            "computePullFromWhere",
            mq=str(mq),
            consumeFromWhere=consume_from_where.name,
            lastOffset=last_offset,
            result=result,
        )
        return result

    def dispatch_pull_request(self, pull_request_list: list[PullRequest]) -> None:
        """Start pulling each new queue now.

        Java: RebalancePushImpl#dispatchPullRequest
        """
        for pull_request in pull_request_list:
            self.default_mq_push_consumer_impl.execute_pull_request_immediately(pull_request)
            self._trace("dispatchPullRequest", mq=str(pull_request.message_queue), offset=pull_request.next_offset)

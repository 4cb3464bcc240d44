"""Which queues this consumer owns, recomputed on every rebalance, and the broker locks of orderly consumers.

Every consumer of a group decides alone, from the same inputs, which queues of each subscribed topic are its own:

* ``rebalance_by_topic`` in CLUSTERING mode takes the topic's readable queues (from the route) and the group's
  consumer ids (GET_CONSUMER_LIST_BY_GROUP to one broker of the topic), **sorts both** (queues by topic, broker,
  id; ids as strings), and runs the allocation strategy for its own client id. In BROADCASTING mode every queue is
  its own.
* ``update_process_queue_table_in_rebalance`` then makes the process-queue table match the result: a queue no
  longer assigned is marked dropped (its pull loop stops) and removed once ``remove_unnecessary_message_queue``
  agrees (the push consumer persists and forgets its offset, and an orderly one unlocks it at the broker); a push
  queue not pulled for 120 s is dropped the same way (it will be re-created). A newly assigned queue gets a fresh
  ProcessQueue and a start offset from ``compute_pull_from_where_with_exception``; an orderly consumer must first
  lock it at the broker (LOCK_BATCH_MQ), otherwise it tries again next round. The new PullRequests are dispatched
  together at the end.
* If anything changed, ``message_queue_changed`` tells the concrete consumer (the push consumer bumps the
  subscription version and sends a heartbeat at once).

The queues of topics no longer subscribed are dropped by ``truncate_message_queue_not_my_topic``.

Java: org.apache.rocketmq.client.impl.consumer.RebalanceImpl (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Set
from typing import TYPE_CHECKING, Any

from mqlab.client.consumer.allocate_message_queue_strategy import sort_for_allocation
from mqlab.client.impl.consumer.process_queue import ProcessQueue
from mqlab.client.impl.consumer.pull_request import PullRequest
from mqlab.common import mix_all
from mqlab.common.jdk.hash_map import JavaHashMap, JavaHashSet
from mqlab.common.protocol.body.lock_batch_request_body import LockBatchRequestBody
from mqlab.common.protocol.body.unlock_batch_request_body import UnlockBatchRequestBody
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.message_model import MessageModel

if TYPE_CHECKING:
    from mqlab.client.consumer.allocate_message_queue_strategy import AllocateMessageQueueStrategy
    from mqlab.client.impl.factory.mq_client_instance import MQClientInstance
    from mqlab.common.message.message_queue import MessageQueue
    from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData

COMPONENT = "RebalanceImpl"
# Timeout of LOCK_BATCH_MQ / UNLOCK_BATCH_MQ (Java writes 1000 at each call).
LOCK_RPC_TIMEOUT_MILLIS = 1000


class RebalanceImpl(ABC):
    """The process-queue table of one consumer and the rebalance algorithm that maintains it.

    Args:
        consumer_group: the group (set by the consumer at start, like the next three; None until then).
        message_model: CLUSTERING or BROADCASTING.
        allocate_message_queue_strategy: the strategy CLUSTERING rebalance runs.
        mq_client_factory: the client instance (routes, consumer ids, broker calls, runtime).

    Attributes:
        process_queue_table: assigned queue → its ProcessQueue (Java: ConcurrentHashMap; a JavaHashMap here so
            iteration follows Java's hash order).
        topic_subscribe_info_table: topic → readable queues, filled from routes by the client instance.
        subscription_inner: topic → SubscriptionData (the consumer's subscriptions, including ``%RETRY%group``).
    """

    def __init__(
        self,
        consumer_group: str | None = None,
        message_model: MessageModel | None = None,
        allocate_message_queue_strategy: AllocateMessageQueueStrategy | None = None,
        mq_client_factory: MQClientInstance | None = None,
    ):
        self.consumer_group = consumer_group
        self.message_model = message_model
        self.allocate_message_queue_strategy = allocate_message_queue_strategy
        self.mq_client_factory = mq_client_factory
        self.process_queue_table: JavaHashMap[MessageQueue, ProcessQueue] = JavaHashMap()
        self.topic_subscribe_info_table: JavaHashMap[str, Set[MessageQueue]] = JavaHashMap()
        self.subscription_inner: JavaHashMap[str, SubscriptionData] = JavaHashMap()
        # Java's tables are ConcurrentHashMaps; one re-entrant lock guards these two here.
        self._table_lock = threading.RLock()

    # -- small helpers -------------------------------------------------------------------------------------------
    def _trace(self, event: str, **fields: Any) -> None:
        if self.mq_client_factory is not None:
            self.mq_client_factory.runtime.trace_event(COMPONENT, event, group=self.consumer_group, **fields)

    def _now_ms(self) -> int:
        return self.mq_client_factory.runtime.now_ms()

    def new_process_queue(self) -> ProcessQueue:
        """A ProcessQueue on this consumer's clock (Java: ``new ProcessQueue()``)."""
        runtime = self.mq_client_factory.runtime
        return ProcessQueue(runtime.now_ms, lock_factory=runtime.new_lock)

    def _master_address(self, broker_name: str) -> str | None:
        result = self.mq_client_factory.find_broker_address_in_subscribe(broker_name, mix_all.MASTER_ID, True)
        return None if result is None else result.broker_addr

    # -- broker locks (orderly consumption) ------------------------------------------------------------------------
    def unlock(self, mq: MessageQueue, oneway: bool) -> None:
        """Give the broker lock of ``mq`` back (UNLOCK_BATCH_MQ to the master); failures are only traced.

        Java: RebalanceImpl#unlock
        """
        addr = self._master_address(mq.broker_name)
        if addr is None:
            return
        body = UnlockBatchRequestBody(self.consumer_group, self.mq_client_factory.client_id, JavaHashSet([mq]))
        try:
            self.mq_client_factory.mq_client_api_impl.unlock_batch_mq(addr, body, LOCK_RPC_TIMEOUT_MILLIS, oneway)
            self._trace("unlock", mq=str(mq), oneway=oneway)
        except Exception as exc:  # Java logs "unlockBatchMQ exception"
            self._trace("unlockFailed", mq=str(mq), error=repr(exc))

    def unlock_all(self, oneway: bool) -> None:
        """Give back the locks of every queue in the table, one request per broker; mark them unlocked.

        Java: RebalanceImpl#unlockAll
        """
        for broker_name, mqs in self.build_process_queue_table_by_broker_name().items():
            if not mqs:
                continue
            addr = self._master_address(broker_name)
            if addr is None:
                continue
            body = UnlockBatchRequestBody(self.consumer_group, self.mq_client_factory.client_id, mqs)
            try:
                self.mq_client_factory.mq_client_api_impl.unlock_batch_mq(addr, body, LOCK_RPC_TIMEOUT_MILLIS, oneway)
            except Exception as exc:  # Java logs "unlockBatchMQ exception"
                self._trace("unlockAllFailed", broker=broker_name, error=repr(exc))
                continue
            for mq in mqs:
                pq = self.process_queue_table.get(mq)
                if pq is not None:
                    pq.locked = False
            self._trace("unlockAll", broker=broker_name, queues=len(mqs))

    def build_process_queue_table_by_broker_name(self) -> JavaHashMap[str, JavaHashSet[MessageQueue]]:
        """The table's queues grouped by broker name.

        Java: RebalanceImpl#buildProcessQueueTableByBrokerName
        """
        result: JavaHashMap[str, JavaHashSet[MessageQueue]] = JavaHashMap()
        with self._table_lock:
            for mq in self.process_queue_table:
                mqs = result.get(mq.broker_name)
                if mqs is None:
                    mqs = result[mq.broker_name] = JavaHashSet()
                mqs.add(mq)
        return result

    def lock(self, mq: MessageQueue) -> bool:
        """LOCK_BATCH_MQ for ``mq`` alone; mark every queue the broker says we hold as locked now.

        Java: RebalanceImpl#lock
        """
        addr = self._master_address(mq.broker_name)
        if addr is None:
            return False
        body = LockBatchRequestBody(self.consumer_group, self.mq_client_factory.client_id, JavaHashSet([mq]))
        try:
            locked_mqs = self.mq_client_factory.mq_client_api_impl.lock_batch_mq(addr, body, LOCK_RPC_TIMEOUT_MILLIS)
        except Exception as exc:  # Java logs "lockBatchMQ exception"
            self._trace("lockFailed", mq=str(mq), error=repr(exc))
            return False
        now = self._now_ms()
        for locked in locked_mqs:
            pq = self.process_queue_table.get(locked)
            if pq is not None:
                pq.locked = True
                pq.last_lock_timestamp = now
        lock_ok = mq in locked_mqs
        self._trace("lock", mq=str(mq), ok=lock_ok)
        return lock_ok

    def lock_all(self) -> None:
        """Renew the locks of every queue in the table (one LOCK_BATCH_MQ per broker); unlock the ones refused.

        Java: RebalanceImpl#lockAll
        """
        for broker_name, mqs in self.build_process_queue_table_by_broker_name().items():
            if not mqs:
                continue
            addr = self._master_address(broker_name)
            if addr is None:
                continue
            body = LockBatchRequestBody(self.consumer_group, self.mq_client_factory.client_id, mqs)
            try:
                lock_ok_mq_set = self.mq_client_factory.mq_client_api_impl.lock_batch_mq(
                    addr, body, LOCK_RPC_TIMEOUT_MILLIS
                )
            except Exception as exc:  # Java logs "lockBatchMQ exception"
                self._trace("lockAllFailed", broker=broker_name, error=repr(exc))
                continue
            now = self._now_ms()
            for mq in lock_ok_mq_set:
                pq = self.process_queue_table.get(mq)
                if pq is not None:
                    pq.locked = True
                    pq.last_lock_timestamp = now
            for mq in mqs:
                if mq not in lock_ok_mq_set:
                    pq = self.process_queue_table.get(mq)
                    if pq is not None:
                        pq.locked = False
            self._trace("lockAll", broker=broker_name, asked=len(mqs), locked=len(lock_ok_mq_set))

    # -- rebalance -------------------------------------------------------------------------------------------------
    def do_rebalance(self, is_order: bool) -> None:
        """Rebalance every subscribed topic, then drop the queues of topics no longer subscribed.

        An error in one topic is traced (quietly for retry topics, as Java logs only the others) and the next
        topic is still rebalanced.

        Java: RebalanceImpl#doRebalance
        """
        for topic in list(self.subscription_inner.keys()):
            try:
                self.rebalance_by_topic(topic, is_order)
            except Exception as exc:
                if not topic.startswith(mix_all.RETRY_GROUP_TOPIC_PREFIX):
                    self._trace("rebalanceByTopicException", topic=topic, error=repr(exc))
        self.truncate_message_queue_not_my_topic()

    def rebalance_by_topic(self, topic: str, is_order: bool) -> None:
        """Compute this consumer's queues of ``topic`` and apply them to the table.

        Java: RebalanceImpl#rebalanceByTopic
        """
        if self.message_model is MessageModel.BROADCASTING:
            self._rebalance_broadcasting(topic, is_order)
        elif self.message_model is MessageModel.CLUSTERING:
            self._rebalance_clustering(topic, is_order)

    def _rebalance_broadcasting(self, topic: str, is_order: bool) -> None:
        """Every readable queue of the topic is ours."""
        mq_set = self.topic_subscribe_info_table.get(topic)
        if mq_set is None:
            self._trace("noSubscribeInfo", topic=topic)
            return
        if self.update_process_queue_table_in_rebalance(topic, mq_set, is_order):
            self.message_queue_changed(topic, mq_set, mq_set)
            self._trace("messageQueueChanged", topic=topic, model="BROADCASTING", queues=len(mq_set))

    def _rebalance_clustering(self, topic: str, is_order: bool) -> None:
        """Sort queues and consumer ids, allocate, apply."""
        mq_set = self.topic_subscribe_info_table.get(topic)
        cid_all = self.mq_client_factory.find_consumer_id_list(topic, self.consumer_group)
        if mq_set is None and not topic.startswith(mix_all.RETRY_GROUP_TOPIC_PREFIX):
            self._trace("noSubscribeInfo", topic=topic)
        if cid_all is None:
            self._trace("noConsumerIdList", topic=topic)
        if mq_set is None or cid_all is None:
            return
        mq_all, cids = sort_for_allocation(mq_set, cid_all)
        strategy = self.allocate_message_queue_strategy
        try:
            allocate_result = strategy.allocate(self.consumer_group, self.mq_client_factory.client_id, mq_all, cids)
        except Exception as exc:  # Java logs "[Allocate] Exception" and gives up this topic for this round
            self._trace("allocateException", topic=topic, strategy=strategy.get_name(), error=repr(exc))
            return
        allocate_result_set: JavaHashSet[MessageQueue] = JavaHashSet(allocate_result or [])
        changed = self.update_process_queue_table_in_rebalance(topic, allocate_result_set, is_order)
        if changed:
            self._trace(
                "rebalanceResultChanged",
                topic=topic,
                strategy=strategy.get_name(),
                clientId=self.mq_client_factory.client_id,
                mqAllSize=len(mq_set),
                cidAllSize=len(cids),
                rebalanceResultSize=len(allocate_result_set),
                rebalanceResultSet=sorted(f"{mq.broker_name}:{mq.queue_id}" for mq in allocate_result_set),
            )
            self.message_queue_changed(topic, mq_set, allocate_result_set)

    def truncate_message_queue_not_my_topic(self) -> None:
        """Drop and remove the queues of topics that are no longer subscribed.

        Java: RebalanceImpl#truncateMessageQueueNotMyTopic
        """
        with self._table_lock:
            for mq in list(self.process_queue_table.keys()):
                if mq.topic not in self.subscription_inner:
                    pq = self.process_queue_table.pop(mq, None)
                    if pq is not None:
                        pq.dropped = True
                        self._trace("truncateNotMyTopic", mq=str(mq))

    def update_process_queue_table_in_rebalance(self, topic: str, mq_set: Set[MessageQueue], is_order: bool) -> bool:
        """Make the table's queues of ``topic`` equal ``mq_set``; True if a queue was added or removed.

        Java: RebalanceImpl#updateProcessQueueTableInRebalance
        """
        if not isinstance(mq_set, JavaHashSet):
            # Java iterates a HashSet; so does mqlab, built in sorted order so equal hashes stay reproducible.
            mq_set = JavaHashSet(sorted(mq_set))
        changed = self._remove_queues_not_assigned(topic, mq_set)
        pull_request_list, added = self._add_new_queues(mq_set, is_order)
        self.dispatch_pull_request(pull_request_list)
        return changed or added

    def _remove_queues_not_assigned(self, topic: str, mq_set: Set[MessageQueue]) -> bool:
        """First half: drop the queues of ``topic`` that are no longer ours, or (push) no longer pulled."""
        changed = False
        with self._table_lock:
            entries = [(mq, pq) for mq, pq in self.process_queue_table.items() if mq.topic == topic]
        for mq, pq in entries:
            if mq not in mq_set:
                pq.dropped = True
                if self.remove_unnecessary_message_queue(mq, pq):
                    with self._table_lock:
                        self.process_queue_table.pop(mq, None)
                    changed = True
                    self._trace("removeUnnecessaryMessageQueue", mq=str(mq), reason="notAssigned")
            elif pq.is_pull_expired() and self.consume_type() is ConsumeType.CONSUME_PASSIVELY:
                # A push queue nobody pulled for 120 s is assumed stuck: drop it, the next round re-creates it.
                pq.dropped = True
                if self.remove_unnecessary_message_queue(mq, pq):
                    with self._table_lock:
                        self.process_queue_table.pop(mq, None)
                    changed = True
                    self._trace("removeUnnecessaryMessageQueue", mq=str(mq), reason="pullExpired")
        return changed

    def _add_new_queues(self, mq_set: Set[MessageQueue], is_order: bool) -> tuple[list[PullRequest], bool]:
        """Second half: a ProcessQueue and a PullRequest (at the computed start offset) for each new queue."""
        pull_request_list: list[PullRequest] = []
        changed = False
        for mq in mq_set:
            if mq in self.process_queue_table:
                continue
            if is_order and not self.lock(mq):
                self._trace("lockFailedSkipQueue", mq=str(mq))
                continue
            self.remove_dirty_offset(mq)
            pq = self.new_process_queue()
            try:
                next_offset = self.compute_pull_from_where_with_exception(mq)
            except Exception as exc:  # Java logs "computePullFromWhere exception" and skips the queue this round
                self._trace("computePullFromWhereFailed", mq=str(mq), error=repr(exc))
                continue
            if next_offset < 0:
                self._trace("computePullFromWhereNegative", mq=str(mq), offset=next_offset)
                continue
            with self._table_lock:
                previous = self.process_queue_table.get(mq)
                if previous is None:
                    self.process_queue_table[mq] = pq
            if previous is not None:
                self._trace("processQueueExists", mq=str(mq))
                continue
            pull_request_list.append(PullRequest(self.consumer_group, mq, pq, next_offset))
            changed = True
            self._trace("addProcessQueue", mq=str(mq), nextOffset=next_offset)
        return pull_request_list, changed

    # -- what the concrete consumer decides ------------------------------------------------------------------------
    @abstractmethod
    def message_queue_changed(self, topic: str, mq_all: Set[MessageQueue], mq_divided: Set[MessageQueue]) -> None:
        """The assigned queues of ``topic`` changed. Java: RebalanceImpl#messageQueueChanged."""

    @abstractmethod
    def remove_unnecessary_message_queue(self, mq: MessageQueue, pq: ProcessQueue) -> bool:
        """Release ``mq`` (offset, lock); True if it may leave the table. Java: #removeUnnecessaryMessageQueue."""

    @abstractmethod
    def consume_type(self) -> ConsumeType:
        """Push (CONSUME_PASSIVELY) or pull (CONSUME_ACTIVELY). Java: RebalanceImpl#consumeType."""

    @abstractmethod
    def remove_dirty_offset(self, mq: MessageQueue) -> None:
        """Forget a stale in-memory offset before re-reading it. Java: RebalanceImpl#removeDirtyOffset."""

    def compute_pull_from_where(self, mq: MessageQueue) -> int:
        """The start offset of ``mq``, -1 on any error (deprecated in Java: an error looks like "no offset").

        Java: RebalanceImpl#computePullFromWhere
        """
        try:
            return self.compute_pull_from_where_with_exception(mq)
        except Exception:
            return -1

    @abstractmethod
    def compute_pull_from_where_with_exception(self, mq: MessageQueue) -> int:
        """The start offset of a newly assigned queue. Java: RebalanceImpl#computePullFromWhereWithException."""

    @abstractmethod
    def dispatch_pull_request(self, pull_request_list: list[PullRequest]) -> None:
        """Start pulling the new queues. Java: RebalanceImpl#dispatchPullRequest."""

    # -- housekeeping ----------------------------------------------------------------------------------------------
    def remove_process_queue(self, mq: MessageQueue) -> None:
        """Remove ``mq`` from the table (dropped and released); the next rebalance may create it again.

        Java: RebalanceImpl#removeProcessQueue
        """
        with self._table_lock:
            prev = self.process_queue_table.pop(mq, None)
        if prev is not None:
            dropped = prev.dropped
            prev.dropped = True
            self.remove_unnecessary_message_queue(mq, prev)
            self._trace("removeProcessQueue", mq=str(mq), wasDropped=dropped)

    def destroy(self) -> None:
        """Drop every queue and clear the table (consumer shutdown).

        Java: RebalanceImpl#destroy
        """
        with self._table_lock:
            for pq in self.process_queue_table.values():
                pq.dropped = True
            self.process_queue_table.clear()

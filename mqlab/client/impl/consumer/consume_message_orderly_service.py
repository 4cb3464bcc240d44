"""Orderly consumption: one queue's messages, one batch at a time, in offset order, retried in place on failure.

Order within a queue needs three locks:

* the **broker lock** (LOCK_BATCH_MQ): only the consumer holding it may consume the queue (CLUSTERING). Rebalance
  takes it before pulling a new queue, ``lock_mq_periodically`` renews every held queue every 20 s, and it expires
  on the client 30 s after the last renewal (``ProcessQueue#isLockExpired``);
* the **queue lock** (``MessageQueueLock``): at most one ConsumeRequest runs per queue at a time;
* the ProcessQueue's **consume lock**: held around each listener call, so rebalance does not unlock a queue at
  the broker while a batch is being consumed.

``ConsumeRequest.run`` loops: check the broker lock (not held or expired: try again later), yield after 60 s of
continuous consumption, ``take_messages(consumeMessageBatchMaxSize)`` from the head of the ProcessQueue, call the
listener, ``process_consume_result``. SUCCESS commits (the offset after the batch, stored with
``increase_only=False``). SUSPEND_CURRENT_QUEUE_A_MOMENT (or an exception, or None) puts the batch back at the head
(``makeMessageToConsumeAgain``) and resubmits the queue after ``suspendCurrentQueueTimeMillis`` (1 s, clamped to
[10, 30000] ms): the later messages wait, so the order holds. ``check_reconsume_times`` counts the retries; a message
retried ``maxReconsumeTimes`` times (-1 means ``Integer.MAX_VALUE``: forever) is sent to ``%RETRY%group`` with
RECONSUME_TIME = its reconsumeTimes, which makes the broker put it straight into the dead-letter queue, and is
committed.

Java: org.apache.rocketmq.client.impl.consumer.ConsumeMessageOrderlyService (rocketmq-all-4.9.3), with its inner
class ConsumeRequest (kept in this module, ``ConsumeRequest``).
Left out: ConsumerStatsManager statistics and ``consumeMessageDirectly``.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from mqlab.client.consumer.listener.consume_concurrently_context import INTEGER_MAX_VALUE
from mqlab.client.consumer.listener.consume_orderly_context import ConsumeOrderlyContext
from mqlab.client.consumer.listener.consume_orderly_status import ConsumeOrderlyStatus
from mqlab.client.impl.consumer.consume_message_concurrently_service import consume_thread_prefix
from mqlab.client.impl.consumer.message_queue_lock import MessageQueueLock
from mqlab.client.impl.consumer.process_queue import REBALANCE_LOCK_INTERVAL
from mqlab.common import mix_all
from mqlab.common.message import message_const as mc
from mqlab.common.message.message import Message
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.body.cm_result import CMResult
from mqlab.common.protocol.body.consume_message_directly_result import ConsumeMessageDirectlyResult
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.remoting.common.remoting_helper import exception_simple_desc

if TYPE_CHECKING:
    from mqlab.client.consumer.listener.message_listener_orderly import MessageListenerOrderly
    from mqlab.client.impl.consumer.default_mq_push_consumer_impl import DefaultMQPushConsumerImpl
    from mqlab.client.impl.consumer.process_queue import ProcessQueue
    from mqlab.common.message.message_ext import MessageExt

COMPONENT = "ConsumeMessageOrderlyService"
# System property rocketmq.client.maxTimeConsumeContinuously: how long one request may keep a queue.
MAX_TIME_CONSUME_CONTINUOUSLY = 60_000
# Bounds of the pause after a failed batch (ConsumeMessageOrderlyService#submitConsumeRequestLater).
MIN_SUSPEND_MILLIS = 10
MAX_SUSPEND_MILLIS = 30_000
# First lock renewal 1 s after start, then every REBALANCE_LOCK_INTERVAL (20 s).
LOCK_MQ_PERIODICALLY_INITIAL_DELAY = 1000


def _offsets(msgs: list[MessageExt]) -> list[int]:
    return [msg.queue_offset for msg in msgs]


def _msg_id(msg: MessageExt) -> str | None:
    get_msg_id = getattr(msg, "get_msg_id", None)
    return get_msg_id() if get_msg_id is not None else msg.msg_id


class ConsumeMessageOrderlyService:
    """The consume pool, queue locks and lock renewal of a push consumer with an orderly listener.

    Args:
        default_mq_push_consumer_impl: the consumer (settings, offset store, rebalance for the broker locks).
        message_listener: the user's orderly listener.
    """

    def __init__(
        self, default_mq_push_consumer_impl: DefaultMQPushConsumerImpl, message_listener: MessageListenerOrderly
    ):
        self.default_mq_push_consumer_impl = default_mq_push_consumer_impl
        self.message_listener = message_listener
        self.default_mq_push_consumer = default_mq_push_consumer_impl.default_mq_push_consumer
        self.consumer_group = self.default_mq_push_consumer.consumer_group
        self.runtime = default_mq_push_consumer_impl.runtime
        self.core_pool_size = self.default_mq_push_consumer.consume_thread_min
        self.consume_executor = self.runtime.scheduler.new_executor(
            consume_thread_prefix(self.consumer_group), self.core_pool_size
        )
        self.message_queue_lock = MessageQueueLock(self.runtime.new_lock)
        self.stopped = False
        self._service_lock = self.runtime.new_lock()  # Java: the synchronized methods of this class
        self._timers: list[Any] = []
        self._timers_lock = threading.Lock()

    def _trace(self, event: str, **fields: Any) -> None:
        self.runtime.trace_event(COMPONENT, event, group=self.consumer_group, **fields)

    def _clustering(self) -> bool:
        return self.default_mq_push_consumer_impl.message_model() is MessageModel.CLUSTERING

    # -- life cycle ------------------------------------------------------------------------------------------------
    def start(self) -> None:
        """CLUSTERING: renew the broker locks 1 s from now and then every 20 s.

        Java: ConsumeMessageOrderlyService#start
        """
        if self._clustering():
            handle = self.runtime.scheduler.schedule_at_fixed_rate(
                LOCK_MQ_PERIODICALLY_INITIAL_DELAY,
                REBALANCE_LOCK_INTERVAL,
                self._lock_mq_periodically_task,
                name="ConsumeMessageScheduledThread_",
            )
            with self._timers_lock:
                self._timers.append(handle)

    def _lock_mq_periodically_task(self) -> None:
        try:
            self.lock_mq_periodically()
        except Exception as exc:  # Java logs "scheduleAtFixedRate lockMQPeriodically exception"
            self._trace("lockMQPeriodicallyException", error=repr(exc))

    def shutdown(self, await_terminate_millis: int = 0) -> None:
        """Stop timers and pool; CLUSTERING: give every broker lock back (waiting for the answers).

        Java: ConsumeMessageOrderlyService#shutdown
        """
        self.stopped = True
        with self._timers_lock:
            timers, self._timers = self._timers, []
        for timer in timers:
            timer.cancel()
        self.consume_executor.shutdown()
        if self._clustering():
            self.unlock_all_mq()

    def unlock_all_mq(self) -> None:
        """Java: ConsumeMessageOrderlyService#unlockAllMQ."""
        with self._service_lock:
            self.default_mq_push_consumer_impl.rebalance_impl.unlock_all(False)

    def update_core_pool_size(self, core_pool_size: int) -> None:
        """Recorded only when in (0, 32767] and below ``consumeThreadMax``.

        Java: ConsumeMessageOrderlyService#updateCorePoolSize
        """
        if 0 < core_pool_size <= 32767 and core_pool_size < self.default_mq_push_consumer.consume_thread_max:
            self.core_pool_size = core_pool_size

    def inc_core_pool_size(self) -> None:
        """Empty in 4.9.3. Java: ConsumeMessageOrderlyService#incCorePoolSize."""

    def dec_core_pool_size(self) -> None:
        """Empty in 4.9.3. Java: ConsumeMessageOrderlyService#decCorePoolSize."""

    def get_core_pool_size(self) -> int:
        """Java: ConsumeMessageOrderlyService#getCorePoolSize."""
        return self.core_pool_size

    def consume_message_directly(self, msg: MessageExt, broker_name: str | None) -> ConsumeMessageDirectlyResult:
        """Hand one message to the orderly listener now, without the queue lock, and say how it answered.

        Nothing else happens (no offset, no suspension); ``auto_commit`` is what the listener left in its context.

        Java: ConsumeMessageOrderlyService#consumeMessageDirectly
        """
        result = ConsumeMessageDirectlyResult(order=True)
        msgs = [msg]
        context = ConsumeOrderlyContext(MessageQueue(msg.topic, broker_name or "", msg.queue_id))
        self.default_mq_push_consumer_impl.reset_retry_and_namespace(msgs, self.consumer_group)
        begin = self.runtime.now_ms()
        answers = {
            ConsumeOrderlyStatus.COMMIT: CMResult.CR_COMMIT,
            ConsumeOrderlyStatus.ROLLBACK: CMResult.CR_ROLLBACK,
            ConsumeOrderlyStatus.SUCCESS: CMResult.CR_SUCCESS,
            ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT: CMResult.CR_LATER,
        }
        try:
            status = self.message_listener.consume_message(msgs, context)
            result.consume_result = CMResult.CR_RETURN_NULL if status is None else answers.get(status)
        except Exception as exc:  # as Java: the listener's failure is the answer
            result.consume_result = CMResult.CR_THROW_EXCEPTION
            result.remark = exception_simple_desc(exc)
        result.auto_commit = context.auto_commit
        result.spent_time_mills = self.runtime.now_ms() - begin
        return result

    # -- submitting --------------------------------------------------------------------------------------------------
    def submit_consume_request(
        self,
        msgs: list[MessageExt] | None,
        process_queue: ProcessQueue,
        message_queue: MessageQueue,
        dispatch_to_consume: bool,
    ) -> None:
        """Start a ConsumeRequest for the queue when none is running (``dispatch_to_consume``); ``msgs`` is unused.

        Java: ConsumeMessageOrderlyService#submitConsumeRequest
        """
        if dispatch_to_consume:
            self._trace("submitConsumeRequest", mq=str(message_queue))
            self.consume_executor.submit(ConsumeRequest(self, process_queue, message_queue).run)

    def lock_mq_periodically(self) -> None:
        """Renew every held queue's broker lock.

        Java: ConsumeMessageOrderlyService#lockMQPeriodically
        """
        with self._service_lock:
            if not self.stopped:
                self.default_mq_push_consumer_impl.rebalance_impl.lock_all()

    def try_lock_later_and_reconsume(self, mq: MessageQueue, process_queue: ProcessQueue, delay_mills: int) -> None:
        """After ``delay_mills``: lock the queue; resubmit after 10 ms if that worked, else after 3 s.

        Java: ConsumeMessageOrderlyService#tryLockLaterAndReconsume
        """

        def task() -> None:
            lock_ok = self.lock_one_mq(mq)
            self.submit_consume_request_later(process_queue, mq, 10 if lock_ok else 3000)

        self._trace("tryLockLaterAndReconsume", mq=str(mq), delay=delay_mills)
        self._later(delay_mills, task)

    def lock_one_mq(self, mq: MessageQueue) -> bool:
        """Java: ConsumeMessageOrderlyService#lockOneMQ."""
        with self._service_lock:
            if not self.stopped:
                return self.default_mq_push_consumer_impl.rebalance_impl.lock(mq)
            return False

    def submit_consume_request_later(
        self, process_queue: ProcessQueue, message_queue: MessageQueue, suspend_time_millis: int
    ) -> None:
        """Resubmit the queue after the suspend time (-1: the consumer's; clamped to [10, 30000] ms).

        Java: ConsumeMessageOrderlyService#submitConsumeRequestLater
        """
        time_millis = suspend_time_millis
        if time_millis == -1:
            time_millis = self.default_mq_push_consumer.suspend_current_queue_time_millis
        time_millis = min(max(time_millis, MIN_SUSPEND_MILLIS), MAX_SUSPEND_MILLIS)
        self._later(time_millis, lambda: self.submit_consume_request(None, process_queue, message_queue, True))

    def _later(self, delay: int, task: Any) -> None:
        if self.stopped:  # a task due after shutdown is skipped too: Java's scheduled future swallows the rejection
            return
        self.runtime.scheduler.call_later(delay, lambda: self.stopped or task(), name="ConsumeMessageScheduledThread_")

    # -- the result ------------------------------------------------------------------------------------------------
    def process_consume_result(
        self,
        msgs: list[MessageExt],
        status: ConsumeOrderlyStatus,
        context: ConsumeOrderlyContext,
        consume_request: ConsumeRequest,
    ) -> bool:
        """Commit, or put the batch back and pause the queue; True if the request should go on consuming.

        Java: ConsumeMessageOrderlyService#processConsumeResult
        """
        pq = consume_request.process_queue
        continue_consume = True
        commit_offset = -1
        if context.auto_commit:
            if status in (ConsumeOrderlyStatus.COMMIT, ConsumeOrderlyStatus.ROLLBACK, ConsumeOrderlyStatus.SUCCESS):
                if status is not ConsumeOrderlyStatus.SUCCESS:
                    # Java warns that COMMIT/ROLLBACK only make sense without autoCommit, then treats them as SUCCESS.
                    self._trace("illegalStatusWithAutoCommit", status=status.name)
                commit_offset = pq.commit()
            elif status is ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT:
                if self.check_reconsume_times(msgs):
                    continue_consume = self._suspend(msgs, context, consume_request)
                else:
                    commit_offset = pq.commit()
        else:
            if status is ConsumeOrderlyStatus.COMMIT:
                commit_offset = pq.commit()
            elif status is ConsumeOrderlyStatus.ROLLBACK:
                pq.rollback()
                self.submit_consume_request_later(
                    pq, consume_request.message_queue, context.suspend_current_queue_time_millis
                )
                continue_consume = False
            elif status is ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT and self.check_reconsume_times(msgs):
                continue_consume = self._suspend(msgs, context, consume_request)
        committed = commit_offset >= 0 and not pq.dropped
        if committed:
            self.default_mq_push_consumer_impl.offset_store.update_offset(
                consume_request.message_queue, commit_offset, False
            )
        self._trace(
            "processConsumeResult",
            mq=str(consume_request.message_queue),
            status=status.name,
            offsets=_offsets(msgs),
            commitOffset=commit_offset,
            committed=committed,
            continueConsume=continue_consume,
        )
        return continue_consume

    def _suspend(self, msgs: list[MessageExt], context: ConsumeOrderlyContext, consume_request: ConsumeRequest) -> bool:
        """Put the batch back at the head and resubmit the queue after the suspend time; stop this request."""
        consume_request.process_queue.make_message_to_consume_again(msgs)
        self.submit_consume_request_later(
            consume_request.process_queue, consume_request.message_queue, context.suspend_current_queue_time_millis
        )
        return False

    def get_max_reconsume_times(self) -> int:
        """The consumer's ``maxReconsumeTimes``, -1 meaning ``Integer.MAX_VALUE``.

        Java: ConsumeMessageOrderlyService#getMaxReconsumeTimes
        """
        max_times = self.default_mq_push_consumer.max_reconsume_times
        return INTEGER_MAX_VALUE if max_times == -1 else max_times

    def check_reconsume_times(self, msgs: list[MessageExt]) -> bool:
        """Count one more retry per message; send the exhausted ones to the DLQ; True if the batch must wait.

        A message already retried ``maxReconsumeTimes`` times gets RECONSUME_TIME = its count and is sent back
        (the broker routes it to ``%DLQ%group``); if that send fails it is retried locally like the others.

        Java: ConsumeMessageOrderlyService#checkReconsumeTimes
        """
        suspend = False
        max_times = self.get_max_reconsume_times()
        for msg in msgs:
            if msg.reconsume_times >= max_times:
                msg.put_property(mc.PROPERTY_RECONSUME_TIME, str(msg.reconsume_times))
                if not self.send_message_back(msg):
                    suspend = True
                    msg.reconsume_times += 1
            else:
                suspend = True
                msg.reconsume_times += 1
        return suspend

    def send_message_back(self, msg: MessageExt) -> bool:
        """Send an exhausted message to ``%RETRY%group`` with the inner producer (the broker moves it to the DLQ).

        The new message takes the consumed message's property map itself (as Java's ``MessageAccessor#setProperties``
        does), so the ORIGIN_MESSAGE_ID put just before is lost unless the consumed message already had one.

        Java: ConsumeMessageOrderlyService#sendMessageBack
        """
        try:
            new_msg = build_retry_message(
                msg,
                self.consumer_group,
                reconsume_time=msg.reconsume_times,
                max_reconsume_times=self.get_max_reconsume_times(),
            )
            self.default_mq_push_consumer_impl.mq_client_factory.default_mq_producer.send(new_msg)
        except Exception as exc:  # Java logs "sendMessageBack exception"
            self._trace("sendMessageBackFailed", msgId=_msg_id(msg), error=repr(exc))
            return False
        self._trace("sendMessageBack", msgId=_msg_id(msg), reconsumeTimes=msg.reconsume_times)
        return True


def build_retry_message(
    msg: MessageExt, consumer_group: str, *, reconsume_time: int, max_reconsume_times: int
) -> Message:
    """The message a client sends to ``%RETRY%group`` itself (orderly send-back, concurrent fallback).

    Body and flag of the consumed message; **its property map object** (shared, as in Java), with RETRY_TOPIC = the
    consumed topic, RECONSUME_TIME, MAX_RECONSUME_TIMES, no TRAN_MSG and DELAY = 3 + reconsumeTimes. The producer
    moves RECONSUME_TIME and MAX_RECONSUME_TIMES into the send header.

    Java: the message built in ConsumeMessageOrderlyService#sendMessageBack and in the fallback of
    DefaultMQPushConsumerImpl#sendMessageBack
    """
    new_msg = Message(mix_all.get_retry_topic(consumer_group), body=msg.body)
    origin_msg_id = msg.get_property(mc.PROPERTY_ORIGIN_MESSAGE_ID)
    new_msg.put_property(mc.PROPERTY_ORIGIN_MESSAGE_ID, origin_msg_id if origin_msg_id else _msg_id(msg) or "")
    new_msg.flag = msg.flag
    new_msg.properties = msg.properties  # replaces the map above (ORIGIN_MESSAGE_ID included), as in Java
    new_msg.put_property(mc.PROPERTY_RETRY_TOPIC, msg.topic)
    new_msg.put_property(mc.PROPERTY_RECONSUME_TIME, str(reconsume_time))
    new_msg.put_property(mc.PROPERTY_MAX_RECONSUME_TIMES, str(max_reconsume_times))
    new_msg.clear_property(mc.PROPERTY_TRANSACTION_PREPARED)
    new_msg.set_delay_time_level(3 + msg.reconsume_times)
    return new_msg


class ConsumeRequest:
    """Consumes one queue for as long as it may: batches from the head of its ProcessQueue, under the queue lock.

    Java: ConsumeMessageOrderlyService$ConsumeRequest (rocketmq-all-4.9.3)
    """

    def __init__(self, service: ConsumeMessageOrderlyService, process_queue: ProcessQueue, message_queue: MessageQueue):
        self.service = service
        self.process_queue = process_queue
        self.message_queue = message_queue

    def run(self) -> int:
        """Consume batches until the queue is empty, suspended, no longer locked or 60 s have passed.

        Returns the number of batches consumed (for notebooks and tests).

        Java: ConsumeMessageOrderlyService$ConsumeRequest#run
        """
        service = self.service
        if self.process_queue.dropped:
            service._trace("dropped", mq=str(self.message_queue))
            return 0
        batches = 0
        with service.message_queue_lock.fetch_lock_object(self.message_queue):
            clustering = service._clustering()
            if clustering and not (self.process_queue.locked and not self.process_queue.is_lock_expired()):
                # Not (or no longer) locked at the broker: try to lock in 100 ms and come back.
                if not self.process_queue.dropped:
                    service.try_lock_later_and_reconsume(self.message_queue, self.process_queue, 100)
                return 0
            begin_time = service.runtime.now_ms()
            continue_consume = True
            while continue_consume:
                if not self._may_go_on(clustering, begin_time):
                    break
                msgs = self.process_queue.take_messages(service.default_mq_push_consumer.consume_message_batch_max_size)
                service.default_mq_push_consumer_impl.reset_retry_and_namespace(msgs, service.consumer_group)
                if not msgs:
                    break
                result = self._consume(msgs)
                if result is None:  # dropped while waiting for the consume lock
                    break
                batches += 1
                continue_consume = service.process_consume_result(msgs, result[0], result[1], self)
        return batches

    def _may_go_on(self, clustering: bool, begin_time: int) -> bool:
        """The checks at the top of Java's loop: dropped, lock lost or expired, 60 s used up."""
        service = self.service
        if self.process_queue.dropped:
            service._trace("droppedWhileConsuming", mq=str(self.message_queue))
            return False
        if clustering and (not self.process_queue.locked or self.process_queue.is_lock_expired()):
            service.try_lock_later_and_reconsume(self.message_queue, self.process_queue, 10)
            return False
        if service.runtime.now_ms() - begin_time > MAX_TIME_CONSUME_CONTINUOUSLY:
            service.submit_consume_request_later(self.process_queue, self.message_queue, 10)
            return False
        return True

    def _consume(self, msgs: list[MessageExt]) -> tuple[ConsumeOrderlyStatus, ConsumeOrderlyContext] | None:
        """Call the listener under the ProcessQueue's consume lock; None/exception → SUSPEND_CURRENT_QUEUE_A_MOMENT."""
        service = self.service
        context = ConsumeOrderlyContext(self.message_queue)
        status: ConsumeOrderlyStatus | None = None
        error: BaseException | None = None
        hook_context = service.default_mq_push_consumer_impl.consume_hook_before(msgs, self.message_queue)
        begin_timestamp = service.runtime.now_ms()
        with self.process_queue.consume_lock:
            if self.process_queue.dropped:
                service._trace("droppedBeforeConsume", mq=str(self.message_queue))
                return None
            try:
                status = service.message_listener.consume_message(list(msgs), context)
            except Exception as exc:  # the user's failure means "suspend and retry this batch"
                error = exc
        consume_rt = service.runtime.now_ms() - begin_timestamp
        if status is None:
            return_type = "EXCEPTION" if error is not None else "RETURNNULL"
            status = ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
        elif consume_rt >= service.default_mq_push_consumer.consume_timeout * 60 * 1000:
            return_type = "TIME_OUT"
        elif status is ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT:
            return_type = "FAILED"
        else:
            return_type = "SUCCESS"
        service.default_mq_push_consumer_impl.consume_hook_after(
            hook_context,
            return_type,
            status.name,
            status in (ConsumeOrderlyStatus.SUCCESS, ConsumeOrderlyStatus.COMMIT),
        )
        service._trace(
            "consumeMessage",
            mq=str(self.message_queue),
            offsets=_offsets(msgs),
            status=status.name,
            returnType=return_type,
            consumeRT=consume_rt,
        )
        return status, context

"""Concurrent consumption: batches of any queue on a pool, failures sent back to the broker for a later retry.

1. ``submit_consume_request`` splits a pulled batch into consume requests of at most ``consumeMessageBatchMaxSize``
   messages and submits each to the consume pool (``consumeThreadMin`` threads; Java's pool never grows past its
   core size because its queue is unbounded). A refused submit is retried 5 s later.
2. ``ConsumeRequest.run`` stamps ``CONSUME_START_TIME`` on each message, restores the real topic of retried
   messages (``resetRetryAndNamespace``) and calls the listener. An exception or a None status counts as
   RECONSUME_LATER; a consumption longer than ``consumeTimeout`` only changes the statistics.
3. ``process_consume_result`` decides which messages failed: CONSUME_SUCCESS acknowledges up to the context's
   ``ack_index`` (clamped to the last message), RECONSUME_LATER none (``ack_index = -1``). In BROADCASTING mode failed
   messages are dropped (only logged). In CLUSTERING mode each failed message is sent back
   (CONSUMER_SEND_MSG_BACK, delay level from the context: 0 lets the broker choose ``3 + reconsumeTimes``); a message
   whose send-back fails gets ``reconsumeTimes + 1`` and is consumed again locally 5 s later instead.
4. The consumed (and sent back) messages leave the ProcessQueue; the offset ``remove_message`` returns (the
   smallest offset still cached) goes to the offset store with ``increase_only=True`` unless the queue was dropped.

Every ``consumeTimeout`` minutes (15) ``clean_expire_msg`` sends back messages whose consumption started longer ago
than that (``ProcessQueue#cleanExpiredMsg``).

Java: org.apache.rocketmq.client.impl.consumer.ConsumeMessageConcurrentlyService (rocketmq-all-4.9.3), with its inner
class ConsumeRequest (kept in this module, ``ConsumeRequest``).
Left out: ConsumerStatsManager statistics and ``consumeMessageDirectly``.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from mqlab.client.consumer.listener.consume_concurrently_context import ConsumeConcurrentlyContext
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.common.message import message_const as mc
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.body.cm_result import CMResult
from mqlab.common.protocol.body.consume_message_directly_result import ConsumeMessageDirectlyResult
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.remoting.common.remoting_helper import exception_simple_desc

if TYPE_CHECKING:
    from mqlab.client.consumer.listener.message_listener_concurrently import MessageListenerConcurrently
    from mqlab.client.impl.consumer.default_mq_push_consumer_impl import DefaultMQPushConsumerImpl
    from mqlab.client.impl.consumer.process_queue import ProcessQueue
    from mqlab.common.message.message_ext import MessageExt

COMPONENT = "ConsumeMessageConcurrentlyService"
# Delay before a batch whose send-back failed (or whose submit was refused) is consumed again locally.
SUBMIT_LATER_DELAY_MILLIS = 5000


def consume_thread_prefix(consumer_group: str) -> str:
    """``ConsumeMessageThread_<group, at most 100 chars>_``: the consume pool's thread-name prefix."""
    return f"ConsumeMessageThread_{consumer_group[:100]}_"


def _offsets(msgs: list[MessageExt]) -> list[int]:
    return [msg.queue_offset for msg in msgs]


class ConsumeMessageConcurrentlyService:
    """The consume pool of a push consumer with a concurrent listener.

    Args:
        default_mq_push_consumer_impl: the consumer (settings, offset store, send-back, rebalance table).
        message_listener: the user's listener.
    """

    def __init__(
        self, default_mq_push_consumer_impl: DefaultMQPushConsumerImpl, message_listener: MessageListenerConcurrently
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
        self._timers: list[Any] = []
        self._timers_lock = threading.Lock()
        self._stopped = False

    def _trace(self, event: str, **fields: Any) -> None:
        self.runtime.trace_event(COMPONENT, event, group=self.consumer_group, **fields)

    # -- life cycle ------------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Schedule the expired-message sweep every ``consumeTimeout`` minutes.

        Java: ConsumeMessageConcurrentlyService#start
        """
        period = self.default_mq_push_consumer.consume_timeout * 60 * 1000
        handle = self.runtime.scheduler.schedule_at_fixed_rate(
            period, period, self._clean_expire_msg_task, name="CleanExpireMsgScheduledThread_"
        )
        with self._timers_lock:
            self._timers.append(handle)

    def _clean_expire_msg_task(self) -> None:
        try:
            self.clean_expire_msg()
        except Exception as exc:  # Java logs "scheduleAtFixedRate cleanExpireMsg exception"
            self._trace("cleanExpireMsgException", error=repr(exc))

    def shutdown(self, await_terminate_millis: int = 0) -> None:
        """Stop the timers and the pool (mqlab does not wait for running requests).

        Java: ConsumeMessageConcurrentlyService#shutdown
        """
        self._stopped = True
        with self._timers_lock:
            timers, self._timers = self._timers, []
        for timer in timers:
            timer.cancel()
        self.consume_executor.shutdown()

    def update_core_pool_size(self, core_pool_size: int) -> None:
        """Recorded only when in (0, 32767] and below ``consumeThreadMax`` (mqlab's pools keep their size).

        Java: ConsumeMessageConcurrentlyService#updateCorePoolSize
        """
        if 0 < core_pool_size <= 32767 and core_pool_size < self.default_mq_push_consumer.consume_thread_max:
            self.core_pool_size = core_pool_size

    def inc_core_pool_size(self) -> None:
        """Empty in 4.9.3. Java: ConsumeMessageConcurrentlyService#incCorePoolSize."""

    def dec_core_pool_size(self) -> None:
        """Empty in 4.9.3. Java: ConsumeMessageConcurrentlyService#decCorePoolSize."""

    def get_core_pool_size(self) -> int:
        """Java: ConsumeMessageConcurrentlyService#getCorePoolSize."""
        return self.core_pool_size

    def consume_message_directly(self, msg: MessageExt, broker_name: str | None) -> ConsumeMessageDirectlyResult:
        """Hand one message to the listener now, on the calling thread, and say how it answered.

        Nothing else happens: no offset, no send-back, no retry. The retry topic is reset to the original topic
        first, as for any consumed message.

        Java: ConsumeMessageConcurrentlyService#consumeMessageDirectly
        """
        result = ConsumeMessageDirectlyResult(order=False, auto_commit=True)
        msgs = [msg]
        context = ConsumeConcurrentlyContext(MessageQueue(msg.topic, broker_name or "", msg.queue_id))
        self.default_mq_push_consumer_impl.reset_retry_and_namespace(msgs, self.consumer_group)
        begin = self.runtime.now_ms()
        try:
            status = self.message_listener.consume_message(msgs, context)
            if status is ConsumeConcurrentlyStatus.CONSUME_SUCCESS:
                result.consume_result = CMResult.CR_SUCCESS
            elif status is ConsumeConcurrentlyStatus.RECONSUME_LATER:
                result.consume_result = CMResult.CR_LATER
            elif status is None:
                result.consume_result = CMResult.CR_RETURN_NULL
        except Exception as exc:  # as Java: the listener's failure is the answer
            result.consume_result = CMResult.CR_THROW_EXCEPTION
            result.remark = exception_simple_desc(exc)
        result.spent_time_mills = self.runtime.now_ms() - begin
        return result

    # -- step 1: submit ------------------------------------------------------------------------------------------
    def submit_consume_request(
        self,
        msgs: list[MessageExt],
        process_queue: ProcessQueue,
        message_queue: MessageQueue,
        dispatch_to_consume: bool,
    ) -> None:
        """One consume request per ``consumeMessageBatchMaxSize`` messages (``dispatch_to_consume`` is ignored).

        Java: ConsumeMessageConcurrentlyService#submitConsumeRequest
        """
        consume_batch_size = self.default_mq_push_consumer.consume_message_batch_max_size
        for start in range(0, len(msgs), consume_batch_size):
            msg_this = list(msgs[start : start + consume_batch_size])
            consume_request = ConsumeRequest(self, msg_this, process_queue, message_queue)
            if self.runtime.trace.enabled:  # the fields cost something per message: only build them when recorded
                self._trace("submitConsumeRequest", mq=str(message_queue), offsets=_offsets(msg_this))
            try:
                self.consume_executor.submit(consume_request.run)
            except RuntimeError:
                # Java: RejectedExecutionException. The rest of the batch joins this request, retried in 5 s.
                msg_this.extend(msgs[start + consume_batch_size :])
                self._submit_request_later(consume_request)
                return

    def _submit_request_later(self, consume_request: ConsumeRequest) -> None:
        """Submit the same request again in 5 s. Java: #submitConsumeRequestLater(ConsumeRequest)."""
        if self._stopped:
            return
        self._trace("submitConsumeRequestLater", mq=str(consume_request.message_queue))
        self._later(SUBMIT_LATER_DELAY_MILLIS, lambda: self.consume_executor.submit(consume_request.run))

    def submit_consume_request_later(
        self, msgs: list[MessageExt], process_queue: ProcessQueue, message_queue: MessageQueue
    ) -> None:
        """Consume ``msgs`` again locally in 5 s (their send-back failed).

        Java: ConsumeMessageConcurrentlyService#submitConsumeRequestLater(List, ProcessQueue, MessageQueue)
        """
        self._trace("resubmitLocally", mq=str(message_queue), offsets=_offsets(msgs), delay=SUBMIT_LATER_DELAY_MILLIS)
        self._later(
            SUBMIT_LATER_DELAY_MILLIS, lambda: self.submit_consume_request(msgs, process_queue, message_queue, True)
        )

    def _later(self, delay: int, task: Any) -> None:
        if self._stopped:
            return
        self.runtime.scheduler.call_later(delay, task, name="ConsumeMessageScheduledThread_")

    # -- step 3: the result --------------------------------------------------------------------------------------
    def process_consume_result(
        self, status: ConsumeConcurrentlyStatus, context: ConsumeConcurrentlyContext, consume_request: ConsumeRequest
    ) -> None:
        """Send back (or drop) what failed, remove the batch from the ProcessQueue, advance the offset.

        Java: ConsumeMessageConcurrentlyService#processConsumeResult
        """
        msgs = consume_request.msgs
        if not msgs:
            return
        ack_index = self.ack_index_of(status, context, len(msgs))
        failed = msgs[ack_index + 1 :]
        if self.default_mq_push_consumer.message_model is MessageModel.BROADCASTING:
            for msg in failed:
                self._trace("broadcastingConsumeFailedDropped", msgId=_msg_id(msg), offset=msg.queue_offset)
        elif self.default_mq_push_consumer.message_model is MessageModel.CLUSTERING:
            msg_back_failed = []
            for msg in failed:
                if not self.send_message_back(msg, context):
                    msg.reconsume_times += 1
                    msg_back_failed.append(msg)
            if msg_back_failed:
                back_failed_ids = {id(msg) for msg in msg_back_failed}
                msgs[:] = [msg for msg in msgs if id(msg) not in back_failed_ids]
                self.submit_consume_request_later(
                    msg_back_failed, consume_request.process_queue, consume_request.message_queue
                )
        offset = consume_request.process_queue.remove_message(msgs)
        committed = offset >= 0 and not consume_request.process_queue.dropped
        if committed:
            self.default_mq_push_consumer_impl.offset_store.update_offset(consume_request.message_queue, offset, True)
        if not self.runtime.trace.enabled:
            return
        self._trace(
            "processConsumeResult",
            mq=str(consume_request.message_queue),
            status=status.name,
            ackIndex=ack_index,
            removed=_offsets(msgs),
            offset=offset,
            committed=committed,
        )

    @staticmethod
    def ack_index_of(status: ConsumeConcurrentlyStatus, context: ConsumeConcurrentlyContext, size: int) -> int:
        """The index of the last acknowledged message: ``min(ackIndex, size-1)`` on success, -1 on RECONSUME_LATER.

        Java: the first switch of ConsumeMessageConcurrentlyService#processConsumeResult
        """
        ack_index = context.ack_index
        if status is ConsumeConcurrentlyStatus.CONSUME_SUCCESS:
            return min(ack_index, size - 1)
        if status is ConsumeConcurrentlyStatus.RECONSUME_LATER:
            return -1
        return ack_index

    def send_message_back(self, msg: MessageExt, context: ConsumeConcurrentlyContext) -> bool:
        """CONSUMER_SEND_MSG_BACK with the context's delay level, to the broker of the consumed queue; False on failure.

        Java: ConsumeMessageConcurrentlyService#sendMessageBack
        """
        delay_level = context.delay_level_when_next_consume
        try:
            self.default_mq_push_consumer_impl.send_message_back(msg, delay_level, context.message_queue.broker_name)
        except Exception as exc:  # Java logs "sendMessageBack exception"
            self._trace("sendMessageBackFailed", msgId=_msg_id(msg), error=repr(exc))
            return False
        return True

    def clean_expire_msg(self) -> None:
        """Send back the cached messages whose consumption started more than ``consumeTimeout`` minutes ago.

        Java: ConsumeMessageConcurrentlyService#cleanExpireMsg
        """
        impl = self.default_mq_push_consumer_impl
        for pq in list(impl.rebalance_impl.process_queue_table.values()):
            cleaned = pq.clean_expired_msg(
                self.default_mq_push_consumer.send_message_back,
                consume_timeout_minutes=self.default_mq_push_consumer.consume_timeout,
                consume_orderly=impl.consume_orderly,
            )
            if cleaned:
                self._trace("cleanExpiredMsg", offsets=_offsets(cleaned))


def _msg_id(msg: MessageExt) -> str | None:
    """The id a client shows for ``msg`` (UNIQ_KEY when present)."""
    get_msg_id = getattr(msg, "get_msg_id", None)
    return get_msg_id() if get_msg_id is not None else msg.msg_id


class ConsumeRequest:
    """One batch of one queue, run once on the consume pool.

    Java: ConsumeMessageConcurrentlyService$ConsumeRequest (rocketmq-all-4.9.3)
    """

    def __init__(
        self,
        service: ConsumeMessageConcurrentlyService,
        msgs: list[MessageExt],
        process_queue: ProcessQueue,
        message_queue: MessageQueue,
    ):
        self.service = service
        self.msgs = msgs
        self.process_queue = process_queue
        self.message_queue = message_queue

    def run(self) -> ConsumeConcurrentlyStatus | None:
        """Call the listener and process its result (nothing if the queue was dropped meanwhile).

        Java: ConsumeMessageConcurrentlyService$ConsumeRequest#run
        """
        service = self.service
        if self.process_queue.dropped:
            service._trace("dropped", mq=str(self.message_queue), offsets=_offsets(self.msgs))
            return None
        context = ConsumeConcurrentlyContext(self.message_queue)
        impl = service.default_mq_push_consumer_impl
        impl.reset_retry_and_namespace(self.msgs, service.consumer_group)
        hook_context = impl.consume_hook_before(self.msgs, self.message_queue)
        begin_timestamp = service.runtime.now_ms()
        for msg in self.msgs:
            msg.put_property(mc.PROPERTY_CONSUME_START_TIMESTAMP, str(begin_timestamp))
        status: ConsumeConcurrentlyStatus | None = None
        error: BaseException | None = None
        try:
            status = service.message_listener.consume_message(list(self.msgs), context)
        except Exception as exc:  # the user's failure means "reconsume later"
            error = exc
        consume_rt = service.runtime.now_ms() - begin_timestamp
        return_type = self._return_type(status, error, consume_rt)
        if status is None:
            status = ConsumeConcurrentlyStatus.RECONSUME_LATER
        impl.consume_hook_after(
            hook_context, return_type, status.name, status is ConsumeConcurrentlyStatus.CONSUME_SUCCESS
        )
        if service.runtime.trace.enabled:
            service._trace(
                "consumeMessage",
                mq=str(self.message_queue),
                offsets=_offsets(self.msgs),
                status=status.name,
                returnType=return_type,
                consumeRT=consume_rt,
            )
        if not self.process_queue.dropped:
            service.process_consume_result(status, context, self)
        else:
            service._trace("droppedAfterConsume", mq=str(self.message_queue), offsets=_offsets(self.msgs))
        return status

    def _return_type(self, status: ConsumeConcurrentlyStatus | None, error: BaseException | None, rt: int) -> str:
        """Java's ConsumeReturnType (for hooks and stats): EXCEPTION, RETURNNULL, TIME_OUT, FAILED or SUCCESS."""
        if status is None:
            return "EXCEPTION" if error is not None else "RETURNNULL"
        if rt >= self.service.default_mq_push_consumer.consume_timeout * 60 * 1000:
            return "TIME_OUT"
        if status is ConsumeConcurrentlyStatus.RECONSUME_LATER:
            return "FAILED"
        return "SUCCESS"

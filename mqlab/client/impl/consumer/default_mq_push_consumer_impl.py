"""The engine of a push consumer: start and stop, the 12-step pull loop, send-back, and what rebalance asks.

``pull_message(pull_request)`` is called by the PullMessageService for each waiting PullRequest and follows
``DefaultMQPushConsumerImpl#pullMessage`` step by step:

1. a dropped ProcessQueue (the queue went to another consumer) ends the loop of that queue;
2. the queue's last-pull time is set (rebalance drops a push queue not pulled for 120 s);
3. a consumer that is not RUNNING retries in ``pullTimeDelayMillsWhenException`` (1000 ms);
4. a paused consumer (``suspend()``) retries in 1000 ms;
5. flow control by count: more than ``pullThresholdForQueue`` (1000) cached messages → retry in 50 ms;
6. flow control by size: more than ``pullThresholdSizeForQueue`` (100) MiB cached → retry in 50 ms
   (5 and 6 share one counter; a warning every 1000 times);
7. (concurrent consumers) flow control by span: last − first cached offset > ``consumeConcurrentlyMaxSpan`` (2000)
   → retry in 50 ms (its own counter, a warning every 1000 times);
8. (orderly consumers) the queue must be locked at the broker, else retry in 1000 ms; the first pull after the lock
   re-reads the offset from the broker (``computePullFromWhereWithException``);
9. the topic's subscription must exist, else retry in 1000 ms;
10. the PullCallback (``PushPullCallback``) is prepared: FOUND caches the messages, submits them to the consume
    service and pulls again at once (or after ``pullInterval``); NO_NEW_MSG / NO_MATCHED_MSG move the offset and pull
    again; OFFSET_ILLEGAL drops the queue and 10 s later stores the corrected offset (the next rebalance recreates
    the queue); an exception retries in 1000 ms;
11. the system flags: COMMIT_OFFSET when the in-memory offset is > 0 (CLUSTERING), SUSPEND always (long polling),
    SUBSCRIPTION when ``postSubscriptionWhenPull``;
12. ``PullAPIWrapper#pullKernelImpl``: an asynchronous PULL_MESSAGE of ``pullBatchSize`` (32) messages that the broker
    may hold for 15 s (``BROKER_SUSPEND_MAX_TIME_MILLIS``) with a 30 s RPC timeout
    (``CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND``).

Java: org.apache.rocketmq.client.impl.consumer.DefaultMQPushConsumerImpl (rocketmq-all-4.9.3); the anonymous
PullCallback of ``pullMessage`` is ``PushPullCallback`` here.
Left out: filter-message hooks, consumer statistics, namespaces, class filters, the admin queries
(``queryMessage``, ``viewMessage``...), ``resetOffsetByTimeStamp``, ``adjustThreadPool`` (a no-op in 4.9.x).
"""

from __future__ import annotations

import enum
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqlab.client import validators
from mqlab.client.consumer.listener.message_listener_orderly import MessageListenerOrderly
from mqlab.client.consumer.pull_status import PullStatus
from mqlab.client.consumer.store.local_file_offset_store import (
    DEFAULT_LOCAL_OFFSET_STORE_DIR_NAME,
    LocalFileOffsetStore,
)
from mqlab.client.consumer.store.read_offset_type import ReadOffsetType
from mqlab.client.consumer.store.remote_broker_offset_store import RemoteBrokerOffsetStore
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.hook.consume_message_context import ConsumeMessageContext
from mqlab.client.impl.communication_mode import CommunicationMode
from mqlab.client.impl.consumer.consume_message_concurrently_service import ConsumeMessageConcurrentlyService
from mqlab.client.impl.consumer.consume_message_orderly_service import (
    ConsumeMessageOrderlyService,
    build_retry_message,
)
from mqlab.client.impl.consumer.pull_api_wrapper import PullAPIWrapper
from mqlab.client.impl.consumer.rebalance_push_impl import RebalancePushImpl, parse_consume_timestamp
from mqlab.client.impl.mq_client_manager import MQClientManager, nano_time
from mqlab.common import mix_all
from mqlab.common.constant.logger_name import CLIENT_LOGGER_NAME, get_logger
from mqlab.common.filter import filter_api
from mqlab.common.message import message_const as mc
from mqlab.common.protocol.body import consumer_running_info as cri
from mqlab.common.protocol.body.consumer_running_info import ConsumerRunningInfo
from mqlab.common.protocol.body.process_queue_info import ProcessQueueInfo
from mqlab.common.protocol.heartbeat.consume_type import ConsumeType
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.protocol.heartbeat.subscription_data import SUB_ALL
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.service_state import ServiceState
from mqlab.common.sysflag.pull_sys_flag import build_sys_flag
from mqlab.remoting.common.remoting_helper import parse_socket_address_addr

if TYPE_CHECKING:
    from collections.abc import Set

    from mqlab.client.consumer.default_mq_push_consumer import DefaultMQPushConsumer
    from mqlab.client.consumer.message_selector import MessageSelector
    from mqlab.client.consumer.pull_result import PullResult
    from mqlab.client.consumer.store.offset_store import OffsetStore
    from mqlab.client.hook.consume_message_hook import ConsumeMessageHook
    from mqlab.client.impl.consumer.consume_message_service import ConsumeMessageService
    from mqlab.client.impl.consumer.pull_request import PullRequest
    from mqlab.client.impl.factory.mq_client_instance import MQClientInstance
    from mqlab.common.consumer.consume_from_where import ConsumeFromWhere
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.message.message_queue import MessageQueue
    from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.runtime.runtime import Runtime

COMPONENT = "DefaultMQPushConsumerImpl"
_LOG = get_logger(CLIENT_LOGGER_NAME)
# Java: the constants of DefaultMQPushConsumerImpl.
PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL = 50
PULL_TIME_DELAY_MILLS_WHEN_SUSPEND = 1000
BROKER_SUSPEND_MAX_TIME_MILLIS = 1000 * 15
CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND = 1000 * 30
# The field's initial value, which the constructor replaces with ClientConfig.pullTimeDelayMillsWhenException (1000).
PULL_TIME_DELAY_MILLS_WHEN_EXCEPTION_INITIAL = 3000
# A flow-control warning is logged on the 1st, 1001st, 2001st... time (Java: `times++ % 1000 == 0`).
FLOW_CONTROL_WARN_EVERY = 1000
# OFFSET_ILLEGAL: the corrected offset is stored this long after the queue is dropped.
OFFSET_ILLEGAL_FIX_DELAY_MILLIS = 10_000
# Timeout of CONSUMER_SEND_MSG_BACK.
SEND_MESSAGE_BACK_TIMEOUT_MILLIS = 5000
# Concurrent consumption: maxReconsumeTimes -1 means 16.
DEFAULT_MAX_RECONSUME_TIMES = 16
_MIB = 1024 * 1024


def is_orderly_listener(listener: Any) -> bool:
    """Whether ``listener`` declares itself a MessageListenerOrderly (Java: ``instanceof``).

    A class that names ``MessageListenerOrderly`` among its bases is orderly; so is a plain function registered with
    ``orderly=True`` (the consumer wraps it in an orderly adapter). Anything else is concurrent.

    Java: none (stands in for the instanceof checks of DefaultMQPushConsumerImpl#start and #checkConfig)
    """
    return MessageListenerOrderly in type(listener).__mro__


class DefaultMQPushConsumerImpl:
    """The push consumer behind a ``DefaultMQPushConsumer`` façade.

    Args:
        default_mq_push_consumer: the façade, which is also the configuration.
        runtime: the node the consumer runs on.
        rpc_hook: passed to the client instance.

    Attributes:
        rebalance_impl: the consumer's RebalancePushImpl (process-queue table, subscriptions).
        offset_store: RemoteBrokerOffsetStore (CLUSTERING) or LocalFileOffsetStore (BROADCASTING), set at start.
        consume_message_service: the concurrent or orderly consume service, set at start.
        queue_flow_control_times, queue_max_span_flow_control_times: how often steps 5-6 and 7 held a pull back.
    """

    def __init__(
        self, default_mq_push_consumer: DefaultMQPushConsumer, runtime: Runtime, rpc_hook: RPCHook | None = None
    ):
        self.default_mq_push_consumer = default_mq_push_consumer
        self.runtime = runtime
        self.rpc_hook = rpc_hook
        # Java initialises the field to 3000 and overwrites it here with the ClientConfig value (1000).
        self.pull_time_delay_mills_when_exception = default_mq_push_consumer.pull_time_delay_mills_when_exception
        self.rebalance_impl = RebalancePushImpl(self)
        self.consumer_start_timestamp = runtime.now_ms()
        self.service_state = ServiceState.CREATE_JUST
        self.mq_client_factory: MQClientInstance | None = None
        self.pull_api_wrapper: PullAPIWrapper | None = None
        self.pause = False
        self.consume_orderly = False
        self.message_listener_inner: Any = None
        self.offset_store: OffsetStore | None = None
        self.consume_message_service: ConsumeMessageService | None = None
        self.queue_flow_control_times = 0
        self.queue_max_span_flow_control_times = 0
        self._state_lock = threading.RLock()  # Java: the synchronized start/shutdown
        self.consume_message_hook_list: list[ConsumeMessageHook] = []

    # -- consume-message hooks (message traces) -------------------------------------------------------------
    def register_consume_message_hook(self, hook: ConsumeMessageHook) -> None:
        """Java: DefaultMQPushConsumerImpl#registerConsumeMessageHook."""
        self.consume_message_hook_list.append(hook)

    def has_hook(self) -> bool:
        """Java: DefaultMQPushConsumerImpl#hasHook."""
        return bool(self.consume_message_hook_list)

    def execute_hook_before(self, context: ConsumeMessageContext) -> None:
        """Every hook's before-call; failures are ignored. Java: DefaultMQPushConsumerImpl#executeHookBefore."""
        for hook in self.consume_message_hook_list:
            try:
                hook.consume_message_before(context)
            except Exception as exc:  # Java ignores it
                self._trace("consumeMessageHookFailed", hook=hook.hook_name(), error=repr(exc))

    def execute_hook_after(self, context: ConsumeMessageContext) -> None:
        """Every hook's after-call; failures are ignored. Java: DefaultMQPushConsumerImpl#executeHookAfter."""
        for hook in self.consume_message_hook_list:
            try:
                hook.consume_message_after(context)
            except Exception as exc:  # Java ignores it
                self._trace("consumeMessageHookFailed", hook=hook.hook_name(), error=repr(exc))

    def consume_hook_before(self, msgs: list[MessageExt], mq: MessageQueue) -> ConsumeMessageContext | None:
        """The consume context after the before-hooks ran (None without hooks), built before the listener call.

        Java: the ``hasHook()`` block before the listener in ConsumeMessageConcurrentlyService$ConsumeRequest#run
        and ConsumeMessageOrderlyService$ConsumeRequest#run
        """
        if not self.has_hook():
            return None
        context = ConsumeMessageContext(
            consumer_group=self.default_mq_push_consumer.consumer_group, mq=mq, msg_list=msgs, success=False
        )
        self.execute_hook_before(context)
        return context

    def consume_hook_after(
        self, context: ConsumeMessageContext | None, return_type: str, status: str, success: bool
    ) -> None:
        """Record how the call ended (``ConsumeContextType`` = the ConsumeReturnType name) and run the after-hooks.

        Java: the two ``hasHook()`` blocks after the listener in both consume services' ConsumeRequest#run
        """
        if context is None:
            return
        context.props[mix_all.CONSUME_CONTEXT_TYPE] = return_type
        context.status = status
        context.success = success
        self.execute_hook_after(context)

    def _trace(self, event: str, **fields: Any) -> None:
        self.runtime.trace_event(COMPONENT, event, group=self.default_mq_push_consumer.consumer_group, **fields)

    # ==============================================================================================================
    # The pull loop
    # ==============================================================================================================
    def pull_message(self, pull_request: PullRequest) -> None:
        """One round of the pull loop for one queue: the 12 steps of the module docstring.

        Java: DefaultMQPushConsumerImpl#pullMessage
        """
        process_queue = pull_request.process_queue
        # Step 1: a dropped queue belongs to someone else now; its loop ends here.
        if process_queue.dropped:
            self._trace("pullMessage.dropped", mq=str(pull_request.message_queue))
            return
        # Step 2: remember the pull (rebalance drops a push queue idle for 120 s).
        process_queue.last_pull_timestamp = self.runtime.now_ms()
        # Step 3: only a RUNNING consumer pulls.
        if not self._step3_state_ok(pull_request):
            return
        # Step 4: a paused consumer waits.
        if self._step4_paused(pull_request):
            return
        # Steps 5 and 6: too many cached messages, or too many cached bytes.
        if self._step5_flow_control_by_count(pull_request) or self._step6_flow_control_by_size(pull_request):
            return
        if not self.consume_orderly:
            # Step 7: the cached offsets of a concurrent consumer span too far.
            if self._step7_flow_control_by_span(pull_request):
                return
        # Step 8: an orderly consumer pulls only a queue it holds the broker lock of.
        elif not self._step8_orderly_lock_ready(pull_request):
            return
        # Step 9: the subscription of the topic.
        subscription_data = self._step9_find_subscription(pull_request)
        if subscription_data is None:
            return
        # Step 10: what to do with the answer.
        pull_callback = PushPullCallback(self, pull_request, subscription_data, self.runtime.now_ms())
        # Step 11: the system flags (and the offset to commit on the way).
        sys_flag, commit_offset_value, sub_expression = self._step11_build_sys_flag(pull_request)
        # Step 12: ask the broker.
        self._step12_pull_kernel(
            pull_request, subscription_data, sub_expression, sys_flag, commit_offset_value, pull_callback
        )

    def _step3_state_ok(self, pull_request: PullRequest) -> bool:
        """Step 3. Java: the makeSureStateOK block of pullMessage."""
        try:
            self.make_sure_state_ok()
        except MQClientException:
            self._trace("pullMessage.stateNotOk", state=self.service_state.name, mq=str(pull_request.message_queue))
            self.execute_pull_request_later(pull_request, self.pull_time_delay_mills_when_exception)
            return False
        return True

    def _step4_paused(self, pull_request: PullRequest) -> bool:
        """Step 4. Java: the isPause block of pullMessage."""
        if not self.pause:
            return False
        self._trace("pullMessage.paused", mq=str(pull_request.message_queue), delay=PULL_TIME_DELAY_MILLS_WHEN_SUSPEND)
        self.execute_pull_request_later(pull_request, PULL_TIME_DELAY_MILLS_WHEN_SUSPEND)
        return True

    def _flow_control(self, pull_request: PullRequest, reason: str, counter: str, **fields: Any) -> None:
        """Retry in 50 ms; trace a warning on the 1st and then every 1000th time (Java's ``times++ % 1000``)."""
        self.execute_pull_request_later(pull_request, PULL_TIME_DELAY_MILLS_WHEN_FLOW_CONTROL)
        times = getattr(self, counter)
        setattr(self, counter, times + 1)
        if times % FLOW_CONTROL_WARN_EVERY == 0:
            tree = pull_request.process_queue.msg_tree_map
            self._trace(
                "flowControl",
                reason=reason,
                mq=str(pull_request.message_queue),
                minOffset=tree.first_key() if tree else None,
                maxOffset=tree.last_key() if tree else None,
                flowControlTimes=times + 1,
                **fields,
            )

    def _step5_flow_control_by_count(self, pull_request: PullRequest) -> bool:
        """Step 5. Java: the pullThresholdForQueue block of pullMessage."""
        cached_message_count = pull_request.process_queue.msg_count
        threshold = self.default_mq_push_consumer.pull_threshold_for_queue
        if cached_message_count <= threshold:
            return False
        self._flow_control(
            pull_request, "count", "queue_flow_control_times", count=cached_message_count, threshold=threshold
        )
        return True

    def _step6_flow_control_by_size(self, pull_request: PullRequest) -> bool:
        """Step 6. Java: the pullThresholdSizeForQueue block of pullMessage (sizes in whole MiB)."""
        cached_message_size_in_mib = pull_request.process_queue.msg_size // _MIB
        threshold = self.default_mq_push_consumer.pull_threshold_size_for_queue
        if cached_message_size_in_mib <= threshold:
            return False
        self._flow_control(
            pull_request, "size", "queue_flow_control_times", sizeMiB=cached_message_size_in_mib, threshold=threshold
        )
        return True

    def _step7_flow_control_by_span(self, pull_request: PullRequest) -> bool:
        """Step 7. Java: the consumeConcurrentlyMaxSpan block of pullMessage."""
        max_span = pull_request.process_queue.get_max_span()
        threshold = self.default_mq_push_consumer.consume_concurrently_max_span
        if max_span <= threshold:
            return False
        self._flow_control(
            pull_request, "span", "queue_max_span_flow_control_times", maxSpan=max_span, threshold=threshold
        )
        return True

    def _step8_orderly_lock_ready(self, pull_request: PullRequest) -> bool:
        """Step 8: not locked → retry in 1000 ms; first pull after the lock → offset from the broker.

        Java: the isLocked block of pullMessage
        """
        process_queue = pull_request.process_queue
        if not process_queue.locked:
            self._trace("pullMessage.notLocked", mq=str(pull_request.message_queue))
            self.execute_pull_request_later(pull_request, self.pull_time_delay_mills_when_exception)
            return False
        if not pull_request.previously_locked:
            try:
                offset = self.rebalance_impl.compute_pull_from_where_with_exception(pull_request.message_queue)
            except Exception as exc:  # Java logs "Failed to compute pull offset"
                self._trace("pullMessage.computeOffsetFailed", mq=str(pull_request.message_queue), error=repr(exc))
                self.execute_pull_request_later(pull_request, self.pull_time_delay_mills_when_exception)
                return False
            broker_busy = offset < pull_request.next_offset
            self._trace(
                "pullMessage.firstPullAfterLock",
                mq=str(pull_request.message_queue),
                newOffset=offset,
                oldOffset=pull_request.next_offset,
                brokerBusy=broker_busy,
            )
            pull_request.previously_locked = True
            pull_request.next_offset = offset
        return True

    def _step9_find_subscription(self, pull_request: PullRequest) -> SubscriptionData | None:
        """Step 9. Java: the subscriptionInner lookup of pullMessage."""
        subscription_data = self.rebalance_impl.subscription_inner.get(pull_request.message_queue.topic)
        if subscription_data is None:
            self._trace("pullMessage.noSubscription", mq=str(pull_request.message_queue))
            self.execute_pull_request_later(pull_request, self.pull_time_delay_mills_when_exception)
        return subscription_data

    def _step11_build_sys_flag(self, pull_request: PullRequest) -> tuple[int, int, str | None]:
        """Step 11: ``(sysFlag, commitOffsetValue, subExpression)``.

        Java: the commitOffset / subExpression / PullSysFlag#buildSysFlag block of pullMessage
        """
        commit_offset_enable = False
        commit_offset_value = 0
        if self.default_mq_push_consumer.message_model is MessageModel.CLUSTERING:
            commit_offset_value = self.offset_store.read_offset(
                pull_request.message_queue, ReadOffsetType.READ_FROM_MEMORY
            )
            commit_offset_enable = commit_offset_value > 0
        sub_expression = None
        class_filter = False
        sd = self.rebalance_impl.subscription_inner.get(pull_request.message_queue.topic)
        if sd is not None:
            if self.default_mq_push_consumer.post_subscription_when_pull and not sd.class_filter_mode:
                sub_expression = sd.sub_string
            class_filter = sd.class_filter_mode
        sys_flag = build_sys_flag(commit_offset_enable, True, sub_expression is not None, class_filter)
        return sys_flag, commit_offset_value, sub_expression

    def _step12_pull_kernel(
        self,
        pull_request: PullRequest,
        subscription_data: SubscriptionData,
        sub_expression: str | None,
        sys_flag: int,
        commit_offset_value: int,
        pull_callback: PushPullCallback,
    ) -> None:
        """Step 12: the asynchronous PULL_MESSAGE; a failure to send retries in 1000 ms.

        Java: the pullKernelImpl call at the end of pullMessage
        """
        self._trace(
            "pullMessage",
            mq=str(pull_request.message_queue),
            offset=pull_request.next_offset,
            sysFlag=sys_flag,
            commitOffset=commit_offset_value,
        )
        try:
            self.pull_api_wrapper.pull_kernel_impl(
                pull_request.message_queue,
                sub_expression,
                subscription_data.expression_type,
                subscription_data.sub_version,
                pull_request.next_offset,
                self.default_mq_push_consumer.pull_batch_size,
                sys_flag,
                commit_offset_value,
                BROKER_SUSPEND_MAX_TIME_MILLIS,
                CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND,
                CommunicationMode.ASYNC,
                pull_callback,
            )
        except Exception as exc:  # Java logs "pullKernelImpl exception"
            self._trace("pullMessage.pullKernelFailed", mq=str(pull_request.message_queue), error=repr(exc))
            _LOG.error("pullKernelImpl exception: %s %s", pull_request.message_queue, exc)
            self.execute_pull_request_later(pull_request, self.pull_time_delay_mills_when_exception)

    # -- what the callback does (step 10) ------------------------------------------------------------------------
    def on_pull_found(self, pull_request: PullRequest, pull_result: PullResult, begin_timestamp: int) -> None:
        """FOUND: next offset from the result; cache and submit the messages; pull again.

        Java: the FOUND case of the PullCallback in pullMessage
        """
        prev_request_offset = pull_request.next_offset
        pull_request.next_offset = pull_result.next_begin_offset
        msgs = pull_result.msg_found_list
        first_msg_offset = None
        if not msgs:
            # Everything was filtered out on the client: continue from the new offset at once.
            self.execute_pull_request_immediately(pull_request)
        else:
            first_msg_offset = msgs[0].queue_offset
            process_queue = pull_request.process_queue
            dispatch_to_consume = process_queue.put_message(msgs)
            self._trace(
                "pullFound",
                mq=str(pull_request.message_queue),
                offsets=f"{msgs[0].queue_offset}..{msgs[-1].queue_offset}",
                count=len(msgs),
                nextOffset=pull_request.next_offset,
                pullRT=self.runtime.now_ms() - begin_timestamp,
            )
            self.consume_message_service.submit_consume_request(
                msgs, process_queue, pull_request.message_queue, dispatch_to_consume
            )
            if self.default_mq_push_consumer.pull_interval > 0:
                self.execute_pull_request_later(pull_request, self.default_mq_push_consumer.pull_interval)
            else:
                self.execute_pull_request_immediately(pull_request)
        if pull_result.next_begin_offset < prev_request_offset or (
            first_msg_offset is not None and first_msg_offset < prev_request_offset
        ):
            self._trace(
                "pullFound.dataWrong",
                nextBeginOffset=pull_result.next_begin_offset,
                firstMsgOffset=first_msg_offset,
                prevRequestOffset=prev_request_offset,
            )

    def on_pull_no_new_or_no_matched(self, pull_request: PullRequest, pull_result: PullResult) -> None:
        """NO_NEW_MSG / NO_MATCHED_MSG: move the offset (and the stored offset if nothing is cached); pull again.

        Java: the NO_NEW_MSG / NO_MATCHED_MSG cases of the PullCallback in pullMessage
        """
        pull_request.next_offset = pull_result.next_begin_offset
        self.correct_tags_offset(pull_request)
        self._trace(
            "pullNotFound",
            mq=str(pull_request.message_queue),
            status=pull_result.pull_status.name,
            nextOffset=pull_request.next_offset,
        )
        self.execute_pull_request_immediately(pull_request)

    def on_pull_offset_illegal(self, pull_request: PullRequest, pull_result: PullResult) -> None:
        """OFFSET_ILLEGAL: drop the queue now; in 10 s store the broker's offset and remove the process queue.

        Java: the OFFSET_ILLEGAL case of the PullCallback in pullMessage
        """
        self._trace(
            "pullOffsetIllegal",
            mq=str(pull_request.message_queue),
            requested=pull_request.next_offset,
            nextBeginOffset=pull_result.next_begin_offset,
        )
        pull_request.next_offset = pull_result.next_begin_offset
        pull_request.process_queue.dropped = True

        def fix_offset() -> None:
            try:
                self.offset_store.update_offset(pull_request.message_queue, pull_request.next_offset, False)
                self.offset_store.persist(pull_request.message_queue)
                self.rebalance_impl.remove_process_queue(pull_request.message_queue)
                self._trace("fixPullRequestOffset", mq=str(pull_request.message_queue), offset=pull_request.next_offset)
            except Exception as exc:  # Java logs "executeTaskLater Exception"
                self._trace("fixPullRequestOffsetFailed", error=repr(exc))

        self.execute_task_later(fix_offset, OFFSET_ILLEGAL_FIX_DELAY_MILLIS)

    def on_pull_exception(self, pull_request: PullRequest, exc: BaseException) -> None:
        """Any failure of the pull: retry in ``pullTimeDelayMillsWhenException``.

        Java: PullCallback#onException in pullMessage
        """
        if not pull_request.message_queue.topic.startswith(mix_all.RETRY_GROUP_TOPIC_PREFIX):
            self._trace("pullException", mq=str(pull_request.message_queue), error=repr(exc))
            _LOG.warning("execute the pull request exception: %s %s", pull_request.message_queue, exc)
        self.execute_pull_request_later(pull_request, self.pull_time_delay_mills_when_exception)

    def correct_tags_offset(self, pull_request: PullRequest) -> None:
        """With nothing cached, the filtered-out range is consumed: advance the stored offset (increase only).

        Java: DefaultMQPushConsumerImpl#correctTagsOffset
        """
        if pull_request.process_queue.msg_count == 0:
            self.offset_store.update_offset(pull_request.message_queue, pull_request.next_offset, True)

    def make_sure_state_ok(self) -> None:
        """Raises MQClientException unless RUNNING. Java: DefaultMQPushConsumerImpl#makeSureStateOK."""
        if self.service_state is not ServiceState.RUNNING:
            raise MQClientException(f"The consumer service state not OK, {self.service_state.name}")

    def execute_pull_request_later(self, pull_request: PullRequest, time_delay: int) -> None:
        """Java: DefaultMQPushConsumerImpl#executePullRequestLater."""
        self.mq_client_factory.pull_message_service.execute_pull_request_later(pull_request, time_delay)

    def execute_pull_request_immediately(self, pull_request: PullRequest) -> None:
        """Java: DefaultMQPushConsumerImpl#executePullRequestImmediately."""
        self.mq_client_factory.pull_message_service.execute_pull_request_immediately(pull_request)

    def execute_task_later(self, task: Any, time_delay: int) -> None:
        """Java: DefaultMQPushConsumerImpl#executeTaskLater."""
        self.mq_client_factory.pull_message_service.execute_task_later(task, time_delay)

    # ==============================================================================================================
    # Life cycle
    # ==============================================================================================================
    def start(self) -> None:
        """Check, copy subscriptions, wire the parts, register and start; then routes, heartbeat, rebalance now.

        In order: ``check_config``, ``copy_subscription``, the instance name (CLUSTERING), the client instance,
        rebalance settings, the PullAPIWrapper, the offset store (loaded), the consume service (started), the
        group's registration, the instance's start; then each subscribed topic's route, a heartbeat, and a wake-up
        of the RebalanceService.

        Java: DefaultMQPushConsumerImpl#start

        Raises:
            MQClientException: bad configuration, duplicate group, or started before.
        """
        consumer = self.default_mq_push_consumer
        with self._state_lock:
            if self.service_state is not ServiceState.CREATE_JUST:
                raise MQClientException(
                    f"The PushConsumer service state not OK, maybe started once, {self.service_state.name}"
                )
            self.service_state = ServiceState.START_FAILED
            self.check_config()
            self.copy_subscription()
            if consumer.message_model is MessageModel.CLUSTERING:
                consumer.change_instance_name_to_pid(self.runtime.host.pid, nano_time(self.runtime))
            factory = MQClientManager.get_instance(self.runtime).get_or_create_mq_client_instance(
                consumer, self.rpc_hook
            )
            self.mq_client_factory = factory
            self.rebalance_impl.consumer_group = consumer.consumer_group
            self.rebalance_impl.message_model = consumer.message_model
            self.rebalance_impl.allocate_message_queue_strategy = consumer.allocate_message_queue_strategy
            self.rebalance_impl.mq_client_factory = factory
            self.pull_api_wrapper = PullAPIWrapper(factory, consumer.consumer_group, self.is_unit_mode())
            self.offset_store = consumer.offset_store if consumer.offset_store is not None else self._new_offset_store()
            consumer.offset_store = self.offset_store
            self.offset_store.load()
            self.consume_message_service = self._new_consume_message_service()
            self.consume_message_service.start()
            if not factory.register_consumer(consumer.consumer_group, self):
                self.service_state = ServiceState.CREATE_JUST
                self.consume_message_service.shutdown(consumer.await_termination_millis_when_shutdown)
                raise MQClientException(
                    f"The consumer group[{consumer.consumer_group}] has been created before, "
                    "specify another name please."
                )
            factory.start()
            self.service_state = ServiceState.RUNNING
            self._trace(
                "start", clientId=factory.client_id, model=consumer.message_model.name, orderly=self.consume_orderly
            )
        self.update_topic_subscribe_info_when_subscription_changed()
        factory.check_client_in_broker()  # raises, as in Java, with the consumer left started
        factory.send_heartbeat_to_all_broker_with_lock()
        if factory.heartbeat_refusals:
            # mqlab (HARD-9): a broker that will not serve the group refused the heartbeat: say so now, not per pull.
            addr, remark = next(iter(factory.heartbeat_refusals.items()))
            raise MQClientException(f"{remark} (broker {addr})", ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST)
        factory.rebalance_immediately()

    def _new_offset_store(self) -> OffsetStore:
        """BROADCASTING: offsets in a local file; CLUSTERING: on the brokers."""
        consumer = self.default_mq_push_consumer
        factory = self.mq_client_factory
        if consumer.message_model is MessageModel.BROADCASTING:
            store_dir = getattr(consumer, "local_offset_store_dir", None)
            if store_dir is None:
                store_dir = Path.home() / DEFAULT_LOCAL_OFFSET_STORE_DIR_NAME  # Java's default, ~/.rocketmq_offsets
            return LocalFileOffsetStore(factory.client_id, consumer.consumer_group, store_dir)
        return RemoteBrokerOffsetStore(
            factory.mq_client_api_impl,
            consumer.consumer_group,
            find_broker_address=lambda name, broker_id, only: _addr(
                factory.find_broker_address_in_subscribe(name, broker_id, only)
            ),
            update_topic_route_info=factory.update_topic_route_info_from_name_server,
            client_id=factory.client_id,
        )

    def _new_consume_message_service(self) -> ConsumeMessageService:
        """Orderly or concurrent, by the listener's kind."""
        listener = self.message_listener_inner
        if is_orderly_listener(listener):
            self.consume_orderly = True
            return ConsumeMessageOrderlyService(self, listener)
        self.consume_orderly = False
        return ConsumeMessageConcurrentlyService(self, listener)

    def shutdown(self, await_terminate_millis: int = 0) -> None:
        """Stop consuming, persist offsets, leave the group (UNREGISTER_CLIENT), stop the instance, drop the queues.

        Java: DefaultMQPushConsumerImpl#shutdown(long)
        """
        with self._state_lock:
            if self.service_state is not ServiceState.RUNNING:
                return
            self.consume_message_service.shutdown(await_terminate_millis)
            self.persist_consumer_offset()
            self.mq_client_factory.unregister_consumer(self.default_mq_push_consumer.consumer_group)
            self.mq_client_factory.shutdown()
            self.rebalance_impl.destroy()
            self.service_state = ServiceState.SHUTDOWN_ALREADY
            self._trace("shutdown")

    def check_config(self) -> None:
        """4.9.3's checks and ranges (facts §11.4).

        Java: DefaultMQPushConsumerImpl#checkConfig

        Raises:
            MQClientException: the first setting out of its range.
        """
        consumer = self.default_mq_push_consumer
        validators.check_group(consumer.consumer_group)
        if consumer.message_model is MessageModel.BROADCASTING:  # mqlab (HARD-15): these become directories
            validators.check_local_offset_store_names(consumer.instance_name, consumer.unit_name)
        if consumer.consumer_group == mix_all.DEFAULT_CONSUMER_GROUP:
            raise MQClientException(
                f"consumerGroup can not equal {mix_all.DEFAULT_CONSUMER_GROUP}, please specify another one."
            )
        for name in ("message_model", "consume_from_where"):
            if getattr(consumer, name) is None:
                raise MQClientException(f"{_camel(name)} is null")
        if parse_consume_timestamp(consumer.consume_timestamp, self.runtime.tz) is None:
            raise MQClientException(
                "consumeTimestamp is invalid, the valid format is yyyyMMddHHmmss,but received "
                f"{consumer.consume_timestamp}"
            )
        for name in ("allocate_message_queue_strategy", "subscription", "message_listener"):
            if getattr(consumer, name) is None:
                raise MQClientException(f"{_camel(name)} is null")
        if not hasattr(consumer.message_listener, "consume_message"):
            raise MQClientException(
                "messageListener must be instanceof MessageListenerOrderly or MessageListenerConcurrently"
            )
        _check_range("consumeThreadMin", consumer.consume_thread_min, 1, 1000)
        _check_range("consumeThreadMax", consumer.consume_thread_max, 1, 1000)
        if consumer.consume_thread_min > consumer.consume_thread_max:
            raise MQClientException(
                f"consumeThreadMin ({consumer.consume_thread_min}) is larger than consumeThreadMax "
                f"({consumer.consume_thread_max})"
            )
        _check_range("consumeConcurrentlyMaxSpan", consumer.consume_concurrently_max_span, 1, 65535)
        _check_range("pullThresholdForQueue", consumer.pull_threshold_for_queue, 1, 65535)
        if consumer.pull_threshold_for_topic != -1:
            _check_range("pullThresholdForTopic", consumer.pull_threshold_for_topic, 1, 6553500)
        _check_range("pullThresholdSizeForQueue", consumer.pull_threshold_size_for_queue, 1, 1024)
        if consumer.pull_threshold_size_for_topic != -1:
            _check_range("pullThresholdSizeForTopic", consumer.pull_threshold_size_for_topic, 1, 102400)
        _check_range("pullInterval", consumer.pull_interval, 0, 65535)
        _check_range("consumeMessageBatchMaxSize", consumer.consume_message_batch_max_size, 1, 1024)
        _check_range("pullBatchSize", consumer.pull_batch_size, 1, 1024)

    def copy_subscription(self) -> None:
        """The configured subscriptions, the listener, and (CLUSTERING) ``%RETRY%group`` with ``*``.

        Java: DefaultMQPushConsumerImpl#copySubscription
        """
        consumer = self.default_mq_push_consumer
        try:
            for topic, sub_string in (consumer.subscription or {}).items():
                self.rebalance_impl.subscription_inner[topic] = filter_api.build_subscription_data(topic, sub_string)
            if self.message_listener_inner is None:
                self.message_listener_inner = consumer.message_listener
            if consumer.message_model is MessageModel.CLUSTERING:
                retry_topic = mix_all.get_retry_topic(consumer.consumer_group)
                self.rebalance_impl.subscription_inner[retry_topic] = filter_api.build_subscription_data(
                    retry_topic, SUB_ALL
                )
        except Exception as exc:
            raise MQClientException("subscription exception", cause=exc) from exc

    def update_topic_subscribe_info_when_subscription_changed(self) -> None:
        """Fetch the route of every subscribed topic now.

        Java: DefaultMQPushConsumerImpl#updateTopicSubscribeInfoWhenSubscriptionChanged
        """
        for topic in list(self.rebalance_impl.subscription_inner.keys()):
            self.mq_client_factory.update_topic_route_info_from_name_server(topic)

    # ==============================================================================================================
    # The façade's operations
    # ==============================================================================================================
    def register_message_listener(self, message_listener: Any) -> None:
        """Java: DefaultMQPushConsumerImpl#registerMessageListener."""
        self.message_listener_inner = message_listener

    def subscribe(self, topic: str, sub_expression: str | MessageSelector | None) -> None:
        """Add or replace the subscription of ``topic``; heartbeat at once if already started.

        Java: DefaultMQPushConsumerImpl#subscribe(String, String) and #subscribe(String, MessageSelector)
        """
        try:
            if sub_expression is None or isinstance(sub_expression, str):
                subscription_data = filter_api.build_subscription_data(topic, sub_expression or SUB_ALL)
            else:
                subscription_data = filter_api.build(topic, sub_expression.expression, sub_expression.expression_type)
            self.rebalance_impl.subscription_inner[topic] = subscription_data
        except Exception as exc:
            raise MQClientException("subscription exception", cause=exc) from exc
        if self.mq_client_factory is not None:
            self.mq_client_factory.send_heartbeat_to_all_broker_with_lock()

    def unsubscribe(self, topic: str) -> None:
        """Java: DefaultMQPushConsumerImpl#unsubscribe."""
        self.rebalance_impl.subscription_inner.pop(topic, None)

    def suspend(self) -> None:
        """Pause pulling. Java: DefaultMQPushConsumerImpl#suspend."""
        self.pause = True
        self._trace("suspend")

    def resume(self) -> None:
        """Resume pulling and rebalance now. Java: DefaultMQPushConsumerImpl#resume."""
        self.pause = False
        self._trace("resume")
        self.do_rebalance()

    def update_consume_offset(self, mq: MessageQueue, offset: int) -> None:
        """Java: DefaultMQPushConsumerImpl#updateConsumeOffset."""
        self.offset_store.update_offset(mq, offset, False)

    def update_core_pool_size(self, core_pool_size: int) -> None:
        """Java: DefaultMQPushConsumerImpl#updateCorePoolSize."""
        self.consume_message_service.update_core_pool_size(core_pool_size)

    def fetch_subscribe_message_queues(self, topic: str) -> Set[MessageQueue]:
        """The topic's readable queues (the route is fetched if unknown).

        Java: DefaultMQPushConsumerImpl#fetchSubscribeMessageQueues

        Raises:
            MQClientException: the topic does not exist.
        """
        result = self.rebalance_impl.topic_subscribe_info_table.get(topic)
        if result is None:
            self.mq_client_factory.update_topic_route_info_from_name_server(topic)
            result = self.rebalance_impl.topic_subscribe_info_table.get(topic)
        if result is None:
            raise MQClientException(f"The topic[{topic}] not exist")
        return set(result)

    def send_message_back(self, msg: MessageExt, delay_level: int, broker_name: str | None) -> None:
        """CONSUMER_SEND_MSG_BACK to the consumed queue's master; if that fails, send a retry message yourself.

        The broker is found by ``broker_name`` (the consumed queue's), or else from the message's store host. The
        fallback sends a new message to ``%RETRY%group`` with the inner producer (``CLIENT_INNER_PRODUCER``):
        RECONSUME_TIME = reconsumeTimes + 1 and DELAY = 3 + reconsumeTimes (``build_retry_message``).

        Java: DefaultMQPushConsumerImpl#sendMessageBack

        Raises:
            Exception: the fallback send failed too (the caller then consumes the message again locally).
        """
        factory = self.mq_client_factory
        try:
            if broker_name is not None:
                broker_addr = factory.find_broker_address_in_publish(broker_name)
            else:
                broker_addr = parse_socket_address_addr(str(msg.store_host))
            factory.mq_client_api_impl.consumer_send_message_back(
                broker_addr,
                msg,
                self.default_mq_push_consumer.consumer_group,
                delay_level,
                SEND_MESSAGE_BACK_TIMEOUT_MILLIS,
                self.get_max_reconsume_times(),
            )
            self._trace(
                "sendMessageBack",
                topic=msg.topic,
                offset=msg.queue_offset,
                delayLevel=delay_level,
                reconsumeTimes=msg.reconsume_times,
                broker=broker_addr,
            )
        except Exception as exc:
            self._trace("sendMessageBackFallback", topic=msg.topic, offset=msg.queue_offset, error=repr(exc))
            new_msg = build_retry_message(
                msg,
                self.default_mq_push_consumer.consumer_group,
                reconsume_time=msg.reconsume_times + 1,
                max_reconsume_times=self.get_max_reconsume_times(),
            )
            factory.default_mq_producer.send(new_msg)

    def get_max_reconsume_times(self) -> int:
        """The consumer's ``maxReconsumeTimes``, -1 meaning 16.

        Java: DefaultMQPushConsumerImpl#getMaxReconsumeTimes
        """
        max_times = self.default_mq_push_consumer.max_reconsume_times
        return DEFAULT_MAX_RECONSUME_TIMES if max_times == -1 else max_times

    def reset_retry_and_namespace(self, msgs: list[MessageExt], consumer_group: str) -> None:
        """A message pulled from ``%RETRY%group`` shows its original topic (from RETRY_TOPIC) to the listener.

        Java: DefaultMQPushConsumerImpl#resetRetryAndNamespace (namespaces left out)
        """
        group_topic = mix_all.get_retry_topic(consumer_group)
        for msg in msgs:
            retry_topic = msg.get_property(mc.PROPERTY_RETRY_TOPIC)
            if retry_topic is not None and msg.topic == group_topic:
                msg.topic = retry_topic

    # ==============================================================================================================
    # MQConsumerInner
    # ==============================================================================================================
    def group_name(self) -> str:
        """Java: DefaultMQPushConsumerImpl#groupName."""
        return self.default_mq_push_consumer.consumer_group

    def message_model(self) -> MessageModel:
        """Java: DefaultMQPushConsumerImpl#messageModel."""
        return self.default_mq_push_consumer.message_model

    def consume_type(self) -> ConsumeType:
        """Push consumers consume passively. Java: DefaultMQPushConsumerImpl#consumeType."""
        return ConsumeType.CONSUME_PASSIVELY

    def consume_from_where(self) -> ConsumeFromWhere:
        """Java: DefaultMQPushConsumerImpl#consumeFromWhere."""
        return self.default_mq_push_consumer.consume_from_where

    def subscriptions(self) -> list[SubscriptionData]:
        """The subscriptions, retry topic included. Java: DefaultMQPushConsumerImpl#subscriptions."""
        return list(self.rebalance_impl.subscription_inner.values())

    def do_rebalance(self) -> None:
        """Rebalance unless paused. Java: DefaultMQPushConsumerImpl#doRebalance."""
        if not self.pause:
            self.rebalance_impl.do_rebalance(self.consume_orderly)

    def persist_consumer_offset(self) -> None:
        """Persist the offsets of the assigned queues (errors only traced).

        Java: DefaultMQPushConsumerImpl#persistConsumerOffset
        """
        try:
            self.make_sure_state_ok()
            mqs = set(self.rebalance_impl.process_queue_table.keys())
            self.offset_store.persist_all(mqs)
        except Exception as exc:  # Java logs "group: ... persistConsumerOffset exception"
            self._trace("persistConsumerOffsetFailed", error=repr(exc))

    def update_topic_subscribe_info(self, topic: str, info: Set[MessageQueue]) -> None:
        """Java: DefaultMQPushConsumerImpl#updateTopicSubscribeInfo."""
        if topic in self.rebalance_impl.subscription_inner:
            self.rebalance_impl.topic_subscribe_info_table[topic] = info

    def is_subscribe_topic_need_update(self, topic: str) -> bool:
        """Java: DefaultMQPushConsumerImpl#isSubscribeTopicNeedUpdate."""
        if topic in self.rebalance_impl.subscription_inner:
            return topic not in self.rebalance_impl.topic_subscribe_info_table
        return False

    def is_unit_mode(self) -> bool:
        """Java: DefaultMQPushConsumerImpl#isUnitMode."""
        return self.default_mq_push_consumer.unit_mode

    def consumer_running_info(self) -> Any:
        """Settings, subscriptions and a ProcessQueueInfo per assigned queue (for GET_CONSUMER_RUNNING_INFO).

        Java: DefaultMQPushConsumerImpl#consumerRunningInfo (statistics left out)
        """
        info = ConsumerRunningInfo()
        info.properties.update(self.running_properties())
        info.subscription_set.extend(self.subscriptions())
        for mq, pq_info in self.process_queue_infos().items():
            info.mq_table[mq] = pq_info
        return info

    def running_properties(self) -> dict[str, str]:
        """The consumer's settings as strings, plus its orderly flag, pool size and start time.

        The three extra keys are ConsumerRunningInfo's PROP_CONSUME_ORDERLY (whose value is
        "PROP_CONSUMEORDERLY"), PROP_THREADPOOL_CORE_SIZE and PROP_CONSUMER_START_TIMESTAMP.

        Java: the properties part of DefaultMQPushConsumerImpl#consumerRunningInfo (MixAll#object2Properties)
        """
        consumer = self.default_mq_push_consumer
        props = {}
        for name in consumer.__dataclass_fields__:
            value = getattr(consumer, name)
            if value is not None:  # Java's MixAll#object2Properties skips null fields
                props[_camel(name)] = _java_string(value)
        props[cri.PROP_CONSUME_ORDERLY] = "true" if self.consume_orderly else "false"
        props[cri.PROP_THREADPOOL_CORE_SIZE] = str(self.consume_message_service.get_core_pool_size())
        props[cri.PROP_CONSUMER_START_TIMESTAMP] = str(self.consumer_start_timestamp)
        return props

    def process_queue_infos(self) -> dict[MessageQueue, ProcessQueueInfo]:
        """A ProcessQueueInfo (with the committed offset) for each assigned queue.

        Java: the mqTable part of DefaultMQPushConsumerImpl#consumerRunningInfo
        """
        result: dict[MessageQueue, ProcessQueueInfo] = {}
        for mq, pq in list(self.rebalance_impl.process_queue_table.items()):
            pq_info = ProcessQueueInfo()
            pq_info.commit_offset = self.offset_store.read_offset(mq, ReadOffsetType.MEMORY_FIRST_THEN_STORE)
            pq.fill_process_queue_info(pq_info)
            result[mq] = pq_info
        return result


class PushPullCallback:
    """What happens when a push consumer's pull is answered (step 10 of the pull loop).

    Java: the anonymous PullCallback created in DefaultMQPushConsumerImpl#pullMessage
    """

    def __init__(
        self,
        impl: DefaultMQPushConsumerImpl,
        pull_request: PullRequest,
        subscription_data: SubscriptionData,
        begin_timestamp: int,
    ):
        self.impl = impl
        self.pull_request = pull_request
        self.subscription_data = subscription_data
        self.begin_timestamp = begin_timestamp

    def on_success(self, pull_result: PullResult | None) -> None:
        """Decode and filter (``processPullResult``), then act on the status. Java: PullCallback#onSuccess."""
        if pull_result is None:
            return
        impl = self.impl
        pull_result = impl.pull_api_wrapper.process_pull_result(
            self.pull_request.message_queue, pull_result, self.subscription_data
        )
        status = pull_result.pull_status
        if status is PullStatus.FOUND:
            impl.on_pull_found(self.pull_request, pull_result, self.begin_timestamp)
        elif status in (PullStatus.NO_NEW_MSG, PullStatus.NO_MATCHED_MSG):
            impl.on_pull_no_new_or_no_matched(self.pull_request, pull_result)
        elif status is PullStatus.OFFSET_ILLEGAL:
            impl.on_pull_offset_illegal(self.pull_request, pull_result)

    def on_exception(self, e: BaseException) -> None:
        """Java: PullCallback#onException."""
        self.impl.on_pull_exception(self.pull_request, e)


def _addr(find_broker_result: Any) -> str | None:
    return None if find_broker_result is None else find_broker_result.broker_addr


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _java_string(value: Any) -> str:
    """``String.valueOf`` as Java prints these settings: booleans in lower case, enums by name."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, (int, str)):
        return str(value)
    return type(value).__name__


def _check_range(name: str, value: int, low: int, high: int) -> None:
    if value < low or value > high:
        raise MQClientException(f"{name} Out of range [{low}, {high}]")

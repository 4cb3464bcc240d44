"""How a producer sends: find the route, pick a queue, build the request, retry on another broker.

The call chain of one synchronous ``send(msg)``, step by step (each step records a trace event under
``DefaultMQProducerImpl``):

1. ``send_default_impl``: check the message (``Validators.check_message``), find the topic's publish info
   (``try_to_find_topic_publish_info``: the cached info, else a route from the name server, else the route of
   TBW102 cut to ``defaultTopicQueueNums`` queues so the broker creates the topic on first send).
2. Up to ``1 + retryTimesWhenSendFailed`` attempts (one for ASYNC and ONEWAY), all inside one ``sendMsgTimeout``
   budget: ``select_one_message_queue(info, last_broker)`` (round robin that avoids the broker of the failed
   attempt; MQFaultStrategy when ``sendLatencyFaultEnable``), then ``send_kernel_impl`` with the time left. A
   remoting failure, a client failure or a broker code in ``retryResponseCodes`` moves on to the next attempt;
   an attempt that starts after the budget is spent ends the send with "sendDefaultImpl call timeout".
3. ``send_kernel_impl``: the broker's master address; UNIQ_KEY set once (a retry keeps it, so a message that was
   stored but whose answer was lost is stored again under the same id: the seed's warning about duplicate
   msgIds); the body zlib-compressed at level 5 when at least ``compressMsgBodyOverHowmuch`` bytes (sysflag 0x1;
   the caller's message gets its body back afterwards); the request header (``c`` = TBW102, ``d`` = 4, retry
   topics carry RECONSUME_TIME / MAX_RECONSUME_TIMES in ``j`` / ``l``); then ``MQClientAPIImpl.send_message``.

Transactions (``send_message_in_transaction``): the message goes out as a half message (TRAN_MSG=true, PGROUP) by
a plain synchronous send; the listener runs the local transaction; END_TRANSACTION (oneway) tells the broker to
commit or roll back. A broker's CHECK_TRANSACTION_STATE is answered on the check executor
(``check_transaction_state``).

Java: org.apache.rocketmq.client.impl.producer.DefaultMQProducerImpl (rocketmq-all-4.9.3)
Left out: the deprecated transaction API (LocalTransactionExecuter, TransactionCheckListener), request-reply,
check-forbidden and end-transaction hooks, namespaces.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mqlab.client import validators
from mqlab.client.common import client_error_code
from mqlab.client.exception.mq_broker_exception import MQBrokerException
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.hook.end_transaction_context import EndTransactionContext
from mqlab.client.hook.send_message_context import SendMessageContext
from mqlab.client.impl.communication_mode import CommunicationMode
from mqlab.client.impl.mq_client_manager import MQClientManager, nano_time
from mqlab.client.impl.producer.topic_publish_info import TopicPublishInfo
from mqlab.client.latency.mq_fault_strategy import MQFaultStrategy
from mqlab.client.producer.local_transaction_state import LocalTransactionState
from mqlab.client.producer.send_status import SendStatus
from mqlab.client.producer.transaction_send_result import TransactionSendResult
from mqlab.common import mix_all, util_all
from mqlab.common.message import message_const as mc
from mqlab.common.message.message import Message
from mqlab.common.message.message_batch import MessageBatch
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.message_decoder import decode_message_id, message_properties2string
from mqlab.common.message.message_type import MessageType
from mqlab.common.mix_all import REFERENCE_AVAILABLE_PROCESSORS
from mqlab.common.protocol.header.broker_headers import SendMessageRequestHeader
from mqlab.common.protocol.header.end_transaction_request_header import EndTransactionRequestHeader
from mqlab.common.service_state import ServiceState
from mqlab.common.sysflag.message_sys_flag import TRANSACTION_NOT_TYPE, MessageSysFlag
from mqlab.remoting.common.remoting_helper import exception_simple_desc
from mqlab.remoting.exception.remoting_connect_exception import RemotingConnectException
from mqlab.remoting.exception.remoting_exception import RemotingException
from mqlab.remoting.exception.remoting_timeout_exception import RemotingTimeoutException
from mqlab.remoting.exception.remoting_too_much_request_exception import RemotingTooMuchRequestException

if TYPE_CHECKING:
    from mqlab.client.hook.end_transaction_hook import EndTransactionHook
    from mqlab.client.hook.send_message_hook import SendMessageHook
    from mqlab.client.impl.factory.mq_client_instance import MQClientInstance
    from mqlab.client.producer.default_mq_producer import DefaultMQProducer
    from mqlab.client.producer.message_queue_selector import MessageQueueSelector
    from mqlab.client.producer.send_callback import SendCallback
    from mqlab.client.producer.send_result import SendResult
    from mqlab.client.producer.transaction_listener import TransactionListener
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.message.message_queue import MessageQueue
    from mqlab.common.protocol.header.check_transaction_state_request_header import (
        CheckTransactionStateRequestHeader,
    )
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.runtime.runtime import Runtime
    from mqlab.runtime.scheduler import Executor

COMPONENT = "DefaultMQProducerImpl"
# Java: system property rocketmq.message.compressLevel, default 5
ZIP_COMPRESS_LEVEL = 5
# Java: the literal the send-message hook block tests for a timed delivery.
START_DELIVER_TIME = "__STARTDELIVERTIME"
# Java: the fixed timeout of the END_TRANSACTION that answers a check
CHECK_ANSWER_TIMEOUT_MILLIS = 3000
# LocalTransactionState → commitOrRollback of END_TRANSACTION
_END_TYPE = {
    LocalTransactionState.COMMIT_MESSAGE: int(MessageSysFlag.TRANSACTION_COMMIT_TYPE),
    LocalTransactionState.ROLLBACK_MESSAGE: int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE),
    LocalTransactionState.UNKNOW: TRANSACTION_NOT_TYPE,
}


class RejectedExecutionError(RuntimeError):
    """The check executor's queue is full (Java: RejectedExecutionException from the AbortPolicy)."""


class CheckExecutor:
    """The check executor of a transactional producer: a task submitted when workers and queue are full is refused.

    ``max_threads`` workers and a queue of ``capacity``.

    Java: the ThreadPoolExecutor of DefaultMQProducerImpl#initTransactionEnv (a LinkedBlockingQueue of
    checkRequestHoldMax, AbortPolicy)
    """

    def __init__(self, executor: Executor, max_threads: int, capacity: int):
        self.executor = executor
        self.limit = max_threads + capacity
        self.waiting = 0  # queued or running
        self._lock = threading.Lock()

    def submit(self, fn: Callable[[], Any]) -> Any:
        """Queue ``fn``, or raise ``RejectedExecutionError``."""
        with self._lock:
            if self.waiting >= self.limit:
                raise RejectedExecutionError(f"check request queue full ({self.limit} queued or running)")
            self.waiting += 1

        def task() -> Any:
            try:
                return fn()
            finally:
                with self._lock:
                    self.waiting -= 1

        return self.executor.submit(task)

    def shutdown(self) -> None:
        """Refuse further tasks."""
        self.executor.shutdown()


def _clone_message(msg: Message) -> Message:
    """Topic, flag, body, a copy of the properties, transaction id. Java: MessageAccessor#cloneMessage."""
    clone = Message.bare()
    clone.topic = msg.topic
    clone.flag = msg.flag
    clone.body = msg.body
    if msg.properties is not None:
        for name, value in msg.properties.items():
            clone.put_property(name, value)
    clone.transaction_id = msg.transaction_id
    return clone


class DefaultMQProducerImpl:
    """The producer's engine; ``DefaultMQProducer`` forwards to it.

    Args:
        default_mq_producer: the facade, which is also the producer's configuration (a ProducerConfig).
        runtime: clock, scheduler, randomness, host identity, trace.
        rpc_hook: passed to the client instance.

    Attributes:
        topic_publish_info_table: topic → TopicPublishInfo (TBW102's entry is added at start).
        mq_client_factory: the MQClientInstance, set at start.
        mq_fault_strategy: queue selection and latency bookkeeping.
        service_state: CREATE_JUST → RUNNING → SHUTDOWN_ALREADY (START_FAILED if start raised).
    """

    def __init__(self, default_mq_producer: DefaultMQProducer, runtime: Runtime, rpc_hook: RPCHook | None = None):
        self.default_mq_producer = default_mq_producer
        self.runtime = runtime
        self.rpc_hook = rpc_hook
        self.topic_publish_info_table: dict[str, TopicPublishInfo] = {}
        self.default_async_sender_executor: Executor = runtime.scheduler.new_executor(
            "AsyncSenderExecutor_", REFERENCE_AVAILABLE_PROCESSORS
        )
        self.async_sender_executor: Executor | None = None
        self.service_state = ServiceState.CREATE_JUST
        self.mq_client_factory: MQClientInstance | None = None
        self.zip_compress_level = ZIP_COMPRESS_LEVEL
        self.mq_fault_strategy = MQFaultStrategy(runtime.now_ms, runtime.random)
        self.id_setter = MessageClientIDSetter.for_runtime(runtime)
        self.check_executor: CheckExecutor | Executor | None = None  # transactional producers only
        self.send_message_hook_list: list[SendMessageHook] = []
        self.end_transaction_hook_list: list[EndTransactionHook] = []

    def _trace(self, event: str, **fields: Any) -> None:
        self.runtime.trace_event(COMPONENT, event, **fields)

    @property
    def _factory(self) -> MQClientInstance:
        assert self.mq_client_factory is not None, "start() first"
        return self.mq_client_factory

    # -- life cycle ------------------------------------------------------------------------------------------
    def start(self, start_factory: bool = True, *, factory: MQClientInstance | None = None) -> None:
        """Check the group, get the client instance, register the group, start the instance, heartbeat.

        ``factory``: mqlab only; the instance starting its inner producer passes itself, so an instance made
        outside the manager does not make a second one.

        Java: DefaultMQProducerImpl#start(boolean)

        Raises:
            MQClientException: bad or duplicate group, or started before.
        """
        producer = self.default_mq_producer
        if self.service_state is not ServiceState.CREATE_JUST:
            raise MQClientException(f"The producer service state not OK, maybe started once, {self.service_state.name}")
        self.service_state = ServiceState.START_FAILED
        self.check_config()
        if producer.producer_group != mix_all.CLIENT_INNER_PRODUCER_GROUP:
            producer.change_instance_name_to_pid(self.runtime.host.pid, nano_time(self.runtime))
        if factory is None:
            factory = MQClientManager.get_instance(self.runtime).get_or_create_mq_client_instance(
                producer, self.rpc_hook
            )
        self.mq_client_factory = factory
        if not factory.register_producer(producer.producer_group, self):
            self.service_state = ServiceState.CREATE_JUST
            raise MQClientException(
                f"The producer group[{producer.producer_group}] has been created before, specify another name please."
            )
        self.topic_publish_info_table[producer.create_topic_key] = TopicPublishInfo(self.runtime.random)
        if start_factory:
            factory.start()
        self.service_state = ServiceState.RUNNING
        self._trace("start", group=producer.producer_group, clientId=factory.client_id)
        factory.send_heartbeat_to_all_broker_with_lock()

    def check_config(self) -> None:
        """A legal group other than ``DEFAULT_PRODUCER``. Java: DefaultMQProducerImpl#checkConfig."""
        group = self.default_mq_producer.producer_group
        validators.check_group(group)
        if group == mix_all.DEFAULT_PRODUCER_GROUP:
            raise MQClientException(
                f"producerGroup can not equal {mix_all.DEFAULT_PRODUCER_GROUP}, please specify another one."
            )

    def shutdown(self, shutdown_factory: bool = True) -> None:
        """Unregister the group (telling the brokers) and stop the instance if it has no other client.

        Java: DefaultMQProducerImpl#shutdown(boolean)
        """
        if self.service_state is not ServiceState.RUNNING:
            return
        factory = self._factory
        factory.unregister_producer(self.default_mq_producer.producer_group)
        self.default_async_sender_executor.shutdown()
        if shutdown_factory:
            factory.shutdown()
        self.service_state = ServiceState.SHUTDOWN_ALREADY
        self._trace("shutdown", group=self.default_mq_producer.producer_group)

    def make_sure_state_ok(self) -> None:
        """Java: DefaultMQProducerImpl#makeSureStateOK."""
        if self.service_state is not ServiceState.RUNNING:
            raise MQClientException(f"The producer service state not OK, {self.service_state.name}")

    def get_async_sender_executor(self) -> Executor:
        """The executor set by the user, else the default one. Java: #getAsyncSenderExecutor."""
        return (
            self.async_sender_executor if self.async_sender_executor is not None else self.default_async_sender_executor
        )

    # -- MQProducerInner -------------------------------------------------------------------------------------
    def get_publish_topic_list(self) -> set[str]:
        """Java: DefaultMQProducerImpl#getPublishTopicList."""
        return set(self.topic_publish_info_table)

    def is_publish_topic_need_update(self, topic: str) -> bool:
        """Java: DefaultMQProducerImpl#isPublishTopicNeedUpdate."""
        prev = self.topic_publish_info_table.get(topic)
        return prev is None or not prev.ok()

    def update_topic_publish_info(self, topic: str | None, info: TopicPublishInfo | None) -> None:
        """Java: DefaultMQProducerImpl#updateTopicPublishInfo."""
        if info is not None and topic is not None:
            self.topic_publish_info_table[topic] = info

    def is_unit_mode(self) -> bool:
        """Java: DefaultMQProducerImpl#isUnitMode."""
        return self.default_mq_producer.unit_mode

    # -- fault strategy --------------------------------------------------------------------------------------
    def select_one_message_queue(self, tp_info: TopicPublishInfo, last_broker_name: str | None) -> MessageQueue:
        """Java: DefaultMQProducerImpl#selectOneMessageQueue."""
        return self.mq_fault_strategy.select_one_message_queue(tp_info, last_broker_name)

    def update_fault_item(self, broker_name: str, current_latency: int, isolation: bool) -> None:
        """Java: DefaultMQProducerImpl#updateFaultItem."""
        self.mq_fault_strategy.update_fault_item(broker_name, current_latency, isolation)

    # -- the send entry points -------------------------------------------------------------------------------
    def send(
        self,
        msg: Message,
        *,
        mq: MessageQueue | None = None,
        selector: MessageQueueSelector | None = None,
        arg: Any = None,
        timeout: int | None = None,
    ) -> SendResult:
        """Synchronous send: by round robin, to ``mq``, or to the queue ``selector`` picks for ``arg``.

        Java: DefaultMQProducerImpl#send(Message, long), #send(Message, MessageQueue, long),
        #send(Message, MessageQueueSelector, Object, long)
        """
        timeout = self.default_mq_producer.send_msg_timeout if timeout is None else timeout
        if selector is not None:
            return self.send_select_impl(msg, selector, arg, CommunicationMode.SYNC, None, timeout)  # type: ignore[return-value]
        if mq is not None:
            begin = self.runtime.now_ms()
            self._check_for_queue(msg, mq)
            if timeout < self.runtime.now_ms() - begin:
                raise RemotingTooMuchRequestException("call timeout")
            return self.send_kernel_impl(msg, mq, CommunicationMode.SYNC, None, None, timeout)  # type: ignore[return-value]
        return self.send_default_impl(msg, CommunicationMode.SYNC, None, timeout)  # type: ignore[return-value]

    def send_async(
        self,
        msg: Message,
        send_callback: SendCallback,
        *,
        mq: MessageQueue | None = None,
        selector: MessageQueueSelector | None = None,
        arg: Any = None,
        timeout: int | None = None,
    ) -> None:
        """Asynchronous send: queued on the async sender executor; ``send_callback`` hears the outcome.

        Java: DefaultMQProducerImpl#send(Message, SendCallback, long) and its queue and selector variants
        """
        timeout = self.default_mq_producer.send_msg_timeout if timeout is None else timeout
        begin = self.runtime.now_ms()

        def task() -> None:
            try:
                cost = self.runtime.now_ms() - begin
                if timeout <= cost:
                    raise RemotingTooMuchRequestException("DEFAULT ASYNC send call timeout")
                try:
                    if selector is not None:
                        self.send_select_impl(
                            msg, selector, arg, CommunicationMode.ASYNC, send_callback, timeout - cost
                        )
                    elif mq is not None:
                        self._check_for_queue(msg, mq)
                        self.send_kernel_impl(msg, mq, CommunicationMode.ASYNC, send_callback, None, timeout - cost)
                    else:
                        self.send_default_impl(msg, CommunicationMode.ASYNC, send_callback, timeout - cost)
                except MQBrokerException as exc:
                    if selector is None and mq is None:
                        raise
                    raise MQClientException("unknown exception", cause=exc) from exc
            except Exception as exc:
                send_callback.on_exception(exc)

        try:
            self.get_async_sender_executor().submit(task)
        except RuntimeError as exc:
            raise MQClientException("executor rejected ", cause=exc) from exc

    def send_oneway(
        self,
        msg: Message,
        *,
        mq: MessageQueue | None = None,
        selector: MessageQueueSelector | None = None,
        arg: Any = None,
    ) -> None:
        """Send without waiting for an answer (no retry, no result).

        Java: DefaultMQProducerImpl#sendOneway (all three variants)
        """
        timeout = self.default_mq_producer.send_msg_timeout
        try:
            if selector is not None:
                self.send_select_impl(msg, selector, arg, CommunicationMode.ONEWAY, None, timeout)
            elif mq is not None:
                self._check_for_queue(msg, mq, topic_check=False)
                self.send_kernel_impl(msg, mq, CommunicationMode.ONEWAY, None, None, timeout)
            else:
                self.send_default_impl(msg, CommunicationMode.ONEWAY, None, timeout)
        except MQBrokerException as exc:
            raise MQClientException("unknown exception", cause=exc) from exc

    def _check_for_queue(self, msg: Message, mq: MessageQueue, *, topic_check: bool = True) -> None:
        self.make_sure_state_ok()
        validators.check_message(msg, self.default_mq_producer.max_message_size)
        if topic_check and msg.topic != mq.topic:
            raise MQClientException("message's topic not equal mq's topic")

    # -- sendDefaultImpl -------------------------------------------------------------------------------------
    def send_default_impl(
        self, msg: Message, communication_mode: CommunicationMode, send_callback: SendCallback | None, timeout: int
    ) -> SendResult | None:
        """Route, then attempts with queue selection and retries inside the ``timeout`` budget.

        Java: DefaultMQProducerImpl#sendDefaultImpl

        Raises:
            MQClientException: no route, or every attempt failed (code: broker code, 10001, 10002 or 10003).
            RemotingTooMuchRequestException: an attempt was due after the budget was spent.
            MQBrokerException: a broker code outside ``retryResponseCodes``.
        """
        self.make_sure_state_ok()
        validators.check_message(msg, self.default_mq_producer.max_message_size)
        begin_first = self.runtime.now_ms()
        self._trace("sendDefaultImpl", topic=msg.topic, mode=communication_mode.name, timeout=timeout)
        info = self.try_to_find_topic_publish_info(msg.topic or "")
        if info is None or not info.ok():
            self.validate_name_server_setting()
            raise MQClientException(
                f"No route info of this topic: {msg.topic}", client_error_code.NOT_FOUND_TOPIC_EXCEPTION
            )
        times_total = 1 + self.default_mq_producer.retry_times_when_send_failed
        if communication_mode is not CommunicationMode.SYNC:
            times_total = 1
        brokers_sent: list[str | None] = [None] * times_total
        mq: MessageQueue | None = None
        exception: Exception | None = None
        send_result: SendResult | None = None
        call_timeout = False
        times = 0
        while times < times_total:
            last_broker_name = mq.broker_name if mq is not None else None
            mq = self.select_one_message_queue(info, last_broker_name)
            brokers_sent[times] = mq.broker_name
            begin_prev = self.runtime.now_ms()
            cost = begin_prev - begin_first
            self._trace(
                "selectQueue",
                attempt=times + 1,
                queue=f"{mq.broker_name}:{mq.queue_id}",
                lastBroker=last_broker_name,
                elapsed=cost,
            )
            # Java gives up only when elapsed > timeout; mqlab also when it equals it. A timed-out attempt ends
            # exactly on its deadline in a simulation (virtual time does not pass while code runs), and Java's test
            # would then send another attempt with 0 ms left, after writing it to a broker that stores it.
            if timeout <= cost:
                call_timeout = True
                break
            try:
                send_result = self.send_kernel_impl(msg, mq, communication_mode, send_callback, info, timeout - cost)
                self.update_fault_item(mq.broker_name, self.runtime.now_ms() - begin_prev, False)
                if communication_mode is not CommunicationMode.SYNC:
                    return None
                assert send_result is not None
                if (
                    send_result.send_status is not SendStatus.SEND_OK
                    and self.default_mq_producer.retry_another_broker_when_not_store_ok
                ):
                    self._trace("retry", attempt=times + 1, reason=send_result.send_status.name)
                    times += 1
                    continue
                return send_result
            except (RemotingException, MQClientException) as exc:
                self.update_fault_item(mq.broker_name, self.runtime.now_ms() - begin_prev, True)
                exception = exc
                self._trace("attemptFailed", attempt=times + 1, broker=mq.broker_name, error=_describe(exc))
            except MQBrokerException as exc:
                self.update_fault_item(mq.broker_name, self.runtime.now_ms() - begin_prev, True)
                exception = exc
                self._trace("attemptFailed", attempt=times + 1, broker=mq.broker_name, error=_describe(exc))
                if exc.response_code not in self.default_mq_producer.retry_response_codes:
                    if send_result is not None:
                        return send_result
                    raise
            times += 1
        if send_result is not None:
            return send_result
        return self._all_attempts_failed(msg, times, begin_first, brokers_sent, exception, call_timeout)

    def _all_attempts_failed(
        self,
        msg: Message,
        times: int,
        begin_first: int,
        brokers_sent: list[str | None],
        exception: Exception | None,
        call_timeout: bool,
    ) -> SendResult:
        """The exception that ends a send whose attempts all failed (the tail of Java's sendDefaultImpl)."""
        cost = self.runtime.now_ms() - begin_first
        sent = "[" + ", ".join("null" if b is None else b for b in brokers_sent) + "]"
        info = f"Send [{times}] times, still failed, cost [{cost}]ms, Topic: {msg.topic}, BrokersSent: {sent}"
        self._trace("sendFailed", times=times, cost=cost, brokersSent=sent, callTimeout=call_timeout)
        if call_timeout:
            raise RemotingTooMuchRequestException("sendDefaultImpl call timeout")
        code = -1
        if isinstance(exception, MQBrokerException):
            code = exception.response_code
        elif isinstance(exception, RemotingConnectException):
            code = client_error_code.CONNECT_BROKER_EXCEPTION
        elif isinstance(exception, RemotingTimeoutException):
            code = client_error_code.ACCESS_BROKER_TIMEOUT
        elif isinstance(exception, MQClientException):
            code = client_error_code.BROKER_NOT_EXIST_EXCEPTION
        raise MQClientException(info, code, cause=exception)

    def validate_name_server_setting(self) -> None:
        """Java: DefaultMQProducerImpl#validateNameServerSetting."""
        ns_list = self._factory.mq_client_api_impl.get_name_server_address_list()
        if not ns_list:
            raise MQClientException(
                "No name server address, please set it.", client_error_code.NO_NAME_SERVER_EXCEPTION
            )

    def try_to_find_topic_publish_info(self, topic: str) -> TopicPublishInfo | None:
        """The cached publish info; else the topic's route; else the route of ``createTopicKey`` (TBW102).

        Java: DefaultMQProducerImpl#tryToFindTopicPublishInfo
        """
        info = self.topic_publish_info_table.get(topic)
        if info is None or not info.ok():
            self.topic_publish_info_table.setdefault(topic, TopicPublishInfo(self.runtime.random))
            self._trace("routeLookup", topic=topic, source="nameserver")
            self._factory.update_topic_route_info_from_name_server(topic)
            info = self.topic_publish_info_table.get(topic)
        assert info is not None
        if info.have_topic_router_info or info.ok():
            return info
        self._trace("routeLookup", topic=topic, source=self.default_mq_producer.create_topic_key)
        self._factory.update_topic_route_info_from_name_server(topic, True, self.default_mq_producer)
        return self.topic_publish_info_table.get(topic)

    # -- sendKernelImpl --------------------------------------------------------------------------------------
    def send_kernel_impl(
        self,
        msg: Message,
        mq: MessageQueue,
        communication_mode: CommunicationMode,
        send_callback: SendCallback | None,
        topic_publish_info: TopicPublishInfo | None,
        timeout: int,
    ) -> SendResult | None:
        """One attempt: address, UNIQ_KEY, compression, sysflag, header, then ``MQClientAPIImpl.send_message``.

        Java: DefaultMQProducerImpl#sendKernelImpl

        Raises:
            MQClientException: the queue's broker has no known master.
            RemotingTooMuchRequestException: ``timeout`` was spent before the request left.
        """
        begin = self.runtime.now_ms()
        factory = self._factory
        broker_addr = factory.find_broker_address_in_publish(mq.broker_name)
        if broker_addr is None:
            self.try_to_find_topic_publish_info(mq.topic)
            broker_addr = factory.find_broker_address_in_publish(mq.broker_name)
        if broker_addr is None:
            raise MQClientException(f"The broker[{mq.broker_name}] not exist")
        producer = self.default_mq_producer
        broker_addr = mix_all.broker_vip_channel(producer.vip_channel_enabled, broker_addr)
        prev_body = msg.body
        context: SendMessageContext | None = None
        try:
            if not isinstance(msg, MessageBatch):
                self.id_setter.set_uniq_id(msg)  # only if absent: a retry keeps the first id
            sys_flag = 0
            compressed = self.try_to_compress_message(msg)
            if compressed:
                sys_flag |= MessageSysFlag.COMPRESSED_FLAG
            if (msg.get_property(mc.PROPERTY_TRANSACTION_PREPARED) or "").lower() == "true":
                sys_flag |= MessageSysFlag.TRANSACTION_PREPARED_TYPE
            context = self._send_message_hook_before(msg, mq, broker_addr, communication_mode)
            header = self._request_header(msg, mq, int(sys_flag))
            self._trace(
                "sendKernelImpl",
                addr=broker_addr,
                queue=f"{mq.broker_name}:{mq.queue_id}",
                uniqKey=MessageClientIDSetter.get_uniq_id(msg) if not isinstance(msg, MessageBatch) else "(batch)",
                sysFlag=int(sys_flag),
                bodyBytes=len(msg.body or b""),
            )
            api = factory.mq_client_api_impl
            if communication_mode is CommunicationMode.ASYNC:
                to_send = msg
                if compressed:
                    # The callback runs later: send a copy with the compressed body, give the caller its own back.
                    to_send = _clone_message(msg)
                    msg.body = prev_body
                cost = self.runtime.now_ms() - begin
                if timeout < cost:
                    raise RemotingTooMuchRequestException("sendKernelImpl call timeout")
                send_result = api.send_message(
                    broker_addr,
                    mq.broker_name,
                    to_send,
                    header,
                    timeout - cost,
                    communication_mode,
                    send_callback,
                    topic_publish_info,
                    factory,
                    producer.retry_times_when_send_async_failed,
                    context,
                    self,
                )
            else:
                cost = self.runtime.now_ms() - begin
                if timeout < cost:
                    raise RemotingTooMuchRequestException("sendKernelImpl call timeout")
                send_result = api.send_message(
                    broker_addr,
                    mq.broker_name,
                    msg,
                    header,
                    timeout - cost,
                    communication_mode,
                    context=context,
                    producer=self,
                )
            if context is not None:  # an async send has no result yet: the hook hears it again from the callback
                context.send_result = send_result
                self.execute_send_message_hook_after(context)
            return send_result
        except (RemotingException, MQBrokerException) as exc:
            if context is not None:
                context.exception = exc
                self.execute_send_message_hook_after(context)
            raise
        finally:
            msg.body = prev_body

    # -- send-message hooks (message traces) ----------------------------------------------------------------
    def register_send_message_hook(self, hook: SendMessageHook) -> None:
        """Java: DefaultMQProducerImpl#registerSendMessageHook."""
        self.send_message_hook_list.append(hook)

    def has_send_message_hook(self) -> bool:
        """Java: DefaultMQProducerImpl#hasSendMessageHook."""
        return bool(self.send_message_hook_list)

    def execute_send_message_hook_before(self, context: SendMessageContext) -> None:
        """Every hook's before-call; a hook's failure is only recorded. Java: #executeSendMessageHookBefore."""
        for hook in self.send_message_hook_list:
            try:
                hook.send_message_before(context)
            except Exception as exc:  # Java logs "failed to executeSendMessageHookBefore"
                self._trace("sendMessageHookFailed", hook=hook.hook_name(), error=repr(exc))

    def execute_send_message_hook_after(self, context: SendMessageContext) -> None:
        """Every hook's after-call; a hook's failure is only recorded. Java: #executeSendMessageHookAfter."""
        for hook in self.send_message_hook_list:
            try:
                hook.send_message_after(context)
            except Exception as exc:  # Java logs "failed to executeSendMessageHookAfter"
                self._trace("sendMessageHookFailed", hook=hook.hook_name(), error=repr(exc))

    def _send_message_hook_before(
        self, msg: Message, mq: MessageQueue, broker_addr: str, communication_mode: CommunicationMode
    ) -> SendMessageContext | None:
        """The attempt's SendMessageContext after the before-hooks ran (None without hooks).

        The message type is Trans_Msg_Half for a prepared message, Delay_Msg when a delay level or
        ``__STARTDELIVERTIME`` is set (the later test wins), else Normal_Msg.

        Java: the hook block of DefaultMQProducerImpl#sendKernelImpl
        """
        if not self.has_send_message_hook():
            return None
        context = SendMessageContext(
            producer=self,
            producer_group=self.default_mq_producer.producer_group,
            communication_mode=communication_mode,
            born_host=self.default_mq_producer.client_ip,
            broker_addr=broker_addr,
            message=msg,
            mq=mq,
        )
        if msg.get_property(mc.PROPERTY_TRANSACTION_PREPARED) == "true":
            context.msg_type = MessageType.Trans_Msg_Half
        delayed = msg.get_property(START_DELIVER_TIME) is not None
        if delayed or msg.get_property(mc.PROPERTY_DELAY_TIME_LEVEL) is not None:
            context.msg_type = MessageType.Delay_Msg
        self.execute_send_message_hook_before(context)
        return context

    def _request_header(self, msg: Message, mq: MessageQueue, sys_flag: int) -> SendMessageRequestHeader:
        """The send header; for a retry topic the reconsume counters move from properties to ``j`` / ``l``.

        Java computes the properties string first and clears the two properties afterwards, so they still travel
        in ``i``; mqlab keeps that order.
        """
        producer = self.default_mq_producer
        header = SendMessageRequestHeader(
            producer_group=producer.producer_group,
            topic=msg.topic,
            default_topic=producer.create_topic_key,
            default_topic_queue_nums=producer.default_topic_queue_nums,
            queue_id=mq.queue_id,
            sys_flag=sys_flag,
            born_timestamp=self.runtime.now_ms(),
            flag=msg.flag,
            properties=message_properties2string(msg.properties),
            reconsume_times=0,
            unit_mode=self.is_unit_mode(),
            batch=isinstance(msg, MessageBatch),
        )
        if (header.topic or "").startswith(mix_all.RETRY_GROUP_TOPIC_PREFIX):
            reconsume_times = msg.get_property(mc.PROPERTY_RECONSUME_TIME)
            if reconsume_times is not None:
                header.reconsume_times = int(reconsume_times)
                msg.clear_property(mc.PROPERTY_RECONSUME_TIME)
            max_reconsume_times = msg.get_property(mc.PROPERTY_MAX_RECONSUME_TIMES)
            if max_reconsume_times is not None:
                header.max_reconsume_times = int(max_reconsume_times)
                msg.clear_property(mc.PROPERTY_MAX_RECONSUME_TIMES)
        return header

    def try_to_compress_message(self, msg: Message) -> bool:
        """Compress a non-batch body of at least ``compressMsgBodyOverHowmuch`` bytes in place (zlib, level 5).

        Java: DefaultMQProducerImpl#tryToCompressMessage
        """
        if isinstance(msg, MessageBatch) or msg.body is None:
            return False
        if len(msg.body) >= self.default_mq_producer.compress_msg_body_over_howmuch:
            msg.body = util_all.compress(msg.body, self.zip_compress_level)
            return True
        return False

    # -- sendSelectImpl --------------------------------------------------------------------------------------
    def send_select_impl(
        self,
        msg: Message,
        selector: MessageQueueSelector | Callable[..., MessageQueue | None],
        arg: Any,
        communication_mode: CommunicationMode,
        send_callback: SendCallback | None,
        timeout: int,
    ) -> SendResult | None:
        """One attempt to the queue ``selector.select(queues, msg, arg)`` names (no retry: order would break).

        Java: DefaultMQProducerImpl#sendSelectImpl
        """
        begin = self.runtime.now_ms()
        self.make_sure_state_ok()
        validators.check_message(msg, self.default_mq_producer.max_message_size)
        info = self.try_to_find_topic_publish_info(msg.topic or "")
        if info is None or not info.ok():
            self.validate_name_server_setting()
            raise MQClientException(f"No route info for this topic, {msg.topic}")
        try:
            queues = self._factory.mq_admin_impl.parse_publish_message_queues(info.message_queue_list)
            select = getattr(selector, "select", selector)
            mq = select(queues, _clone_message(msg), arg)
        except Exception as exc:
            raise MQClientException("select message queue threw exception.", cause=exc) from exc
        self._trace(
            "selectQueue",
            selector=type(selector).__name__,
            arg=arg,
            queue=None if mq is None else f"{mq.broker_name}:{mq.queue_id}",
        )
        cost = self.runtime.now_ms() - begin
        if timeout < cost:
            raise RemotingTooMuchRequestException("sendSelectImpl call timeout")
        if mq is None:
            raise MQClientException("select message queue return null.")
        return self.send_kernel_impl(msg, mq, communication_mode, send_callback, None, timeout - cost)

    # -- transactions ----------------------------------------------------------------------------------------
    def init_transaction_env(self) -> None:
        """Make the check executor: the producer's ``executor_service`` if set, else a bounded one.

        The bounded one grows as 4.9.3's ``ThreadPoolExecutor`` does: ``check_thread_pool_min_size`` (1) core
        threads, then a queue of ``check_request_hold_max`` (2000), then more threads up to
        ``check_thread_pool_max_size`` (1) once the queue is full, and a task beyond all that is refused
        (AUDIT-13).

        Java: DefaultMQProducerImpl#initTransactionEnv
        """
        producer: Any = self.default_mq_producer
        if getattr(producer, "executor_service", None) is not None:
            self.check_executor = producer.executor_service
        else:
            threads, capacity = producer.check_thread_pool_max_size, producer.check_request_hold_max
            executor = self.runtime.scheduler.new_executor(
                "TransactionCheckThread_",
                threads,
                core_threads=producer.check_thread_pool_min_size,
                queue_capacity=capacity,
            )
            self.check_executor = CheckExecutor(executor, threads, capacity)

    def destroy_transaction_env(self) -> None:
        """Java: DefaultMQProducerImpl#destroyTransactionEnv."""
        if self.check_executor is not None:
            self.check_executor.shutdown()

    def get_check_listener(self) -> TransactionListener | None:
        """The producer's TransactionListener (a TransactionMQProducer's), else None.

        Java: DefaultMQProducerImpl#getCheckListener
        """
        return getattr(self.default_mq_producer, "transaction_listener", None)

    def send_message_in_transaction(self, msg: Message, arg: Any = None) -> TransactionSendResult:
        """Send ``msg`` as a half message, run the local transaction, end it with END_TRANSACTION (oneway).

        Steps, in Java's order: a listener is required; a delay level is dropped; the message is checked;
        TRAN_MSG=true and PGROUP are put; a plain synchronous send (retries included); on SEND_OK the listener's
        ``execute_local_transaction`` (None or an exception counts as UNKNOW); a flush/slave status rolls back
        without running it; then ``end_transaction`` (its failure is only traced).

        Java: DefaultMQProducerImpl#sendMessageInTransaction

        Raises:
            MQClientException: no listener ("tranExecutor is null"), a bad message, or the half message could
                not be sent ("send message Exception").
        """
        listener = self.get_check_listener()
        if listener is None:
            raise MQClientException("tranExecutor is null")
        if msg.get_delay_time_level() != 0:
            msg.clear_property(mc.PROPERTY_DELAY_TIME_LEVEL)  # transactional messages cannot be delayed
        validators.check_message(msg, self.default_mq_producer.max_message_size)
        msg.put_property(mc.PROPERTY_TRANSACTION_PREPARED, "true")
        msg.put_property(mc.PROPERTY_PRODUCER_GROUP, self.default_mq_producer.producer_group or "")
        self._trace("sendMessageInTransaction", topic=msg.topic, group=self.default_mq_producer.producer_group)
        try:
            send_result = self.send(msg)
        except Exception as exc:
            raise MQClientException("send message Exception", cause=exc) from exc
        state = LocalTransactionState.UNKNOW
        local_exception: BaseException | None = None
        if send_result.send_status is SendStatus.SEND_OK:
            state, local_exception = self._execute_local_transaction(listener, msg, arg, send_result)
        elif send_result.send_status in (
            SendStatus.FLUSH_DISK_TIMEOUT,
            SendStatus.FLUSH_SLAVE_TIMEOUT,
            SendStatus.SLAVE_NOT_AVAILABLE,
        ):
            state = LocalTransactionState.ROLLBACK_MESSAGE
        try:
            self.end_transaction(msg, send_result, state, local_exception)
        except Exception as exc:  # Java: log.warn("local transaction execute ..., but end broker transaction failed")
            self._trace("endTransactionFailed", state=state.name, error=_describe(exc))
        return TransactionSendResult(
            send_status=send_result.send_status,
            msg_id=send_result.msg_id,
            message_queue=send_result.message_queue,
            queue_offset=send_result.queue_offset,
            transaction_id=send_result.transaction_id,
            local_transaction_state=state,
        )

    def _execute_local_transaction(
        self, listener: TransactionListener, msg: Message, arg: Any, send_result: SendResult
    ) -> tuple[LocalTransactionState, BaseException | None]:
        """The SEND_OK branch: transaction id from UNIQ_KEY, then the listener; (state, exception it raised)."""
        try:
            if send_result.transaction_id is not None:
                msg.put_user_property("__transactionId__", send_result.transaction_id)
            transaction_id = msg.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
            if transaction_id:
                msg.transaction_id = transaction_id
            state = listener.execute_local_transaction(msg, arg)
            if state is None:
                state = LocalTransactionState.UNKNOW
            self._trace("executeLocalTransaction", transactionId=msg.transaction_id, state=state.name)
            return state, None
        except Exception as exc:  # Java catches Throwable: the state stays UNKNOW
            self._trace("executeLocalTransaction", transactionId=msg.transaction_id, error=_describe(exc))
            return LocalTransactionState.UNKNOW, exc

    def end_transaction(
        self,
        msg: Message,
        send_result: SendResult,
        local_transaction_state: LocalTransactionState,
        local_exception: BaseException | None,
    ) -> None:
        """END_TRANSACTION (oneway) to the half message's broker with the decision.

        The header names the half record: its commitlog offset (decoded from ``offsetMsgId``, else ``msgId``) and
        its queue offset in RMQ_SYS_TRANS_HALF_TOPIC (``send_result.queue_offset``).

        Java: DefaultMQProducerImpl#endTransaction
        """
        message_id = decode_message_id(
            send_result.offset_msg_id if send_result.offset_msg_id is not None else send_result.msg_id or ""
        )
        assert send_result.message_queue is not None
        broker_addr = self._factory.find_broker_address_in_publish(send_result.message_queue.broker_name)
        header = EndTransactionRequestHeader(
            producer_group=self.default_mq_producer.producer_group,
            tran_state_table_offset=send_result.queue_offset,
            commit_log_offset=message_id.offset,
            commit_or_rollback=_END_TYPE[local_transaction_state],
            from_transaction_check=False,
            msg_id=send_result.msg_id,
            transaction_id=send_result.transaction_id,
        )
        # Java: "executeLocalTransactionBranch exception: " + exception.toString()
        remark = (
            f"executeLocalTransactionBranch exception: {_java_to_string(local_exception)}"
            if local_exception is not None
            else None
        )
        self.do_execute_end_transaction_hook(
            msg, send_result.msg_id, broker_addr, local_transaction_state, from_transaction_check=False
        )
        self._trace(
            "endTransaction",
            addr=broker_addr,
            state=local_transaction_state.name,
            commitLogOffset=header.commit_log_offset,
            tranStateTableOffset=header.tran_state_table_offset,
        )
        self._factory.mq_client_api_impl.end_transaction_oneway(
            broker_addr, header, remark, self.default_mq_producer.send_msg_timeout
        )

    def check_transaction_state(self, addr: str, msg: MessageExt, header: CheckTransactionStateRequestHeader) -> None:
        """Queue the answer to a broker's check on the check executor.

        The task asks the listener's ``check_local_transaction`` (an exception counts as UNKNOW, with a remark)
        and sends END_TRANSACTION (fromTransactionCheck=true, oneway, 3 s) to the broker that asked, with the
        check's offsets.

        Java: DefaultMQProducerImpl#checkTransactionState

        Raises:
            RejectedExecutionError: the check executor's queue is full (the check is dropped).
        """
        group = self.default_mq_producer.producer_group

        def run() -> None:
            listener = self.get_check_listener()
            if listener is None:
                self._trace("checkTransactionStateNoListener", group=group)
                return
            state = LocalTransactionState.UNKNOW
            exception: BaseException | None = None
            try:
                answer = listener.check_local_transaction(msg)
                state = answer if answer is not None else LocalTransactionState.UNKNOW
            except Exception as exc:  # Java catches Throwable
                exception = exc
            self._process_transaction_state(addr, msg, header, state, group, exception)

        assert self.check_executor is not None, "a transactional producer: start() first"
        self.check_executor.submit(run)

    def _process_transaction_state(
        self,
        addr: str,
        msg: MessageExt,
        check_header: CheckTransactionStateRequestHeader,
        state: LocalTransactionState,
        producer_group: str | None,
        exception: BaseException | None,
    ) -> None:
        """The END_TRANSACTION that answers a check.

        Java: the processTransactionState step of DefaultMQProducerImpl#checkTransactionState
        """
        unique_key = (msg.properties or {}).get(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
        if unique_key is None:
            unique_key = msg.msg_id
        header = EndTransactionRequestHeader(
            producer_group=producer_group,
            tran_state_table_offset=check_header.tran_state_table_offset,
            commit_log_offset=check_header.commit_log_offset,
            commit_or_rollback=_END_TYPE[state],
            from_transaction_check=True,
            msg_id=unique_key,
            transaction_id=check_header.transaction_id,
        )
        remark = (
            f"checkLocalTransactionState Exception: {exception_simple_desc(exception)}"
            if exception is not None
            else None
        )
        self._trace("checkLocalTransaction", addr=addr, msgId=unique_key, state=state.name)
        self.do_execute_end_transaction_hook(msg, unique_key, addr, state, from_transaction_check=True)
        try:
            self._factory.mq_client_api_impl.end_transaction_oneway(addr, header, remark, CHECK_ANSWER_TIMEOUT_MILLIS)
        except Exception as exc:  # Java: log.error("endTransactionOneway exception", e)
            self._trace("endTransactionOnewayFailed", error=_describe(exc))

    # -- end-transaction hooks (message traces) -------------------------------------------------------------
    def register_end_transaction_hook(self, hook: EndTransactionHook) -> None:
        """Java: DefaultMQProducerImpl#registerEndTransactionHook."""
        self.end_transaction_hook_list.append(hook)

    def has_end_transaction_hook(self) -> bool:
        """Java: DefaultMQProducerImpl#hasEndTransactionHook."""
        return bool(self.end_transaction_hook_list)

    def execute_end_transaction_hook(self, context: EndTransactionContext) -> None:
        """Every hook, in order; a hook's failure is only recorded. Java: #executeEndTransactionHook."""
        for hook in self.end_transaction_hook_list:
            try:
                hook.end_transaction(context)
            except Exception as exc:  # Java logs "failed to executeEndTransactionHook"
                self._trace("endTransactionHookFailed", hook=hook.hook_name(), error=repr(exc))

    def do_execute_end_transaction_hook(
        self,
        msg: Message,
        msg_id: str | None,
        broker_addr: str | None,
        state: LocalTransactionState,
        *,
        from_transaction_check: bool,
    ) -> None:
        """Tell the hooks about a decision about to be sent. Java: DefaultMQProducerImpl#doExecuteEndTransactionHook."""
        if not self.has_end_transaction_hook():
            return
        context = EndTransactionContext(
            producer_group=self.default_mq_producer.producer_group,
            broker_addr=broker_addr,
            message=msg,
            msg_id=msg_id,
            transaction_id=msg.transaction_id,
            transaction_state=state,
            from_transaction_check=from_transaction_check,
        )
        self.execute_end_transaction_hook(context)

    # -- admin -----------------------------------------------------------------------------------------------
    def create_topic(self, key: str, new_topic: str, queue_num: int, topic_sys_flag: int = 0) -> None:
        """Java: DefaultMQProducerImpl#createTopic."""
        self.make_sure_state_ok()
        validators.check_topic(new_topic)
        validators.is_system_topic(new_topic)
        self._factory.mq_admin_impl.create_topic(key, new_topic, queue_num, topic_sys_flag)

    def fetch_publish_message_queues(self, topic: str) -> list[MessageQueue]:
        """Java: DefaultMQProducerImpl#fetchPublishMessageQueues."""
        self.make_sure_state_ok()
        return self._factory.mq_admin_impl.fetch_publish_message_queues(topic)

    def search_offset(self, mq: MessageQueue, timestamp: int) -> int:
        """Java: DefaultMQProducerImpl#searchOffset."""
        self.make_sure_state_ok()
        return self._factory.mq_admin_impl.search_offset(mq, timestamp)

    def max_offset(self, mq: MessageQueue) -> int:
        """Java: DefaultMQProducerImpl#maxOffset."""
        self.make_sure_state_ok()
        return self._factory.mq_admin_impl.max_offset(mq)

    def min_offset(self, mq: MessageQueue) -> int:
        """Java: DefaultMQProducerImpl#minOffset."""
        self.make_sure_state_ok()
        return self._factory.mq_admin_impl.min_offset(mq)

    def earliest_msg_store_time(self, mq: MessageQueue) -> int:
        """Java: DefaultMQProducerImpl#earliestMsgStoreTime."""
        self.make_sure_state_ok()
        return self._factory.mq_admin_impl.earliest_msg_store_time(mq)

    def view_message(self, msg_id: str) -> MessageExt:
        """Java: DefaultMQProducerImpl#viewMessage."""
        self.make_sure_state_ok()
        return self._factory.mq_admin_impl.view_message(msg_id)


def _java_to_string(exc: BaseException) -> str:
    """``Throwable#toString``: the class name, then ": message" when there is one."""
    message = str(exc)
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _describe(exc: BaseException) -> str:
    code = getattr(exc, "response_code", None)
    return f"{type(exc).__name__}({code})" if code is not None else type(exc).__name__

"""Every request a producer, consumer or admin tool sends, one method per request code.

Each method builds one RemotingCommand (typed header, fastjson body), sends it on the client's NettyRemotingClient
(to a broker address, or with ``addr=None`` to a name server) and turns the answer into a Python value or an
exception: a broker's error code becomes ``MQBrokerException`` (``MQClientException`` for name-server answers and
topic creation, as in Java), a transport failure stays a ``RemotingException``.

Two calls carry more logic than that:

* ``send_message``: SEND_MESSAGE_V2 (310) with the one-letter header, or SEND_BATCH_MESSAGE (320) for a
  ``MessageBatch``; SYNC, ASYNC or ONEWAY. ``process_send_response`` maps the broker's code to a ``SendStatus``
  (SUCCESS, FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT, SLAVE_NOT_AVAILABLE) or raises ``MQBrokerException``; the
  result's ``msg_id`` is the message's UNIQ_KEY and ``offset_msg_id`` the broker's id. An ASYNC send that fails is
  retried from the response callback (``on_exception_impl``) on a queue that avoids the failed broker, with a new
  opaque, up to ``retryTimesWhenSendAsyncFailed`` times.
* ``pull_message``: PULL_MESSAGE (11), SYNC or ASYNC; ``process_pull_response`` maps SUCCESS → FOUND,
  PULL_NOT_FOUND → NO_NEW_MSG, PULL_RETRY_IMMEDIATELY → NO_MATCHED_MSG, PULL_OFFSET_MOVED → OFFSET_ILLEGAL and
  keeps the body undecoded for ``PullAPIWrapper``.

Opaques come from the node's ``RequestIdGenerator`` (Java: one static counter per JVM); every request carries
version 399 (``MQVersion.CURRENT_VERSION`` of 4.9.3, which Java sets as a system property in this class's static
initialiser).

Java: org.apache.rocketmq.client.impl.MQClientAPIImpl (rocketmq-all-4.9.3)
Left out: the address server (``fetchNameServerAddr``), request-reply (SEND_REPLY_MESSAGE*), transactions
(END_TRANSACTION), ACL, filter servers, KV config and the rarer admin calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from mqlab.client.consumer.pull_status import PullStatus
from mqlab.client.exception.mq_broker_exception import MQBrokerException
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.impl.communication_mode import CommunicationMode
from mqlab.client.impl.consumer.pull_result_ext import PullResultExt
from mqlab.client.producer.send_result import SendResult
from mqlab.client.producer.send_status import SendStatus
from mqlab.common import mix_all
from mqlab.common.admin.consume_stats import ConsumeStats
from mqlab.common.admin.topic_stats_table import TopicStatsTable
from mqlab.common.jdk.atomic import AtomicInteger
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message import message_const as mc
from mqlab.common.message import message_decoder
from mqlab.common.message.message_batch import MessageBatch
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.body.check_client_request_body import CheckClientRequestBody
from mqlab.common.protocol.body.cluster_info import ClusterInfo
from mqlab.common.protocol.body.consume_message_directly_result import ConsumeMessageDirectlyResult
from mqlab.common.protocol.body.consumer_connection import ConsumerConnection
from mqlab.common.protocol.body.consumer_running_info import ConsumerRunningInfo
from mqlab.common.protocol.body.get_consumer_list_by_group_response_body import GetConsumerListByGroupResponseBody
from mqlab.common.protocol.body.group_list import GroupList
from mqlab.common.protocol.body.kv_table import KVTable
from mqlab.common.protocol.body.lock_batch_response_body import LockBatchResponseBody
from mqlab.common.protocol.body.producer_connection import ProducerConnection
from mqlab.common.protocol.body.query_consume_queue_response_body import QueryConsumeQueueResponseBody
from mqlab.common.protocol.body.query_consume_time_span_body import QueryConsumeTimeSpanBody
from mqlab.common.protocol.body.queue_time_span import QueueTimeSpan
from mqlab.common.protocol.body.reset_offset_body import ResetOffsetBody
from mqlab.common.protocol.body.topic_list import TopicList
from mqlab.common.protocol.header import broker_headers as bh
from mqlab.common.protocol.header.namesrv.headers import DeleteTopicFromNamesrvRequestHeader, GetRouteInfoRequestHeader
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.protocol.route.broker_data import BrokerData
from mqlab.common.protocol.route.topic_route_data import TopicRouteData
from mqlab.remoting.exception.remoting_exception import RemotingException
from mqlab.remoting.exception.remoting_too_much_request_exception import RemotingTooMuchRequestException
from mqlab.remoting.netty.netty_remoting_client import NettyRemotingClient
from mqlab.remoting.protocol import remoting_serializable
from mqlab.remoting.protocol.language_code import LanguageCode
from mqlab.remoting.protocol.remoting_command import RemotingCommand, RequestIdGenerator

if TYPE_CHECKING:
    from mqlab.client.client_config import ClientConfig
    from mqlab.client.impl.client_remoting_processor import ClientRemotingProcessor
    from mqlab.client.impl.factory.mq_client_instance import MQClientInstance
    from mqlab.client.impl.producer.default_mq_producer_impl import DefaultMQProducerImpl
    from mqlab.client.impl.producer.topic_publish_info import TopicPublishInfo
    from mqlab.client.producer.send_callback import SendCallback
    from mqlab.common.message.message import Message
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.mix_all import Properties
    from mqlab.common.protocol.body.lock_batch_request_body import LockBatchRequestBody
    from mqlab.common.protocol.body.unlock_batch_request_body import UnlockBatchRequestBody
    from mqlab.common.protocol.heartbeat.heartbeat_data import HeartbeatData
    from mqlab.common.subscription.subscription_group_config import SubscriptionGroupConfig
    from mqlab.common.topic_config import TopicConfig
    from mqlab.remoting.netty.netty_client_config import NettyClientConfig
    from mqlab.remoting.netty.response_future import ResponseFuture
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.runtime.runtime import Runtime

COMPONENT = "MQClientAPIImpl"
# processSendResponse's switch: the codes that still mean "stored", keyed by plain int (an enum member as a dict
# key hashes through Python code).
_SEND_STATUS_OF_CODE = {
    int(ResponseCode.FLUSH_DISK_TIMEOUT): SendStatus.FLUSH_DISK_TIMEOUT,
    int(ResponseCode.FLUSH_SLAVE_TIMEOUT): SendStatus.FLUSH_SLAVE_TIMEOUT,
    int(ResponseCode.SLAVE_NOT_AVAILABLE): SendStatus.SLAVE_NOT_AVAILABLE,
    int(ResponseCode.SUCCESS): SendStatus.SEND_OK,
}
# Java: the static sendSmartMsg (system property org.apache.rocketmq.client.sendSmartMsg, default true): single sends
# use SEND_MESSAGE_V2 and its one-letter header; false falls back to SEND_MESSAGE (10) with the long names.
SEND_SMART_MSG = True
# Broker→client requests the client registers its processor for (MQClientAPIImpl's constructor).
CLIENT_REQUEST_CODES = (
    RequestCode.CHECK_TRANSACTION_STATE,
    RequestCode.NOTIFY_CONSUMER_IDS_CHANGED,
    RequestCode.RESET_CONSUMER_CLIENT_OFFSET,
    RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT,
    RequestCode.GET_CONSUMER_RUNNING_INFO,
    RequestCode.CONSUME_MESSAGE_DIRECTLY,
    RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT,
)


class PullCallback(Protocol):
    """What an ASYNC pull calls back with (Java: org.apache.rocketmq.client.consumer.PullCallback)."""

    def on_success(self, pull_result: Any) -> None:
        """The broker answered; ``pull_result`` is a ``PullResultExt`` with the raw body."""
        ...

    def on_exception(self, e: BaseException) -> None:
        """The pull failed (error code, timeout, failed send)."""
        ...


class MQClientAPIImpl:
    """The client's request layer over one ``NettyRemotingClient``.

    Args:
        netty_client_config: the remoting client's settings.
        client_remoting_processor: handles the requests brokers send to this client.
        runtime: clock, network, opaques, trace.
        client_config: ``mq_client_api_timeout``, ``vip_channel_enabled``, ``language``.
        rpc_hook: called around every request (Java's ACL hook slot).
    """

    def __init__(
        self,
        netty_client_config: NettyClientConfig,
        client_remoting_processor: ClientRemotingProcessor | None,
        runtime: Runtime,
        client_config: ClientConfig,
        rpc_hook: RPCHook | None = None,
    ):
        self.runtime = runtime
        self.client_config = client_config
        self.remoting_client = NettyRemotingClient(netty_client_config, runtime)
        self.client_remoting_processor = client_remoting_processor
        self.remoting_client.register_rpc_hook(rpc_hook)
        if client_remoting_processor is not None:
            for code in CLIENT_REQUEST_CODES:
                self.remoting_client.register_processor(code, client_remoting_processor, None)

    # -- plumbing --------------------------------------------------------------------------------------------
    def _request(self, code: int, header: Any = None, body: bytes | None = None) -> RemotingCommand:
        """A request with the node's next opaque. Java: RemotingCommand#createRequestCommand."""
        opaque = self.runtime.singleton(RequestIdGenerator, RequestIdGenerator).next()
        request = RemotingCommand.create_request_command(code, header, opaque=opaque)
        request.body = body
        return request

    def _vip(self, addr: str) -> str:
        """The broker's VIP port (listen port - 2) when ``vipChannelEnabled``. Java: MixAll#brokerVIPChannel."""
        return mix_all.broker_vip_channel(self.client_config.vip_channel_enabled, addr)

    def _trace(self, event: str, **fields: Any) -> None:
        self.runtime.trace_event(COMPONENT, event, **fields)

    def _broker_body(self, addr: str, request: RemotingCommand, timeout_millis: int, body_type: Any) -> Any:
        """Ask a broker; the body of a SUCCESS answer decoded as ``body_type``, else its ``MQBrokerException``."""
        response = self._invoke_broker(addr, request, timeout_millis)
        if response.code == ResponseCode.SUCCESS:
            return body_type.decode(response.body or b"{}")
        raise self._broker_error(response, addr)

    def _invoke_broker(self, addr: str, request: RemotingCommand, timeout_millis: int) -> RemotingCommand:
        """InvokeSync to a broker (VIP channel applied)."""
        return self.remoting_client.invoke_sync(self._vip(addr), request, timeout_millis)

    @staticmethod
    def _broker_error(response: RemotingCommand, addr: str | None) -> MQBrokerException:
        return MQBrokerException(response.code, response.remark, addr)

    # -- life cycle and name servers -------------------------------------------------------------------------
    def get_name_server_address_list(self) -> list[str] | None:
        """Java: MQClientAPIImpl#getNameServerAddressList."""
        return self.remoting_client.get_name_server_address_list()

    def update_name_server_address_list(self, addrs: str) -> None:
        """``"host:port;host:port"`` → the remoting client's list. Java: MQClientAPIImpl#updateNameServerAddressList."""
        self.remoting_client.update_name_server_address_list(addrs.split(";"))

    def fetch_name_server_addr(self) -> str | None:
        """Java asks an HTTP address server here; mqlab has none, so nothing changes.

        Java: MQClientAPIImpl#fetchNameServerAddr (mqlab: always the current list's source, unchanged)
        """
        self._trace("fetchNameServerAddr", result="no address server in mqlab")
        return None

    def start(self) -> None:
        """Java: MQClientAPIImpl#start."""
        self.remoting_client.start()

    def shutdown(self) -> None:
        """Java: MQClientAPIImpl#shutdown."""
        self.remoting_client.shutdown()

    # -- sending ---------------------------------------------------------------------------------------------
    def send_message(
        self,
        addr: str,
        broker_name: str,
        msg: Message,
        request_header: bh.SendMessageRequestHeader,
        timeout_millis: int,
        communication_mode: CommunicationMode,
        send_callback: SendCallback | None = None,
        topic_publish_info: TopicPublishInfo | None = None,
        instance: MQClientInstance | None = None,
        retry_times_when_send_failed: int = 0,
        context: Any = None,
        producer: DefaultMQProducerImpl | None = None,
    ) -> SendResult | None:
        """Send one message (or batch) to ``addr``; a SendResult for SYNC, None for ASYNC and ONEWAY.

        Java: MQClientAPIImpl#sendMessage (both overloads)

        Raises:
            RemotingTooMuchRequestException: building the request used up ``timeout_millis``.
            RemotingException: SYNC/ONEWAY transport failure.
            MQBrokerException: SYNC, the broker answered an error code.
        """
        begin = self.runtime.now_ms()
        is_batch = isinstance(msg, MessageBatch)
        if SEND_SMART_MSG or is_batch:
            code = RequestCode.SEND_BATCH_MESSAGE if is_batch else RequestCode.SEND_MESSAGE_V2
            request = self._request(code, bh.create_send_message_request_header_v2(request_header))
        else:
            request = self._request(RequestCode.SEND_MESSAGE, request_header)
        request.body = msg.body
        self._trace(
            "sendMessage",
            mode=communication_mode.name,
            code=int(request.code),
            addr=addr,
            broker=broker_name,
            queueId=request_header.queue_id,
            opaque=request.opaque,
            timeout=timeout_millis,
        )
        if communication_mode is CommunicationMode.ONEWAY:
            self.remoting_client.invoke_oneway(addr, request, timeout_millis)
            return None
        cost = self.runtime.now_ms() - begin
        if timeout_millis < cost:
            raise RemotingTooMuchRequestException("sendMessage call timeout")
        if communication_mode is CommunicationMode.ASYNC:
            self.send_message_async(
                addr,
                broker_name,
                msg,
                timeout_millis - cost,
                request,
                send_callback,
                topic_publish_info,
                instance,
                retry_times_when_send_failed,
                AtomicInteger(),  # the attempt counter an async send and its retries share
                context,
                producer,
            )
            return None
        return self.send_message_sync(addr, broker_name, msg, timeout_millis - cost, request)

    def send_message_sync(
        self, addr: str, broker_name: str, msg: Message, timeout_millis: int, request: RemotingCommand
    ) -> SendResult:
        """invokeSync, then ``process_send_response``. Java: MQClientAPIImpl#sendMessageSync."""
        response = self.remoting_client.invoke_sync(addr, request, timeout_millis)
        return self.process_send_response(broker_name, msg, response, addr)

    def send_message_async(
        self,
        addr: str | None,
        broker_name: str,
        msg: Message,
        timeout_millis: int,
        request: RemotingCommand,
        send_callback: SendCallback | None,
        topic_publish_info: TopicPublishInfo | None,
        instance: MQClientInstance | None,
        retry_times_when_send_failed: int,
        times: AtomicInteger,
        context: Any,
        producer: DefaultMQProducerImpl | None,
    ) -> None:
        """invokeAsync; the response callback reports success or hands the failure to ``on_exception_impl``.

        Every outcome records the attempt's latency with the producer's fault strategy (an error isolates the
        broker when fault avoidance is on). A failure to even send goes to ``on_exception_impl`` at once.

        Java: MQClientAPIImpl#sendMessageAsync
        """
        begin = self.runtime.now_ms()

        def update_fault(latency: int, isolation: bool) -> None:
            if producer is not None:
                producer.update_fault_item(broker_name, latency, isolation)

        def retry(exc: BaseException, need_retry: bool) -> None:
            self.on_exception_impl(
                broker_name,
                msg,
                timeout_millis - (self.runtime.now_ms() - begin),
                request,
                send_callback,
                topic_publish_info,
                instance,
                retry_times_when_send_failed,
                times,
                exc,
                context,
                need_retry,
                producer,
            )

        def operation_complete(response_future: ResponseFuture) -> None:
            response = response_future.response_command
            latency = self.runtime.now_ms() - response_future.begin_timestamp
            if send_callback is None and response is not None:
                try:
                    send_result = self.process_send_response(broker_name, msg, response, addr)
                    _send_hook_after(context, send_result)
                except Exception as exc:  # Java ignores it: nobody is listening
                    self._trace("sendAsyncIgnored", error=repr(exc))
                update_fault(latency, False)
                return
            if response is not None:
                try:
                    send_result = self.process_send_response(broker_name, msg, response, addr)
                except Exception as exc:
                    update_fault(latency, True)
                    retry(exc, False)  # a broker error code is final for async sends, as in Java
                    return
                _send_hook_after(context, send_result)
                try:
                    if send_callback is not None:
                        send_callback.on_success(send_result)
                except Exception as exc:  # Java: the callback's own failure is only logged
                    self._trace("sendCallbackFailed", error=repr(exc))
                update_fault(latency, False)
                return
            update_fault(latency, True)
            if not response_future.send_request_ok:
                exc = MQClientException("send request failed", cause=response_future.cause)
            elif response_future.is_timeout():
                exc = MQClientException(
                    f"wait response timeout {response_future.timeout_millis}ms", cause=response_future.cause
                )
            else:
                exc = MQClientException("unknow reseaon", cause=response_future.cause)
            retry(exc, True)

        try:
            self.remoting_client.invoke_async(addr, request, timeout_millis, operation_complete)
        except Exception as exc:
            update_fault(self.runtime.now_ms() - begin, True)
            retry(exc, True)

    def on_exception_impl(
        self,
        broker_name: str,
        msg: Message,
        timeout_millis: int,
        request: RemotingCommand,
        send_callback: SendCallback | None,
        topic_publish_info: TopicPublishInfo | None,
        instance: MQClientInstance | None,
        times_total: int,
        cur_times: AtomicInteger,
        e: BaseException,
        context: Any,
        need_retry: bool,
        producer: DefaultMQProducerImpl | None,
    ) -> None:
        """Retry a failed async send on a queue that avoids ``broker_name`` (new opaque), or report the failure.

        Java: MQClientAPIImpl#onExceptionImpl
        """
        tmp = cur_times.increment_and_get()
        if need_retry and tmp <= times_total and instance is not None:
            retry_broker_name = broker_name  # with no publish info the retry goes to the same broker
            if topic_publish_info is not None and producer is not None:
                retry_broker_name = producer.select_one_message_queue(topic_publish_info, broker_name).broker_name
            addr = instance.find_broker_address_in_publish(retry_broker_name)
            request.opaque = self.runtime.singleton(RequestIdGenerator, RequestIdGenerator).next()
            self._trace(
                "asyncRetry",
                times=tmp,
                failedBroker=broker_name,
                retryBroker=retry_broker_name,
                opaque=request.opaque,
                error=type(e).__name__,
            )
            try:
                self.send_message_async(
                    addr,
                    retry_broker_name,
                    msg,
                    timeout_millis,
                    request,
                    send_callback,
                    topic_publish_info,
                    instance,
                    times_total,
                    cur_times,
                    context,
                    producer,
                )
            except RemotingException as e1:
                # Java has two catch blocks: "too many requests" ends the retries, any other failure marks the
                # broker faulty for 3 s and retries again.
                need_retry = not isinstance(e1, RemotingTooMuchRequestException)
                if need_retry and producer is not None:
                    producer.update_fault_item(broker_name, 3000, True)
                self.on_exception_impl(
                    retry_broker_name,
                    msg,
                    timeout_millis,
                    request,
                    send_callback,
                    topic_publish_info,
                    instance,
                    times_total,
                    cur_times,
                    e1,
                    context,
                    need_retry,
                    producer,
                )
            return
        self._trace("sendAsyncFailed", times=tmp, broker=broker_name, error=repr(e))
        if send_callback is not None:
            try:
                send_callback.on_exception(e)
            except Exception as exc:  # Java ignores the callback's own failure
                self._trace("sendCallbackFailed", error=repr(exc))

    def process_send_response(
        self, broker_name: str, msg: Message, response: RemotingCommand, addr: str | None
    ) -> SendResult:
        """The broker's answer to a send as a SendResult (or ``MQBrokerException`` for any other code).

        ``msg_id`` is the message's UNIQ_KEY (for a batch, the inner ids joined by commas), ``offset_msg_id`` the
        response header's ``msgId``; ``region_id`` defaults to ``DefaultRegion``; ``trace_on`` is false only when the
        broker says ``"false"``.

        Java: MQClientAPIImpl#processSendResponse
        """
        send_status = _SEND_STATUS_OF_CODE.get(response.code)
        if send_status is None:
            self._trace("sendResponse", addr=addr, code=response.code, remark=response.remark)
            raise self._broker_error(response, addr)
        header = response.decode_command_custom_header(bh.SendMessageResponseHeader)
        message_queue = MessageQueue(msg.topic or "", broker_name, header.queue_id or 0)
        if isinstance(msg, MessageBatch):
            uniq_msg_id = ",".join(str(MessageClientIDSetter.get_uniq_id(m)) for m in msg)
        else:
            uniq_msg_id = MessageClientIDSetter.get_uniq_id(msg)
        ext = response.ext_fields or {}
        region_id = ext.get(mc.PROPERTY_MSG_REGION)
        result = SendResult(
            send_status=send_status,
            msg_id=uniq_msg_id,
            message_queue=message_queue,
            queue_offset=header.queue_offset or 0,
            transaction_id=header.transaction_id,
            offset_msg_id=header.msg_id,
            region_id=region_id if region_id else mix_all.DEFAULT_TRACE_REGION_ID,
            trace_on=ext.get(mc.PROPERTY_TRACE_SWITCH) != "false",
        )
        if not self.runtime.trace.enabled:
            return result
        self._trace(
            "sendResponse",
            addr=addr,
            status=send_status.name,
            queue=f"{broker_name}:{message_queue.queue_id}",
            queueOffset=result.queue_offset,
            msgId=uniq_msg_id,
            offsetMsgId=header.msg_id,
        )
        return result

    # -- pulling ---------------------------------------------------------------------------------------------
    def pull_message(
        self,
        addr: str,
        request_header: bh.PullMessageRequestHeader,
        timeout_millis: int,
        communication_mode: CommunicationMode,
        pull_callback: PullCallback | None = None,
    ) -> PullResultExt | None:
        """PULL_MESSAGE: a PullResultExt for SYNC; for ASYNC, None now and ``pull_callback`` later.

        Java: MQClientAPIImpl#pullMessage

        Raises:
            ValueError: ONEWAY (Java asserts it never happens).
            RemotingException, MQBrokerException: SYNC failures.
        """
        request = self._request(RequestCode.PULL_MESSAGE, request_header)
        if communication_mode is CommunicationMode.ASYNC:
            if pull_callback is None:
                raise ValueError("an ASYNC pull needs a pull_callback")
            self.pull_message_async(addr, request, timeout_millis, pull_callback)
            return None
        if communication_mode is CommunicationMode.SYNC:
            return self.pull_message_sync(addr, request, timeout_millis)
        raise ValueError(f"a pull cannot be {communication_mode.name}")

    def pull_message_async(
        self, addr: str, request: RemotingCommand, timeout_millis: int, pull_callback: PullCallback
    ) -> None:
        """invokeAsync; the callback gets the PullResultExt or an ``MQClientException``. Java: #pullMessageAsync."""

        def operation_complete(response_future: ResponseFuture) -> None:
            response = response_future.response_command
            if response is not None:
                try:
                    pull_callback.on_success(self.process_pull_response(response, addr))
                except Exception as exc:  # as Java: a failing on_success is reported to on_exception too
                    pull_callback.on_exception(exc)
                return
            if not response_future.send_request_ok:
                exc = MQClientException(
                    f"send request failed to {addr}. Request: {request}", cause=response_future.cause
                )
            elif response_future.is_timeout():
                exc = MQClientException(
                    f"wait response from {addr} timeout :{response_future.timeout_millis}ms. Request: {request}",
                    cause=response_future.cause,
                )
            else:
                exc = MQClientException(
                    f"unknown reason. addr: {addr}, timeoutMillis: {timeout_millis}. Request: {request}",
                    cause=response_future.cause,
                )
            pull_callback.on_exception(exc)

        self.remoting_client.invoke_async(addr, request, timeout_millis, operation_complete)

    def pull_message_sync(self, addr: str, request: RemotingCommand, timeout_millis: int) -> PullResultExt:
        """Java: MQClientAPIImpl#pullMessageSync."""
        response = self.remoting_client.invoke_sync(addr, request, timeout_millis)
        return self.process_pull_response(response, addr)

    def process_pull_response(self, response: RemotingCommand, addr: str) -> PullResultExt:
        """Status from the code, offsets from the header, the body kept raw. Java: #processPullResponse."""
        statuses = {
            ResponseCode.SUCCESS: PullStatus.FOUND,
            ResponseCode.PULL_NOT_FOUND: PullStatus.NO_NEW_MSG,
            ResponseCode.PULL_RETRY_IMMEDIATELY: PullStatus.NO_MATCHED_MSG,
            ResponseCode.PULL_OFFSET_MOVED: PullStatus.OFFSET_ILLEGAL,
        }
        pull_status = statuses.get(response.code)
        if pull_status is None:
            raise self._broker_error(response, addr)
        header = response.decode_command_custom_header(bh.PullMessageResponseHeader)
        self._trace(
            "pullResponse",
            addr=addr,
            status=pull_status.name,
            nextBeginOffset=header.next_begin_offset,
            bytes=len(response.body or b""),
        )
        return PullResultExt(
            pull_status=pull_status,
            next_begin_offset=header.next_begin_offset or 0,
            min_offset=header.min_offset or 0,
            max_offset=header.max_offset or 0,
            msg_found_list=None,
            suggest_which_broker_id=header.suggest_which_broker_id or 0,
            message_binary=response.body,
        )

    # -- client registration ---------------------------------------------------------------------------------
    def send_heartbeat(self, addr: str, heartbeat_data: HeartbeatData, timeout_millis: int) -> int:
        """HEART_BEAT with the client's groups; returns the broker's version from the response.

        Java: MQClientAPIImpl#sendHearbeat (spelled so in Java)
        """
        request = self._request(RequestCode.HEART_BEAT, None, heartbeat_data.encode())
        language = LanguageCode.__members__.get(self.client_config.language)
        if language is not None:
            request.language = language
        response = self.remoting_client.invoke_sync(addr, request, timeout_millis)
        if response.code == ResponseCode.SUCCESS:
            return response.version
        raise self._broker_error(response, addr)

    def unregister_client(
        self,
        addr: str,
        client_id: str,
        producer_group: str | None,
        consumer_group: str | None,
        timeout_millis: int,
    ) -> None:
        """UNREGISTER_CLIENT: this client leaves a producer and/or consumer group. Java: #unregisterClient."""
        header = bh.UnregisterClientRequestHeader(client_id, producer_group, consumer_group)
        response = self.remoting_client.invoke_sync(
            addr, self._request(RequestCode.UNREGISTER_CLIENT, header), timeout_millis
        )
        if response.code != ResponseCode.SUCCESS:
            raise self._broker_error(response, addr)

    def check_client_in_broker(
        self, addr: str, consumer_group: str, client_id: str, subscription_data: Any, timeout_millis: int
    ) -> None:
        """CHECK_CLIENT_CONFIG: can this broker serve the subscription? A refusal raises ``MQClientException``.

        Java: MQClientAPIImpl#checkClientInBroker
        """
        body = CheckClientRequestBody(client_id, consumer_group, subscription_data).encode()
        response = self._invoke_broker(addr, self._request(RequestCode.CHECK_CLIENT_CONFIG, None, body), timeout_millis)
        if response.code != ResponseCode.SUCCESS:
            raise MQClientException(response.remark or "", response.code)

    def get_consumer_id_list_by_group(self, addr: str, consumer_group: str, timeout_millis: int) -> list[str]:
        """GET_CONSUMER_LIST_BY_GROUP: the ids of the group's live consumers (unsorted).

        Java: MQClientAPIImpl#getConsumerIdListByGroup (a SUCCESS without a body also raises, as in Java)
        """
        header = bh.GetConsumerListByGroupRequestHeader(consumer_group)
        request = self._request(RequestCode.GET_CONSUMER_LIST_BY_GROUP, header)
        response = self._invoke_broker(addr, request, timeout_millis)
        if response.code == ResponseCode.SUCCESS and response.body is not None:
            return GetConsumerListByGroupResponseBody.decode(response.body).consumer_id_list
        raise self._broker_error(response, addr)

    # -- consumer offsets ------------------------------------------------------------------------------------
    def query_consumer_offset(
        self, addr: str, request_header: bh.QueryConsumerOffsetRequestHeader, timeout_millis: int
    ) -> int:
        """QUERY_CONSUMER_OFFSET; ``MQBrokerException`` (e.g. QUERY_NOT_FOUND 22) if not SUCCESS.

        Java: MQClientAPIImpl#queryConsumerOffset
        """
        response = self._invoke_broker(
            addr, self._request(RequestCode.QUERY_CONSUMER_OFFSET, request_header), timeout_millis
        )
        if response.code == ResponseCode.SUCCESS:
            return response.decode_command_custom_header(bh.QueryConsumerOffsetResponseHeader).offset or 0
        raise self._broker_error(response, addr)

    def update_consumer_offset(
        self, addr: str, request_header: bh.UpdateConsumerOffsetRequestHeader, timeout_millis: int
    ) -> None:
        """UPDATE_CONSUMER_OFFSET, waiting for the answer. Java: MQClientAPIImpl#updateConsumerOffset."""
        response = self._invoke_broker(
            addr, self._request(RequestCode.UPDATE_CONSUMER_OFFSET, request_header), timeout_millis
        )
        if response.code != ResponseCode.SUCCESS:
            raise self._broker_error(response, addr)

    def update_consumer_offset_oneway(
        self, addr: str, request_header: bh.UpdateConsumerOffsetRequestHeader, timeout_millis: int
    ) -> None:
        """UPDATE_CONSUMER_OFFSET as a oneway request. Java: MQClientAPIImpl#updateConsumerOffsetOneway."""
        self.remoting_client.invoke_oneway(
            self._vip(addr), self._request(RequestCode.UPDATE_CONSUMER_OFFSET, request_header), timeout_millis
        )

    def consumer_send_message_back(
        self,
        addr: str,
        msg: MessageExt,
        consumer_group: str,
        delay_level: int,
        timeout_millis: int,
        max_consume_retry_times: int,
    ) -> None:
        """CONSUMER_SEND_MSG_BACK: give a consumed message back for a delayed retry (or the DLQ).

        The header names the message by its CommitLog offset; ``originMsgId`` is the message's id as the client
        sees it (UNIQ_KEY when present).

        Java: MQClientAPIImpl#consumerSendMessageBack
        """
        get_msg_id = getattr(msg, "get_msg_id", None)
        header = bh.ConsumerSendMsgBackRequestHeader(
            offset=msg.commit_log_offset,
            group=consumer_group,
            delay_level=delay_level,
            origin_msg_id=get_msg_id() if get_msg_id is not None else msg.msg_id,
            origin_topic=msg.topic,
            max_reconsume_times=max_consume_retry_times,
        )
        response = self._invoke_broker(addr, self._request(RequestCode.CONSUMER_SEND_MSG_BACK, header), timeout_millis)
        if response.code != ResponseCode.SUCCESS:
            raise self._broker_error(response, addr)

    # -- queue locks (orderly consumers) ---------------------------------------------------------------------
    def lock_batch_mq(self, addr: str, request_body: LockBatchRequestBody, timeout_millis: int) -> set[MessageQueue]:
        """LOCK_BATCH_MQ: the queues this client now holds. Java: MQClientAPIImpl#lockBatchMQ."""
        request = self._request(RequestCode.LOCK_BATCH_MQ, None, request_body.encode())
        response = self._invoke_broker(addr, request, timeout_millis)
        if response.code == ResponseCode.SUCCESS:
            return set(LockBatchResponseBody.decode(response.body or b"{}").lock_ok_mq_set)
        raise self._broker_error(response, addr)

    def unlock_batch_mq(
        self, addr: str, request_body: UnlockBatchRequestBody, timeout_millis: int, oneway: bool
    ) -> None:
        """UNLOCK_BATCH_MQ, oneway (no VIP channel, as in Java) or waiting. Java: MQClientAPIImpl#unlockBatchMQ."""
        request = self._request(RequestCode.UNLOCK_BATCH_MQ, None, request_body.encode())
        if oneway:
            self.remoting_client.invoke_oneway(addr, request, timeout_millis)
            return
        response = self._invoke_broker(addr, request, timeout_millis)
        if response.code != ResponseCode.SUCCESS:
            raise self._broker_error(response, addr)

    # -- queue offsets and messages --------------------------------------------------------------------------
    def _offset_call(self, addr: str, code: RequestCode, header: Any, response_class: type, timeout: int) -> int:
        response = self._invoke_broker(addr, self._request(code, header), timeout)
        if response.code == ResponseCode.SUCCESS:
            decoded = response.decode_command_custom_header(response_class)
            value = getattr(decoded, "offset", None)
            if value is None:
                value = getattr(decoded, "timestamp", None)
            return int(value or 0)
        raise self._broker_error(response, addr)

    def get_max_offset(self, addr: str, topic: str, queue_id: int, timeout_millis: int) -> int:
        """GET_MAX_OFFSET: the queue's next logical offset. Java: MQClientAPIImpl#getMaxOffset."""
        header = bh.GetMaxOffsetRequestHeader(topic, queue_id)
        return self._offset_call(
            addr, RequestCode.GET_MAX_OFFSET, header, bh.GetMaxOffsetResponseHeader, timeout_millis
        )

    def get_min_offset(self, addr: str, topic: str, queue_id: int, timeout_millis: int) -> int:
        """GET_MIN_OFFSET. Java: MQClientAPIImpl#getMinOffset."""
        header = bh.GetMinOffsetRequestHeader(topic, queue_id)
        return self._offset_call(
            addr, RequestCode.GET_MIN_OFFSET, header, bh.GetMinOffsetResponseHeader, timeout_millis
        )

    def search_offset(self, addr: str, topic: str, queue_id: int, timestamp: int, timeout_millis: int) -> int:
        """SEARCH_OFFSET_BY_TIMESTAMP. Java: MQClientAPIImpl#searchOffset."""
        header = bh.SearchOffsetRequestHeader(topic, queue_id, timestamp)
        return self._offset_call(
            addr, RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, header, bh.SearchOffsetResponseHeader, timeout_millis
        )

    def get_earliest_msg_storetime(self, addr: str, topic: str, queue_id: int, timeout_millis: int) -> int:
        """GET_EARLIEST_MSG_STORETIME. Java: MQClientAPIImpl#getEarliestMsgStoretime."""
        header = bh.GetEarliestMsgStoretimeRequestHeader(topic, queue_id)
        return self._offset_call(
            addr,
            RequestCode.GET_EARLIEST_MSG_STORETIME,
            header,
            bh.GetEarliestMsgStoretimeResponseHeader,
            timeout_millis,
        )

    def view_message(self, addr: str, phyoffset: int, timeout_millis: int) -> MessageExt:
        """VIEW_MESSAGE_BY_ID: the record at CommitLog offset ``phyoffset``, client-decoded.

        Java: MQClientAPIImpl#viewMessage
        """
        request = self._request(RequestCode.VIEW_MESSAGE_BY_ID, bh.ViewMessageRequestHeader(phyoffset))
        response = self._invoke_broker(addr, request, timeout_millis)
        if response.code == ResponseCode.SUCCESS:
            return message_decoder.client_decode(response.body or b"", 0, True)
        raise self._broker_error(response, addr)

    def query_message(
        self,
        addr: str,
        request_header: bh.QueryMessageRequestHeader,
        timeout_millis: int,
        invoke_callback: Any,
        is_unique_key: bool,
    ) -> None:
        """QUERY_MESSAGE (by key, or by UNIQ_KEY with ext ``_UNIQUE_KEY_QUERY``), asynchronously.

        Java: MQClientAPIImpl#queryMessage
        """
        request = self._request(RequestCode.QUERY_MESSAGE, request_header)
        request.add_ext_field(mix_all.UNIQUE_MSG_QUERY_FLAG, "true" if is_unique_key else "false")
        self.remoting_client.invoke_async(self._vip(addr), request, timeout_millis, invoke_callback)

    # -- name server -----------------------------------------------------------------------------------------
    def get_topic_route_info_from_name_server(
        self, topic: str, timeout_millis: int, allow_topic_not_exist: bool = True
    ) -> TopicRouteData:
        """GET_ROUTEINFO_BY_TOPIC from a name server.

        As in Java, an unknown topic raises ``MQClientException`` with code TOPIC_NOT_EXIST (17) whatever
        ``allow_topic_not_exist`` says; the flag only decides whether Java logs a warning (here: a trace event).
        Callers such as ``MQClientInstance.update_topic_route_info_from_name_server`` catch it.

        Java: MQClientAPIImpl#getTopicRouteInfoFromNameServer

        Raises:
            MQClientException: any code but SUCCESS-with-a-body.
            RemotingException: no name server answered.
        """
        request = self._request(RequestCode.GET_ROUTEINFO_BY_TOPIC, GetRouteInfoRequestHeader(topic))
        response = self.remoting_client.invoke_sync(None, request, timeout_millis)
        if response.code == ResponseCode.TOPIC_NOT_EXIST:
            if allow_topic_not_exist:
                self._trace("routeNotExist", topic=topic)
        elif response.code == ResponseCode.SUCCESS and response.body is not None:
            route = TopicRouteData.decode(response.body)
            self._trace(
                "route",
                topic=topic,
                brokers=",".join(b.broker_name for b in route.broker_datas),
                queues=",".join(f"{q.broker_name}:{q.write_queue_nums}/{q.read_queue_nums}" for q in route.queue_datas),
            )
            return route
        raise MQClientException(response.remark or "", response.code)

    def get_default_topic_route_info_from_name_server(self, topic: str, timeout_millis: int) -> TopicRouteData:
        """The route of the default topic (TBW102), without the not-exist warning.

        Java: MQClientAPIImpl#getDefaultTopicRouteInfoFromNameServer
        """
        return self.get_topic_route_info_from_name_server(topic, timeout_millis, False)

    def get_broker_cluster_info(self, timeout_millis: int) -> ClusterInfo:
        """GET_BROKER_CLUSTER_INFO from a name server. Java: MQClientAPIImpl#getBrokerClusterInfo."""
        response = self.remoting_client.invoke_sync(
            None, self._request(RequestCode.GET_BROKER_CLUSTER_INFO), timeout_millis
        )
        if response.code == ResponseCode.SUCCESS:
            return decode_cluster_info(response.body or b"{}")
        raise MQBrokerException(response.code, response.remark)

    def get_topic_list_from_name_server(self, timeout_millis: int) -> TopicList:
        """GET_ALL_TOPIC_LIST_FROM_NAMESERVER. Java: MQClientAPIImpl#getTopicListFromNameServer."""
        response = self.remoting_client.invoke_sync(
            None, self._request(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER), timeout_millis
        )
        if response.code == ResponseCode.SUCCESS and response.body is not None:
            return decode_topic_list(response.body)
        raise MQClientException(response.remark or "", response.code)

    # -- admin -----------------------------------------------------------------------------------------------
    def create_topic(self, addr: str, default_topic: str, topic_config: TopicConfig, timeout_millis: int) -> None:
        """UPDATE_AND_CREATE_TOPIC on one broker; ``MQClientException`` with the broker's code on failure.

        Java: MQClientAPIImpl#createTopic
        """
        header = bh.CreateTopicRequestHeader(
            topic=topic_config.topic_name,
            default_topic=default_topic,
            read_queue_nums=topic_config.read_queue_nums,
            write_queue_nums=topic_config.write_queue_nums,
            perm=topic_config.perm,
            topic_filter_type=topic_config.topic_filter_type.name,
            topic_sys_flag=topic_config.topic_sys_flag,
            order=topic_config.order,
        )
        response = self._invoke_broker(addr, self._request(RequestCode.UPDATE_AND_CREATE_TOPIC, header), timeout_millis)
        if response.code != ResponseCode.SUCCESS:
            raise MQClientException(response.remark or "", response.code)

    def get_topic_stats_info(self, addr: str, topic: str, timeout_millis: int) -> TopicStatsTable:
        """GET_TOPIC_STATS_INFO: min/max offset of each queue on one broker. Java: #getTopicStatsInfo."""
        request = self._request(RequestCode.GET_TOPIC_STATS_INFO, bh.GetTopicStatsInfoRequestHeader(topic))
        return self._broker_body(addr, request, timeout_millis, TopicStatsTable)

    def get_consume_stats(
        self, addr: str, consumer_group: str, timeout_millis: int, *, topic: str | None = None
    ) -> ConsumeStats:
        """GET_CONSUME_STATS: a group's offsets against the queues' (one topic, or all the group's).

        Java: MQClientAPIImpl#getConsumeStats (both overloads)
        """
        request = self._request(RequestCode.GET_CONSUME_STATS, bh.GetConsumeStatsRequestHeader(consumer_group, topic))
        return self._broker_body(addr, request, timeout_millis, ConsumeStats)

    def get_consumer_connection_list(self, addr: str, consumer_group: str, timeout_millis: int) -> ConsumerConnection:
        """GET_CONSUMER_CONNECTION_LIST: a group's connections, subscriptions and settings on one broker.

        Java: MQClientAPIImpl#getConsumerConnectionList

        Raises:
            MQBrokerException: the broker refused (206, CONSUMER_NOT_ONLINE, when the group has no connection there).
        """
        header = bh.GetConsumerConnectionListRequestHeader(consumer_group)
        request = self._request(RequestCode.GET_CONSUMER_CONNECTION_LIST, header)
        return self._broker_body(addr, request, timeout_millis, ConsumerConnection)

    def invoke_broker_to_reset_offset(
        self,
        addr: str,
        topic: str,
        group: str,
        timestamp: int,
        is_force: bool,
        timeout_millis: int,
        is_c: bool = False,
    ) -> JavaHashMap[MessageQueue, int]:
        """INVOKE_BROKER_TO_RESET_OFFSET: the broker resets the group's consumers on its queues of ``topic``.

        ``timestamp`` is epoch ms, or -1 for each queue's max offset; ``is_c`` sends the request as language CPP
        (the broker then gives consumers the C++ form of the table). Returns the broker's queue → offset table.

        Java: MQClientAPIImpl#invokeBrokerToResetOffset (both overloads)

        Raises:
            MQClientException: any answer but SUCCESS with a body, with the broker's code and remark
                (CONSUMER_NOT_ONLINE, 206, when the group has no consumer online).
        """
        header = bh.ResetOffsetRequestHeader(topic, group, timestamp, is_force)
        request = self._request(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET, header)
        if is_c:
            request.language = LanguageCode.CPP
        response = self._invoke_broker(addr, request, timeout_millis)
        if response.code == ResponseCode.SUCCESS and response.body is not None:
            return ResetOffsetBody.decode(response.body).offset_table
        raise MQClientException(response.remark or "", int(response.code))

    def query_topic_consume_by_who(self, addr: str, topic: str, timeout_millis: int) -> GroupList:
        """QUERY_TOPIC_CONSUME_BY_WHO: the groups consuming ``topic`` on one broker.

        Java: MQClientAPIImpl#queryTopicConsumeByWho
        """
        header = bh.QueryTopicConsumeByWhoRequestHeader(topic)
        request = self._request(RequestCode.QUERY_TOPIC_CONSUME_BY_WHO, header)
        return self._broker_body(addr, request, timeout_millis, GroupList)

    def get_broker_runtime_info(self, addr: str, timeout_millis: int) -> KVTable:
        """GET_BROKER_RUNTIME_INFO: the broker's running figures. Java: MQClientAPIImpl#getBrokerRuntimeInfo."""
        return self._broker_body(addr, self._request(RequestCode.GET_BROKER_RUNTIME_INFO), timeout_millis, KVTable)

    # -- administration: topics, broker config, groups, relayed consumer calls, queues ----------------------
    def _admin_call(self, addr: str, request: RemotingCommand, timeout_millis: int) -> RemotingCommand:
        """Ask a broker (VIP channel applied); ``MQClientException`` with its code and remark unless SUCCESS."""
        response = self._invoke_broker(addr, request, timeout_millis)
        if response.code != ResponseCode.SUCCESS:
            raise MQClientException(response.remark or "", response.code)
        return response

    def delete_topic_in_broker(self, addr: str, topic: str, timeout_millis: int) -> None:
        """DELETE_TOPIC_IN_BROKER (215). Java: MQClientAPIImpl#deleteTopicInBroker."""
        self._admin_call(addr, self._request(RequestCode.DELETE_TOPIC_IN_BROKER, bh.DeleteTopicRequestHeader(topic)),
                         timeout_millis)  # fmt: skip

    def delete_topic_in_name_server(self, addr: str, topic: str, timeout_millis: int) -> None:
        """DELETE_TOPIC_IN_NAMESRV (216) to one name server. Java: MQClientAPIImpl#deleteTopicInNameServer."""
        request = self._request(RequestCode.DELETE_TOPIC_IN_NAMESRV, DeleteTopicFromNamesrvRequestHeader(topic))
        response = self.remoting_client.invoke_sync(addr, request, timeout_millis)
        if response.code != ResponseCode.SUCCESS:
            raise MQClientException(response.remark or "", response.code)

    def update_broker_config(self, addr: str, properties: dict[str, str], timeout_millis: int) -> None:
        """UPDATE_BROKER_CONFIG (25) with ``key=value`` lines; nothing is sent for no entries.

        Java: MQClientAPIImpl#updateBrokerConfig

        Raises:
            MQBrokerException: the broker refused.
        """
        text = mix_all.properties2string(properties)
        if not text:
            return
        request = self._request(RequestCode.UPDATE_BROKER_CONFIG, None, text.encode("utf-8"))
        response = self._invoke_broker(addr, request, timeout_millis)
        if response.code != ResponseCode.SUCCESS:
            raise self._broker_error(response, addr)

    def get_broker_config(self, addr: str, timeout_millis: int) -> Properties:
        """GET_BROKER_CONFIG (26) straight to ``addr`` (no VIP channel): every config entry of the broker.

        Java: MQClientAPIImpl#getBrokerConfig

        Raises:
            MQBrokerException: the broker refused.
        """
        request = self._request(RequestCode.GET_BROKER_CONFIG)
        response = self.remoting_client.invoke_sync(addr, request, timeout_millis)
        if response.code != ResponseCode.SUCCESS:
            raise self._broker_error(response, addr)
        return mix_all.string2properties((response.body or b"").decode("utf-8"), source=addr)

    def get_producer_connection_list(self, addr: str, producer_group: str, timeout_millis: int) -> ProducerConnection:
        """GET_PRODUCER_CONNECTION_LIST (204). Java: MQClientAPIImpl#getProducerConnectionList.

        Raises:
            MQBrokerException: the broker does not know the group (SYSTEM_ERROR).
        """
        header = bh.GetProducerConnectionListRequestHeader(producer_group)
        request = self._request(RequestCode.GET_PRODUCER_CONNECTION_LIST, header)
        return self._broker_body(addr, request, timeout_millis, ProducerConnection)

    def create_subscription_group(self, addr: str, config: SubscriptionGroupConfig, timeout_millis: int) -> None:
        """UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200). Java: MQClientAPIImpl#createSubscriptionGroup."""
        body = remoting_serializable.encode(config)
        request = self._request(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, None, body)
        self._admin_call(addr, request, timeout_millis)

    def delete_subscription_group(self, addr: str, group: str, remove_offset: bool, timeout_millis: int) -> None:
        """DELETE_SUBSCRIPTIONGROUP (207). Java: MQClientAPIImpl#deleteSubscriptionGroup."""
        header = bh.DeleteSubscriptionGroupRequestHeader(group, remove_offset)
        self._admin_call(addr, self._request(RequestCode.DELETE_SUBSCRIPTIONGROUP, header), timeout_millis)

    def get_consumer_running_info(
        self, addr: str, consumer_group: str, client_id: str, jstack: bool, timeout_millis: int
    ) -> ConsumerRunningInfo:
        """GET_CONSUMER_RUNNING_INFO (307), which the broker relays to the consumer ``client_id``.

        Java: MQClientAPIImpl#getConsumerRunningInfo

        Raises:
            MQClientException: any answer but SUCCESS with a body (the broker's or the consumer's code and remark).
        """
        header = bh.GetConsumerRunningInfoRequestHeader(consumer_group, client_id, jstack)
        response = self._admin_call(addr, self._request(RequestCode.GET_CONSUMER_RUNNING_INFO, header), timeout_millis)
        if not response.body:
            raise MQClientException(response.remark or "", response.code)
        return ConsumerRunningInfo.decode(response.body)

    def consume_message_directly(
        self, addr: str, consumer_group: str, client_id: str, msg_id: str, timeout_millis: int
    ) -> ConsumeMessageDirectlyResult:
        """CONSUME_MESSAGE_DIRECTLY (309) to the broker that stored ``msg_id``, relayed to the consumer ``client_id``.

        Java: MQClientAPIImpl#consumeMessageDirectly

        Raises:
            MQClientException: any answer but SUCCESS with a body (the broker's or the consumer's code and remark).
        """
        header = bh.ConsumeMessageDirectlyResultRequestHeader(consumer_group, client_id, msg_id)
        response = self._admin_call(addr, self._request(RequestCode.CONSUME_MESSAGE_DIRECTLY, header), timeout_millis)
        if response.body is None:
            raise MQClientException(response.remark or "", response.code)
        return ConsumeMessageDirectlyResult.decode(response.body)

    def query_consume_queue(
        self, addr: str, topic: str, queue_id: int, index: int, count: int, consumer_group: str | None,
        timeout_millis: int,
    ) -> QueryConsumeQueueResponseBody:  # fmt: skip
        """QUERY_CONSUME_QUEUE (321): ``count`` units of a ConsumeQueue from unit ``index``.

        Java: MQClientAPIImpl#queryConsumeQueue

        Raises:
            MQClientException: the broker refused, or answered SUCCESS without a body (an index below the queue's
                min offset: the remark says so; Java fails decoding the missing body there).
        """
        header = bh.QueryConsumeQueueRequestHeader(topic, queue_id, index, count, consumer_group)
        response = self._admin_call(addr, self._request(RequestCode.QUERY_CONSUME_QUEUE, header), timeout_millis)
        if response.body is None:
            raise MQClientException(response.remark or "no body in the answer", response.code)
        return QueryConsumeQueueResponseBody.decode(response.body)

    def clone_group_offset(
        self, addr: str, src_group: str, dest_group: str, topic: str | None, is_offline: bool, timeout_millis: int
    ) -> None:
        """CLONE_GROUP_OFFSET (314). Java: MQClientAPIImpl#cloneGroupOffset."""
        header = bh.CloneGroupOffsetRequestHeader(src_group, dest_group, topic, is_offline)
        self._admin_call(addr, self._request(RequestCode.CLONE_GROUP_OFFSET, header), timeout_millis)

    def query_consume_time_span(self, addr: str, topic: str, group: str, timeout_millis: int) -> list[QueueTimeSpan]:
        """QUERY_CONSUME_TIME_SPAN (303). Java: MQClientAPIImpl#queryConsumeTimeSpan.

        Raises:
            MQBrokerException: the broker refused (TOPIC_NOT_EXIST for a topic it does not have).
        """
        header = bh.QueryConsumeTimeSpanRequestHeader(topic, group)
        request = self._request(RequestCode.QUERY_CONSUME_TIME_SPAN, header)
        return self._broker_body(addr, request, timeout_millis, QueryConsumeTimeSpanBody).consume_time_span_set

    # -- transactions ----------------------------------------------------------------------------------------
    def end_transaction_oneway(
        self, addr: str | None, request_header: Any, remark: str | None, timeout_millis: int
    ) -> None:
        """END_TRANSACTION (37), oneway, with the remark (the local transaction's exception, if any).

        ``request_header`` is an ``EndTransactionRequestHeader``.

        A None ``addr`` (the broker's master is not known) sends it to a name server, which ignores it: Java's
        NettyRemotingClient does the same with a null address.

        Java: MQClientAPIImpl#endTransactionOneway
        """
        request = self._request(RequestCode.END_TRANSACTION, request_header)
        request.remark = remark
        self._trace(
            "endTransactionOneway",
            addr=addr,
            commitOrRollback=request_header.commit_or_rollback,
            fromTransactionCheck=request_header.from_transaction_check,
        )
        self.remoting_client.invoke_oneway(addr, request, timeout_millis)


def _send_hook_after(context: Any, send_result: SendResult) -> None:
    """Give an async send's result to the producer's send-message hooks (their second call for this attempt).

    Java: the ``context.getProducer().executeSendMessageHookAfter(context)`` calls of MQClientAPIImpl#sendMessageAsync
    """
    if context is not None and send_result is not None:
        context.send_result = send_result
        context.producer.execute_send_message_hook_after(context)


def decode_cluster_info(body: bytes) -> ClusterInfo:
    """A GET_BROKER_CLUSTER_INFO body (fastjson, bare numeric keys accepted). Java: ClusterInfo#decode."""
    data = remoting_serializable.from_json(body) or {}
    brokers = {str(name): BrokerData.from_json(bd) for name, bd in (data.get("brokerAddrTable") or {}).items()}
    clusters = {str(name): set(names or []) for name, names in (data.get("clusterAddrTable") or {}).items()}
    return ClusterInfo(brokers, clusters)


def decode_topic_list(body: bytes) -> TopicList:
    """A GET_ALL_TOPIC_LIST_FROM_NAMESERVER body. Java: TopicList#decode."""
    data = remoting_serializable.from_json(body) or {}
    return TopicList(set(data.get("topicList") or []), data.get("brokerAddr"))

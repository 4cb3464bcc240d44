"""Stores what producers send and what consumers give back for a retry or the dead-letter queue.

Requests: SEND_MESSAGE, SEND_MESSAGE_V2, SEND_BATCH_MESSAGE (producers) and CONSUMER_SEND_MSG_BACK (consumers).

Java: org.apache.rocketmq.broker.processor.SendMessageProcessor (rocketmq-all-4.9.3)
Left out: send/consume hooks (traces, statistics), the deprecated synchronous ``sendMessage`` path. A half message
(TRAN_MSG=true) goes to ``TransactionalMessageServiceImpl.async_prepare_message`` (RMQ_SYS_TRANS_HALF_TOPIC).

Every send follows ``asyncSendMessage``: ``pre_send`` (response header, MSG_REGION/TRACE_ON, the start-time gate,
``msg_check``), pick a queue, ``handle_retry_and_dlq``, build the inner message (properties parsed, CLUSTER added,
WAIT kept in the map but left out of the stored string), put it into the store, and map the put status to a response
code (``handle_put_message_result``). The store answers with a future; when it is not complete at once (a
synchronous flush), the response is written when it completes, as Java's asynchronous processor does.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mqlab.broker.processor.abstract_send_message_processor import (
    DLQ_NUMS_PER_GROUP,
    FAQ_SUGGESTION,
    TOPIC_SYS_FLAG_UNIT_SUB,
    V3_4_9,
    AbstractSendMessageProcessor,
)
from mqlab.broker.processor.group_check import refuse_invalid_group
from mqlab.common import mix_all, util_all
from mqlab.common.constant import perm_name
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.jdk.strings import java_split, java_trim
from mqlab.common.message import message_const as mc
from mqlab.common.message.message_decoder import message_properties2string, string2message_properties
from mqlab.common.message.message_errors import MessageFormatError
from mqlab.common.message.message_ext_batch import MessageExtBatch
from mqlab.common.protocol.header.broker_headers import (
    ConsumerSendMsgBackRequestHeader,
    SendMessageRequestHeader,
    SendMessageResponseHeader,
)
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.common.topic_filter_type import TopicFilterType
from mqlab.remoting.common.remoting_helper import exception_simple_desc, parse_channel_remote_addr
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from mqlab.runtime.scheduler import CompletedFuture
from mqlab.store.config import store_path_config_helper as store_paths
from mqlab.store.config.message_store_config import MULTI_PATH_SPLITTER
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.store.put_message_status import PutMessageStatus

if TYPE_CHECKING:
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.topic_config import TopicConfig
    from mqlab.runtime.scheduler import Future
    from mqlab.store.put_message_result import PutMessageResult

T = TypeVar("T")
R = TypeVar("R")

# Put statuses that still mean "stored", each with its own response code (the client treats 10/11/12 as sent).
_STORED_CODES = {
    PutMessageStatus.PUT_OK: ResponseCode.SUCCESS,
    PutMessageStatus.FLUSH_DISK_TIMEOUT: ResponseCode.FLUSH_DISK_TIMEOUT,
    PutMessageStatus.FLUSH_SLAVE_TIMEOUT: ResponseCode.FLUSH_SLAVE_TIMEOUT,
    PutMessageStatus.SLAVE_NOT_AVAILABLE: ResponseCode.SLAVE_NOT_AVAILABLE,
}
# Put statuses that mean "not stored": Java's code and remark for each.
_FAILED = {
    PutMessageStatus.CREATE_MAPEDFILE_FAILED: (
        ResponseCode.SYSTEM_ERROR,
        "create mapped file failed, server is busy or broken.",
    ),
    PutMessageStatus.MESSAGE_ILLEGAL: (
        ResponseCode.MESSAGE_ILLEGAL,
        "the message is illegal, maybe msg body or properties length not matched. msg body length limit 128k, "
        "msg properties length limit 32k.",
    ),
    PutMessageStatus.OS_PAGECACHE_BUSY: (
        ResponseCode.SYSTEM_ERROR,
        "[PC_SYNCHRONIZED]broker busy, start flow control for a while",
    ),
    PutMessageStatus.LMQ_CONSUME_QUEUE_NUM_EXCEEDED: (
        ResponseCode.SYSTEM_ERROR,
        "[LMQ_CONSUME_QUEUE_NUM_EXCEEDED]broker config enableLmq and enableMultiDispatch, lmq consumeQueue num "
        "exceed maxLmqConsumeQueueNum config num, default limit 2w.",
    ),
    PutMessageStatus.UNKNOWN_ERROR: (ResponseCode.SYSTEM_ERROR, "UNKNOWN_ERROR"),
}
_FAILED[PutMessageStatus.PROPERTIES_SIZE_EXCEEDED] = _FAILED[PutMessageStatus.MESSAGE_ILLEGAL]
# The code preSend sets while the checks run ("no verdict yet").
NOT_DECIDED = -1


class SendMessageProcessor(AbstractSendMessageProcessor):
    """The broker's send path."""

    # -- entry points ----------------------------------------------------------------------------------------
    def process_request(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        """Answer now if the store answered at once; otherwise answer when its future completes.

        Java: SendMessageProcessor#asyncProcessRequest(ctx, request, responseCallback)
        """
        future = self.async_process_request(ctx, request)
        if future.done():
            return future.result(0)
        future.add_done_callback(lambda done: self._answer_later(ctx, request, done))
        return None

    def _answer_later(self, ctx: Any, request: RemotingCommand, future: Future[RemotingCommand | None]) -> None:
        try:
            response = future.result(0)
        except Exception as exc:  # the put failed with an exception: Java's callback never runs; answer anyway
            response = RemotingCommand.create_response_command(ResponseCode.SYSTEM_ERROR, exception_simple_desc(exc))
        if response is not None:
            self.do_response(ctx, request, response)

    def reject_request(self) -> bool:
        """Refuse sends while the CommitLog put lock is held too long (or the transient pool is empty).

        Java: SendMessageProcessor#rejectRequest
        """
        store = self.broker_controller.message_store
        if store is None:
            return False
        deficient = (
            store.config.is_transient_store_pool_enable() and store.transient_store_pool.available_buffer_nums() == 0
        )
        return store.is_os_page_cache_busy() or deficient

    def async_process_request(self, ctx: Any, request: RemotingCommand) -> Future[RemotingCommand | None]:
        """Dispatch by request code. Java: SendMessageProcessor#asyncProcessRequest(ctx, request)."""
        if request.code == RequestCode.CONSUMER_SEND_MSG_BACK:
            return self.async_consumer_send_msg_back(ctx, request)
        request_header = self.parse_request_header(request)
        if request_header is None:
            return CompletedFuture(None)
        if request_header.batch:
            return self.async_send_batch_message(ctx, request, request_header)
        return self.async_send_message(ctx, request, request_header)

    # -- futures ---------------------------------------------------------------------------------------------
    def _then(self, future: Future[T], fn: Callable[[T], R]) -> Future[R]:
        """``future.thenApply(fn)``: a completed future when ``future`` already is."""
        if future.done():
            return CompletedFuture(fn(future.result(0)))
        out = self.broker_controller.runtime.scheduler.new_future()

        def apply(done: Future[T]) -> None:
            try:
                out.set_result(fn(done.result(0)))
            except Exception as exc:
                out.set_exception(exc)

        future.add_done_callback(apply)
        return out

    # -- send ------------------------------------------------------------------------------------------------
    def pre_send(self, ctx: Any, request: RemotingCommand, request_header: SendMessageRequestHeader) -> RemotingCommand:
        """The response with its header and ext fields; code -1 when every check passed.

        Java: SendMessageProcessor#preSend
        """
        broker_config = self.broker_controller.broker_config
        response = RemotingCommand.create_response_command(custom_header=SendMessageResponseHeader())
        response.opaque = request.opaque
        response.add_ext_field(mc.PROPERTY_MSG_REGION, broker_config.region_id)
        response.add_ext_field(mc.PROPERTY_TRACE_SWITCH, "true" if broker_config.trace_on else "false")
        start = broker_config.start_accept_send_request_time_stamp
        if self.broker_controller.runtime.now_ms() < start:
            response.code = ResponseCode.SYSTEM_ERROR
            response.remark = f"broker unable to service, until {self._human_time(start)}"
            return response
        response.code = NOT_DECIDED
        return self.msg_check(ctx, request_header, response)

    def _human_time(self, millis: int) -> str:
        """Java: UtilAll#timeMillisToHumanString2 (``yyyy-MM-dd HH:mm:ss,SSS`` in the node's time zone)."""
        moment = datetime.fromtimestamp(millis / 1000, self.broker_controller.runtime.tz)
        return moment.strftime("%Y-%m-%d %H:%M:%S,") + f"{millis % 1000:03d}"

    def async_send_message(
        self, ctx: Any, request: RemotingCommand, request_header: SendMessageRequestHeader
    ) -> Future[RemotingCommand | None]:
        """One message: checks, queue, retry/DLQ decision, inner message, put.

        Java: SendMessageProcessor#asyncSendMessage
        """
        response = self.pre_send(ctx, request, request_header)
        if response.code != NOT_DECIDED:
            return CompletedFuture(response)
        controller = self.broker_controller
        topic = request_header.topic or ""
        topic_config = controller.topic_config_manager.select_topic_config(topic)
        assert topic_config is not None  # msg_check found or created it
        queue_id = request_header.queue_id if request_header.queue_id is not None else -1
        if queue_id < 0:
            queue_id = self.random_queue_id(topic_config.write_queue_nums)
        inner = MessageExtBrokerInner.bare()
        inner.topic = topic
        inner.queue_id = queue_id
        if not self.handle_retry_and_dlq(request_header, response, request, inner, topic_config):
            return CompletedFuture(response)
        self._fill_inner_message(ctx, request, request_header, inner)
        properties = inner.properties
        assert properties is not None
        if (properties.get(mc.PROPERTY_TRANSACTION_PREPARED) or "").lower() == "true":
            # Keyed on the TRAN_MSG property, not on sysflag 0x4 (a 0x4 without it is stored as a PREPARED record).
            if controller.broker_config.reject_transaction_message:
                return CompletedFuture(self._refuse_transaction(response))
            put = controller.transactional_message_service.async_prepare_message(inner)
        else:
            put = controller.message_store.async_put_message(inner)
        return self._then(
            put, lambda result: self.handle_put_message_result(result, response, request, inner, ctx, queue_id)
        )

    def _fill_inner_message(
        self, ctx: Any, request: RemotingCommand, request_header: SendMessageRequestHeader, inner: MessageExtBrokerInner
    ) -> None:
        """Body, flag, properties (CLUSTER added; WAIT kept in the map, not in the stored string), hosts, times."""
        controller = self.broker_controller
        inner.body = request.body
        inner.flag = request_header.flag or 0
        # This replaces any map handle_retry_and_dlq created: a DELAY=0 it set is lost here, as in 4.9.3.
        orig_props = string2message_properties(request_header.properties)
        inner.properties = orig_props
        inner.born_timestamp = request_header.born_timestamp or 0
        inner.born_host = InetSocketAddress.parse(parse_channel_remote_addr(ctx.channel))
        inner.store_host = self.store_host
        inner.reconsume_times = request_header.reconsume_times or 0
        orig_props[mc.PROPERTY_CLUSTER] = controller.broker_config.broker_cluster_name
        if mc.PROPERTY_WAIT_STORE_MSG_OK in orig_props:
            # Saves 9 bytes per record; the map keeps WAIT because the store still asks isWaitStoreMsgOK.
            wait = orig_props.pop(mc.PROPERTY_WAIT_STORE_MSG_OK)
            inner.properties_string = message_properties2string(orig_props)
            orig_props[mc.PROPERTY_WAIT_STORE_MSG_OK] = wait
        else:
            inner.properties_string = message_properties2string(orig_props)
        inner.tags_code = MessageExtBrokerInner.tags_string2tags_code(inner.get_tags())

    def _refuse_transaction(self, response: RemotingCommand) -> RemotingCommand:
        """``rejectTransactionMessage``: half messages are forbidden on this broker."""
        broker_config = self.broker_controller.broker_config
        response.code = ResponseCode.NO_PERMISSION
        response.remark = f"the broker[{broker_config.broker_ip1}] sending transaction message is forbidden"
        return response

    def handle_retry_and_dlq(
        self,
        request_header: SendMessageRequestHeader,
        response: RemotingCommand,
        request: RemotingCommand,
        msg: MessageExt,
        topic_config: TopicConfig,
    ) -> bool:
        """Redirect a worn-out retry to the dead-letter topic; ``False`` (response filled in) to refuse.

        A send to ``%RETRY%<group>`` retried ``maxReconsumeTimes`` times goes to ``%DLQ%<group>``; the topic's
        MULTI_TAG filter type sets the SYSFLAG bit.

        Java: SendMessageProcessor#handleRetryAndDLQ
        """
        new_topic = request_header.topic
        if new_topic is not None and new_topic.startswith(mix_all.RETRY_GROUP_TOPIC_PREFIX):
            group = new_topic[len(mix_all.RETRY_GROUP_TOPIC_PREFIX) :]
            controller = self.broker_controller
            group_config = controller.subscription_group_manager.find_subscription_group_config(group)
            if group_config is None:
                response.code = ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST
                response.remark = f"subscription group not exist, {group} {FAQ_SUGGESTION}"
                return False
            max_reconsume_times = group_config.retry_max_times
            if request.version >= V3_4_9 and request_header.max_reconsume_times is not None:
                max_reconsume_times = request_header.max_reconsume_times
            reconsume_times = request_header.reconsume_times or 0
            if reconsume_times >= max_reconsume_times:
                new_topic = mix_all.get_dlq_topic(group)
                queue_id = self.random_queue_id(DLQ_NUMS_PER_GROUP)
                topic_config = controller.topic_config_manager.create_topic_in_send_message_back_method(
                    new_topic, DLQ_NUMS_PER_GROUP, perm_name.PERM_WRITE | perm_name.PERM_READ, 0
                )
                msg.topic = new_topic
                msg.queue_id = queue_id
                msg.set_delay_time_level(0)
                if topic_config is None:
                    response.code = ResponseCode.SYSTEM_ERROR
                    response.remark = f"topic[{new_topic}] not exist"
                    return False
                controller.runtime.trace_event("SendMessageProcessor", "toDLQ", topic=new_topic, times=reconsume_times)
        sys_flag = request_header.sys_flag or 0
        if topic_config.topic_filter_type is TopicFilterType.MULTI_TAG:
            sys_flag |= MessageSysFlag.MULTI_TAGS_FLAG
        msg.sys_flag = int(sys_flag)
        return True

    # -- batch -----------------------------------------------------------------------------------------------
    def async_send_batch_message(
        self, ctx: Any, request: RemotingCommand, request_header: SendMessageRequestHeader
    ) -> Future[RemotingCommand | None]:
        """A batch: one queue, one put, the store splits the body into records.

        Java: SendMessageProcessor#asyncSendBatchMessage
        """
        response = self.pre_send(ctx, request, request_header)
        if response.code != NOT_DECIDED:
            return CompletedFuture(response)
        controller = self.broker_controller
        topic = request_header.topic or ""
        topic_config = controller.topic_config_manager.select_topic_config(topic)
        assert topic_config is not None
        queue_id = request_header.queue_id if request_header.queue_id is not None else -1
        if queue_id < 0:
            queue_id = self.random_queue_id(topic_config.write_queue_nums)
        if len(topic) > 127:  # Java: Byte.MAX_VALUE
            response.code = ResponseCode.MESSAGE_ILLEGAL
            response.remark = f"message topic length too long {len(topic)}"
            return CompletedFuture(response)
        batch = MessageExtBatch.bare()
        batch.topic = topic
        batch.queue_id = queue_id
        sys_flag = request_header.sys_flag or 0
        if topic_config.topic_filter_type is TopicFilterType.MULTI_TAG:
            sys_flag |= MessageSysFlag.MULTI_TAGS_FLAG
        batch.sys_flag = int(sys_flag)
        batch.flag = request_header.flag or 0
        batch.properties = string2message_properties(request_header.properties)
        batch.body = request.body
        batch.born_timestamp = request_header.born_timestamp or 0
        batch.born_host = InetSocketAddress.parse(parse_channel_remote_addr(ctx.channel))
        batch.store_host = self.store_host
        batch.reconsume_times = request_header.reconsume_times or 0
        batch.put_property(mc.PROPERTY_CLUSTER, controller.broker_config.broker_cluster_name)
        put = controller.message_store.async_put_messages(batch)
        return self._then(
            put, lambda result: self.handle_put_message_result(result, response, request, batch, ctx, queue_id)
        )

    # -- the answer ------------------------------------------------------------------------------------------
    def handle_put_message_result(
        self,
        put_message_result: PutMessageResult | None,
        response: RemotingCommand,
        request: RemotingCommand,
        msg: MessageExt,
        ctx: Any,
        queue_id: int,
    ) -> RemotingCommand:
        """Map the put status to a response code and fill the response header when stored.

        The header: msgId (the offset id, comma-joined for a batch), queueId and queueOffset.

        Java: SendMessageProcessor#handlePutMessageResult (Java writes a success itself and returns null; mqlab
        returns it and lets the caller write it)
        """
        if put_message_result is None:
            response.code = ResponseCode.SYSTEM_ERROR
            response.remark = "store putMessage return null"
            return response
        status = put_message_result.put_message_status
        if status in _STORED_CODES:
            response.code = _STORED_CODES[status]
            response.remark = None
            append = put_message_result.append_message_result
            assert append is not None
            header = response.custom_header
            assert isinstance(header, SendMessageResponseHeader)
            header.msg_id = append.msg_id
            header.queue_id = queue_id
            header.queue_offset = append.logics_offset
            return response
        if status is PutMessageStatus.SERVICE_NOT_AVAILABLE:
            response.code = ResponseCode.SERVICE_NOT_AVAILABLE
            response.remark = (
                "service not available now. It may be caused by one of the following reasons: "
                f"the broker's disk is full [{self.disk_util()}], messages are put to the slave, message store has "
                "been shut down, etc."
            )
            return response
        response.code, response.remark = _FAILED.get(status, (ResponseCode.SYSTEM_ERROR, "UNKNOWN_ERROR DEFAULT"))
        return response

    def disk_util(self) -> str:
        """``CL: x.xx CQ: x.xx INDEX: x.xx``: used fraction of the disks under the three store paths.

        Java: SendMessageProcessor#diskUtil (the sizes come from ``runtime.disk``)
        """
        config = self.broker_controller.message_store_config
        root = config.store_path_root_dir

        def used(path: str | Path) -> float:
            if not Path(path).exists():
                return -1.0
            space = self.broker_controller.runtime.disk.space(path)
            return util_all.get_disk_partition_space_used_percent(space.total, space.free, space.usable)

        # Java splits on MixAll.MULTI_PATH_SPLITTER ("," unless -Drocketmq.broker.multiPathSplitter says otherwise).
        physic = min(
            100.0, *(used(p) for p in java_split(java_trim(config.store_path_commit_log), MULTI_PATH_SPLITTER))
        )
        logic = used(store_paths.get_store_path_consume_queue(root))
        index = used(store_paths.get_store_path_index(root))
        return f"CL: {physic:5.2f} CQ: {logic:5.2f} INDEX: {index:5.2f}"

    # -- consumer send-back ----------------------------------------------------------------------------------
    def async_consumer_send_msg_back(self, ctx: Any, request: RemotingCommand) -> Future[RemotingCommand | None]:
        """A consumer gives a message back: a delayed copy in the retry topic, or a copy in the DLQ.

        ``%RETRY%<group>`` with a delay level, or ``%DLQ%<group>`` once it was retried ``maxReconsumeTimes`` times
        (or the consumer asked for it with delayLevel < 0).

        Java: SendMessageProcessor#asyncConsumerSendMsgBack
        """
        controller = self.broker_controller
        response = RemotingCommand.create_response_command()
        request_header = request.decode_command_custom_header(ConsumerSendMsgBackRequestHeader)
        group = request_header.group or ""
        if refuse_invalid_group(group, response):
            return CompletedFuture(response)  # mqlab: the group names the %RETRY% and %DLQ% topics (HARD-1)
        group_config = controller.subscription_group_manager.find_subscription_group_config(group)
        if group_config is None:
            response.code = ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST
            response.remark = f"subscription group not exist, {group} {FAQ_SUGGESTION}"
            return CompletedFuture(response)
        broker_config = controller.broker_config
        if not perm_name.is_writeable(broker_config.broker_permission):
            response.code = ResponseCode.NO_PERMISSION
            response.remark = f"the broker[{broker_config.broker_ip1}] sending message is forbidden"
            return CompletedFuture(response)
        if group_config.retry_queue_nums <= 0:
            response.code, response.remark = ResponseCode.SUCCESS, None  # retries switched off: dropped
            return CompletedFuture(response)
        new_topic = mix_all.get_retry_topic(group)
        queue_id = self.random_queue_id(group_config.retry_queue_nums)
        topic_sys_flag = TOPIC_SYS_FLAG_UNIT_SUB if request_header.unit_mode else 0
        topic_config = controller.topic_config_manager.create_topic_in_send_message_back_method(
            new_topic, group_config.retry_queue_nums, perm_name.PERM_WRITE | perm_name.PERM_READ, topic_sys_flag
        )
        if topic_config is None:
            response.code, response.remark = ResponseCode.SYSTEM_ERROR, f"topic[{new_topic}] not exist"
            return CompletedFuture(response)
        if not perm_name.is_writeable(topic_config.perm):
            response.code = ResponseCode.NO_PERMISSION
            response.remark = f"the topic[{new_topic}] sending message is forbidden"
            return CompletedFuture(response)
        msg_ext = self._look_message(request_header.offset)
        if msg_ext is None:
            response.code = ResponseCode.SYSTEM_ERROR
            response.remark = f"look message by offset failed, {request_header.offset}"
            return CompletedFuture(response)
        if msg_ext.get_property(mc.PROPERTY_RETRY_TOPIC) is None:
            msg_ext.put_property(mc.PROPERTY_RETRY_TOPIC, msg_ext.topic or "")
        msg_ext.set_wait_store_msg_ok(False)
        delay_level = request_header.delay_level or 0
        max_reconsume_times = group_config.retry_max_times
        if request.version >= V3_4_9 and request_header.max_reconsume_times is not None:
            max_reconsume_times = request_header.max_reconsume_times
        delay_level = self.retry_delay_level(msg_ext.reconsume_times, delay_level, max_reconsume_times)
        if delay_level is None:
            new_topic = mix_all.get_dlq_topic(group)
            queue_id = self.random_queue_id(DLQ_NUMS_PER_GROUP)
            topic_config = controller.topic_config_manager.create_topic_in_send_message_back_method(
                new_topic, DLQ_NUMS_PER_GROUP, perm_name.PERM_WRITE | perm_name.PERM_READ, 0
            )
            if topic_config is None:
                response.code, response.remark = ResponseCode.SYSTEM_ERROR, f"topic[{new_topic}] not exist"
                return CompletedFuture(response)
            msg_ext.set_delay_time_level(0)  # 4.9.3: straight into the DLQ (4.9.1 kept the old DELAY)
        else:
            msg_ext.set_delay_time_level(delay_level)
        inner = self._send_back_inner_message(msg_ext, new_topic, queue_id)
        controller.runtime.trace_event(
            "SendMessageProcessor",
            "consumerSendMsgBack",
            group=group,
            topic=new_topic,
            reconsumeTimes=inner.reconsume_times,
            delayLevel=inner.get_delay_time_level(),
        )
        put = controller.message_store.async_put_message(inner)
        return self._then(put, lambda result: self._send_back_answer(result, response))

    @staticmethod
    def retry_delay_level(reconsume_times: int, delay_level: int, max_reconsume_times: int) -> int | None:
        """The delay level of the copy in ``%RETRY%<group>``, or None when it goes to ``%DLQ%<group>``.

        Dead letter once the message was retried ``max_reconsume_times`` times or the consumer asked for it (a
        negative level); otherwise the consumer's level, or ``3 + reconsumeTimes`` when it left the choice (0).
        A subclass may decide differently (the retry-ladder lab of mqlab.labs registers one).

        Java: the decision inside SendMessageProcessor#asyncConsumerSendMsgBack
        """
        if reconsume_times >= max_reconsume_times or delay_level < 0:
            return None
        return 3 + reconsume_times if delay_level == 0 else delay_level

    def _look_message(self, offset: int | None) -> MessageExt | None:
        if offset is None:
            return None
        try:
            return self.broker_controller.message_store.look_message_by_offset(offset)
        except MessageFormatError:
            return None  # not the start of a record: Java's decode fails the same way

    @staticmethod
    def _send_back_inner_message(msg_ext: MessageExt, new_topic: str, queue_id: int) -> MessageExtBrokerInner:
        """The copy to store: same body (as stored), flag, property map and hosts; one more reconsume time."""
        inner = MessageExtBrokerInner.bare()
        inner.topic = new_topic
        inner.body = msg_ext.body
        inner.flag = msg_ext.flag
        inner.properties = msg_ext.properties  # the same map, as MessageAccessor#setProperties shares it
        inner.tags_code = MessageExtBrokerInner.tags_string2tags_code(msg_ext.get_tags())
        inner.queue_id = queue_id
        inner.sys_flag = msg_ext.sys_flag
        inner.born_timestamp = msg_ext.born_timestamp
        inner.born_host = msg_ext.born_host
        inner.store_host = msg_ext.store_host
        inner.reconsume_times = msg_ext.reconsume_times + 1
        origin = msg_ext.get_property(mc.PROPERTY_ORIGIN_MESSAGE_ID)
        inner.put_property(
            mc.PROPERTY_ORIGIN_MESSAGE_ID, (msg_ext.msg_id or "") if util_all.is_blank(origin) else origin
        )
        inner.properties_string = message_properties2string(inner.properties)
        return inner

    @staticmethod
    def _send_back_answer(result: PutMessageResult | None, response: RemotingCommand) -> RemotingCommand:
        if result is None:
            response.code, response.remark = ResponseCode.SYSTEM_ERROR, "putMessageResult is null"
        elif result.put_message_status is PutMessageStatus.PUT_OK:
            response.code, response.remark = ResponseCode.SUCCESS, None
        else:
            response.code, response.remark = ResponseCode.SYSTEM_ERROR, result.put_message_status.name
        return response

"""Answers PULL_MESSAGE: checks, the subscription's filter, a read from the store, and long polling.

Java: org.apache.rocketmq.broker.processor.PullMessageProcessor (rocketmq-all-4.9.3)
Left out: consume hooks and statistics, zero-copy transfer (``transferMsgByHeap=false`` is answered from the heap
too), class filters, SQL92 filtering (refused with a clear answer, see ``build_subscription``).

``process_request`` runs the Java call chain as named steps: ``check_permission`` → ``build_subscription`` → the
store's ``get_message`` with an ``ExpressionMessageFilter`` → ``fill_response`` (status → response code, next/min/max
offsets, suggested broker) → ``finish`` (the body; parking a PULL_NOT_FOUND in the ``PullRequestHoldService``; the
OFFSET_MOVED_EVENT record) → ``commit_offset`` (the offset the consumer carried in the pull). A parked pull runs the
whole chain again when woken (``execute_request_when_wakeup``), this time without the right to park.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from mqlab.broker.filter.expression_message_filter import ExpressionMessageFilter
from mqlab.broker.longpolling.pull_request import PullRequest
from mqlab.broker.processor.abstract_send_message_processor import FAQ_SUGGESTION
from mqlab.broker.processor.group_check import refuse_invalid_group
from mqlab.common import mix_all
from mqlab.common.constant import perm_name
from mqlab.common.filter import filter_api
from mqlab.common.filter.expression_type import is_tag_type
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message_decoder import message_properties2string
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.header.broker_headers import PullMessageRequestHeader, PullMessageResponseHeader
from mqlab.common.protocol.heartbeat.message_model import MessageModel
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.protocol.topic.offset_moved_event import OffsetMovedEvent
from mqlab.common.sysflag import pull_sys_flag
from mqlab.common.topic import topic_validator
from mqlab.remoting.common.remoting_helper import parse_channel_remote_addr
from mqlab.remoting.exception.remoting_command_exception import RemotingCommandException
from mqlab.remoting.netty.request_task import RequestTask
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from mqlab.runtime.network import NetworkError
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.get_message_status import GetMessageStatus
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner

if TYPE_CHECKING:
    from mqlab.broker.broker_controller import BrokerController
    from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData
    from mqlab.common.subscription.subscription_group_config import SubscriptionGroupConfig
    from mqlab.common.topic_config import TopicConfig
    from mqlab.store.get_message_result import GetMessageResult


def _offset_moved_if_not_zero(offset: int) -> ResponseCode:
    return ResponseCode.PULL_OFFSET_MOVED if offset != 0 else ResponseCode.PULL_NOT_FOUND


# Java's switch on GetMessageStatus (NO_MESSAGE_IN_QUEUE / NO_MATCHED_LOGIC_QUEUE depend on the requested offset).
STATUS_TO_CODE = {
    GetMessageStatus.FOUND: ResponseCode.SUCCESS,
    GetMessageStatus.MESSAGE_WAS_REMOVING: ResponseCode.PULL_RETRY_IMMEDIATELY,
    GetMessageStatus.NO_MATCHED_MESSAGE: ResponseCode.PULL_RETRY_IMMEDIATELY,
    GetMessageStatus.OFFSET_FOUND_NULL: ResponseCode.PULL_NOT_FOUND,
    GetMessageStatus.OFFSET_OVERFLOW_BADLY: ResponseCode.PULL_OFFSET_MOVED,
    GetMessageStatus.OFFSET_OVERFLOW_ONE: ResponseCode.PULL_NOT_FOUND,
    GetMessageStatus.OFFSET_TOO_SMALL: ResponseCode.PULL_OFFSET_MOVED,
}


class PullMessageProcessor:
    """The broker's read path.

    Args:
        broker_controller: the broker (configs, managers, store, hold service, pull executor, remoting server).
    """

    def __init__(self, broker_controller: BrokerController):
        self.broker_controller = broker_controller

    def process_request(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        """A pull from a consumer, which may be parked. Java: PullMessageProcessor#processRequest(ctx, request)."""
        return self.pull(ctx.channel, request, broker_allow_suspend=True)

    def reject_request(self) -> bool:
        """Never. Java: PullMessageProcessor#rejectRequest."""
        return False

    # -- the call chain --------------------------------------------------------------------------------------
    def pull(self, channel: Any, request: RemotingCommand, *, broker_allow_suspend: bool) -> RemotingCommand | None:
        """The response, or ``None`` when the pull was parked.

        Java: PullMessageProcessor#processRequest(channel, request, brokerAllowSuspend)
        """
        controller = self.broker_controller
        response = RemotingCommand.create_response_command(custom_header=PullMessageResponseHeader())
        request_header = request.decode_command_custom_header(PullMessageRequestHeader)
        response.opaque = request.opaque
        checked = self.check_permission(channel, request_header, response)
        if checked is None:
            return response
        group_config, _topic_config = checked
        subscription_data = self.build_subscription(request_header, group_config, response)
        if subscription_data is None:
            return response
        message_filter = ExpressionMessageFilter(subscription_data)
        result = controller.message_store.get_message(
            request_header.consumer_group or "",
            request_header.topic or "",
            request_header.queue_id or 0,
            request_header.queue_offset or 0,
            request_header.max_msg_nums or 0,
            message_filter,
        )
        if result is None:
            response.code, response.remark = ResponseCode.SYSTEM_ERROR, "store getMessage return null"
        else:
            self.fill_response(request_header, group_config, result, response)
            response = self.finish(
                channel,
                request,
                request_header,
                group_config,
                subscription_data,
                message_filter,
                result,
                response,
                broker_allow_suspend=broker_allow_suspend,
            )
        self.commit_offset(channel, request_header, broker_allow_suspend=broker_allow_suspend)
        return response

    def check_permission(
        self, channel: Any, request_header: PullMessageRequestHeader, response: RemotingCommand
    ) -> tuple[SubscriptionGroupConfig, TopicConfig] | None:
        """Broker readable, group known and allowed, topic known and readable, queue id in range.

        Returns ``None`` (response filled in) to refuse.
        """
        controller = self.broker_controller
        broker_config = controller.broker_config
        if not perm_name.is_readable(broker_config.broker_permission):
            response.code = ResponseCode.NO_PERMISSION
            response.remark = f"the broker[{broker_config.broker_ip1}] pulling message is forbidden"
            return None
        group = request_header.consumer_group or ""
        if refuse_invalid_group(group, response):
            return None
        group_config = controller.subscription_group_manager.find_subscription_group_config(group)
        if group_config is None:
            response.code = ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST
            response.remark = f"subscription group [{group}] does not exist, {FAQ_SUGGESTION}"
            return None
        if not group_config.consume_enable:
            response.code = ResponseCode.NO_PERMISSION
            response.remark = f"subscription group no permission, {group}"
            return None
        topic = request_header.topic or ""
        topic_config = controller.topic_config_manager.select_topic_config(topic)
        if topic_config is None:
            response.code = ResponseCode.TOPIC_NOT_EXIST
            response.remark = f"topic[{topic}] not exist, apply first please! {FAQ_SUGGESTION}"
            return None
        if not perm_name.is_readable(topic_config.perm):
            response.code = ResponseCode.NO_PERMISSION
            response.remark = f"the topic[{topic}] pulling message is forbidden"
            return None
        queue_id = request_header.queue_id if request_header.queue_id is not None else -1
        if queue_id < 0 or queue_id >= topic_config.read_queue_nums:
            response.code = ResponseCode.SYSTEM_ERROR
            response.remark = (
                f"queueId[{queue_id}] is illegal, topic:[{topic}] topicConfig.readQueueNums:"
                f"[{topic_config.read_queue_nums}] consumer:[{getattr(channel, 'remote_address', '')}]"
            )
            return None
        return group_config, topic_config

    def build_subscription(
        self,
        request_header: PullMessageRequestHeader,
        group_config: SubscriptionGroupConfig,
        response: RemotingCommand,
    ) -> SubscriptionData | None:
        """The subscription sent with the pull (SUBSCRIPTION flag) or the one the group's heartbeats registered.

        SQL92 subscriptions: with ``enablePropertyFilter`` off (the default) the answer is Java's SYSTEM_ERROR
        "The broker does not support consumer to filter message by SQL92"; with it on, mqlab answers
        SUBSCRIPTION_PARSE_FAILED, since it cannot evaluate SQL92 (Java would compile and evaluate it).
        Returns ``None`` (response filled in) to refuse.
        """
        controller = self.broker_controller
        topic = request_header.topic or ""
        group = request_header.consumer_group or ""
        sys_flag = request_header.sys_flag or 0
        if pull_sys_flag.has_subscription_flag(sys_flag):
            try:
                subscription_data = filter_api.build(
                    topic, request_header.subscription, request_header.expression_type, request_header.sub_version or 0
                )
            except filter_api.SubscriptionExpressionError:
                response.code = ResponseCode.SUBSCRIPTION_PARSE_FAILED
                response.remark = "parse the consumer's subscription failed"
                return None
        else:
            group_info = controller.consumer_manager.get_consumer_group_info(group)
            if group_info is None:
                response.code = ResponseCode.SUBSCRIPTION_NOT_EXIST
                response.remark = f"the consumer's group info not exist{FAQ_SUGGESTION}"
                return None
            if not group_config.consume_broadcast_enable and group_info.message_model is MessageModel.BROADCASTING:
                response.code = ResponseCode.NO_PERMISSION
                response.remark = f"the consumer group[{group}] can not consume by broadcast way"
                return None
            subscription_data = group_info.find_subscription_data(topic)
            if subscription_data is None:
                response.code = ResponseCode.SUBSCRIPTION_NOT_EXIST
                response.remark = f"the consumer's subscription not exist{FAQ_SUGGESTION}"
                return None
            if subscription_data.sub_version < (request_header.sub_version or 0):
                response.code = ResponseCode.SUBSCRIPTION_NOT_LATEST
                response.remark = "the consumer's subscription not latest"
                return None
        if not is_tag_type(subscription_data.expression_type):
            if not controller.broker_config.enable_property_filter:
                response.code = ResponseCode.SYSTEM_ERROR
                response.remark = (
                    f"The broker does not support consumer to filter message by {subscription_data.expression_type}"
                )
            else:
                response.code = ResponseCode.SUBSCRIPTION_PARSE_FAILED
                response.remark = f"mqlab does not evaluate {subscription_data.expression_type} expressions"
            return None
        return subscription_data

    def fill_response(
        self,
        request_header: PullMessageRequestHeader,
        group_config: SubscriptionGroupConfig,
        result: GetMessageResult,
        response: RemotingCommand,
    ) -> None:
        """Remark (the status name), next/min/max offsets, suggested broker, and the response code."""
        controller = self.broker_controller
        header = response.custom_header
        assert isinstance(header, PullMessageResponseHeader) and result.status is not None
        response.remark = result.status.name
        header.next_begin_offset = result.next_begin_offset
        header.min_offset = result.min_offset
        header.max_offset = result.max_offset
        if result.suggest_pulling_from_slave:
            header.suggest_which_broker_id = group_config.which_broker_when_consume_slowly
        else:
            header.suggest_which_broker_id = mix_all.MASTER_ID
        if (
            controller.message_store_config.broker_role is BrokerRole.SLAVE
            and not controller.broker_config.slave_read_enable
        ):
            # Java sets this, but the status switch below overwrites the code (kept for the suggested broker).
            response.code = ResponseCode.PULL_RETRY_IMMEDIATELY
            header.suggest_which_broker_id = mix_all.MASTER_ID
        if controller.broker_config.slave_read_enable:
            slowly = result.suggest_pulling_from_slave
            header.suggest_which_broker_id = (
                group_config.which_broker_when_consume_slowly if slowly else group_config.broker_id
            )
        else:
            header.suggest_which_broker_id = mix_all.MASTER_ID
        status = result.status
        if status in (GetMessageStatus.NO_MATCHED_LOGIC_QUEUE, GetMessageStatus.NO_MESSAGE_IN_QUEUE):
            response.code = _offset_moved_if_not_zero(request_header.queue_offset or 0)
        else:
            response.code = STATUS_TO_CODE[status]

    def finish(
        self,
        channel: Any,
        request: RemotingCommand,
        request_header: PullMessageRequestHeader,
        group_config: SubscriptionGroupConfig,
        subscription_data: SubscriptionData,
        message_filter: ExpressionMessageFilter,
        result: GetMessageResult,
        response: RemotingCommand,
        *,
        broker_allow_suspend: bool,
    ) -> RemotingCommand | None:
        """What each code needs after the read.

        SUCCESS: the records as the body. PULL_NOT_FOUND with SUSPEND: park (``None``). OFFSET_MOVED: record an
        OffsetMovedEvent on a master (a slave answers PULL_RETRY_IMMEDIATELY instead).
        """
        controller = self.broker_controller
        if response.code == ResponseCode.SUCCESS:
            # transferMsgByHeap: the stored records, back to back (Java copies them into one heap buffer).
            response.body = result.message_bytes()
            return response
        sys_flag = request_header.sys_flag or 0
        if response.code == ResponseCode.PULL_NOT_FOUND:
            if broker_allow_suspend and pull_sys_flag.has_suspend_flag(sys_flag):
                self.suspend(channel, request, request_header, subscription_data, message_filter)
                return None
            return response
        if response.code == ResponseCode.PULL_OFFSET_MOVED:
            store_config = controller.message_store_config
            if store_config.broker_role is not BrokerRole.SLAVE or store_config.offset_check_in_slave:
                mq = MessageQueue(
                    request_header.topic or "", controller.broker_config.broker_name, request_header.queue_id or 0
                )
                self.generate_offset_moved_event(
                    OffsetMovedEvent(
                        request_header.consumer_group or "",
                        mq,
                        request_header.queue_offset or 0,
                        result.next_begin_offset,
                    )
                )
            else:
                header = response.custom_header
                assert isinstance(header, PullMessageResponseHeader)
                header.suggest_which_broker_id = group_config.broker_id
                response.code = ResponseCode.PULL_RETRY_IMMEDIATELY
        return response

    def suspend(
        self,
        channel: Any,
        request: RemotingCommand,
        request_header: PullMessageRequestHeader,
        subscription_data: SubscriptionData,
        message_filter: ExpressionMessageFilter,
    ) -> None:
        """Park the pull: the consumer's suspend timeout with long polling, else ``shortPollingTimeMills``."""
        controller = self.broker_controller
        polling_time_mills = request_header.suspend_timeout_millis or 0
        if not controller.broker_config.long_polling_enable:
            polling_time_mills = int(controller.broker_config.short_polling_time_mills)
        pull_request = PullRequest(
            request,
            channel,
            polling_time_mills,
            controller.runtime.now_ms(),
            request_header.queue_offset or 0,
            subscription_data,
            message_filter,
        )
        controller.pull_request_hold_service.suspend_pull_request(
            request_header.topic or "", request_header.queue_id or 0, pull_request
        )

    def commit_offset(
        self, channel: Any, request_header: PullMessageRequestHeader, *, broker_allow_suspend: bool
    ) -> None:
        """Store the offset the consumer carried (COMMIT_OFFSET flag), on a master and only on the first run."""
        controller = self.broker_controller
        store_offset_enable = (
            broker_allow_suspend
            and pull_sys_flag.has_commit_offset_flag(request_header.sys_flag or 0)
            and controller.message_store_config.broker_role is not BrokerRole.SLAVE
        )
        if store_offset_enable:
            controller.consumer_offset_manager.commit_offset(
                parse_channel_remote_addr(channel),
                request_header.consumer_group or "",
                request_header.topic or "",
                request_header.queue_id or 0,
                request_header.commit_offset or 0,
            )

    def generate_offset_moved_event(self, event: OffsetMovedEvent) -> None:
        """Record that a group's offset was moved, in topic OFFSET_MOVED_EVENT (tags and keys = the group).

        Java: PullMessageProcessor#generateOffsetMovedEvent
        """
        controller = self.broker_controller
        inner = MessageExtBrokerInner.bare()
        inner.topic = topic_validator.RMQ_SYS_OFFSET_MOVED_EVENT
        inner.set_tags(event.consumer_group)
        inner.set_delay_time_level(0)
        inner.set_keys(event.consumer_group)
        inner.body = event.encode()
        inner.flag = 0
        inner.properties_string = message_properties2string(inner.properties)
        inner.tags_code = MessageExtBrokerInner.tags_string2tags_code(inner.get_tags())
        inner.queue_id = 0
        inner.sys_flag = 0
        inner.born_timestamp = controller.runtime.now_ms()
        inner.born_host = InetSocketAddress.parse(controller.get_broker_addr())
        inner.store_host = inner.born_host
        inner.reconsume_times = 0
        result = controller.message_store.put_message(inner)
        controller.runtime.trace_event(
            "PullMessageProcessor",
            "offsetMovedEvent",
            group=event.consumer_group,
            queueId=event.message_queue.queue_id,
            offsetRequest=event.offset_request,
            offsetNew=event.offset_new,
            status=result.put_message_status.name,
        )

    # -- long polling ----------------------------------------------------------------------------------------
    def execute_request_when_wakeup(self, channel: Any, request: RemotingCommand) -> None:
        """Run a parked pull again on the pull executor and write its answer to the consumer's connection.

        Java: PullMessageProcessor#executeRequestWhenWakeup (a RequestTask stamped now, so fast failure can answer
        a woken pull that waits too long in the pull queue)
        """
        controller = self.broker_controller
        task = RequestTask(
            partial(self._run_woken, channel, request),
            channel,
            request,
            controller.runtime.now_ms(),
            write_and_flush=partial(controller.remoting_server.write_and_flush, channel),
        )
        controller.pull_message_executor.submit(task.run)

    def _run_woken(self, channel: Any, request: RemotingCommand) -> None:
        controller = self.broker_controller
        try:
            response = self.pull(channel, request, broker_allow_suspend=False)
        except RemotingCommandException as exc:  # Java logs and drops the pull
            controller.runtime.trace_event("PullMessageProcessor", "wakeupFailed", error=str(exc))
            return
        if response is None:
            return
        response.opaque = request.opaque
        response.mark_response_type()
        try:
            controller.remoting_server.write_and_flush(channel, response)
        except (NetworkError, RemotingCommandException) as exc:  # the consumer went away meanwhile
            controller.runtime.trace_event("PullMessageProcessor", "responseFailed", error=str(exc))
            return
        controller.runtime.trace_event(
            "PullMessageProcessor", "wokenResponse", code=int(response.code), remark=response.remark
        )

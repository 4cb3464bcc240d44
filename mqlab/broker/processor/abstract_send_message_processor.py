"""What every send processor shares: header parsing, the pre-checks of a send, and writing the answer.

Java: org.apache.rocketmq.broker.processor.AbstractSendMessageProcessor (rocketmq-all-4.9.3)
Left out: send-message hooks and their trace context (message traces), ``msgContentCheck`` (unused in 4.9.3),
``buildInnerMsg`` (used only by the reply processor).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.common import mix_all
from mqlab.common.constant import perm_name
from mqlab.common.protocol.header.broker_headers import (
    SendMessageRequestHeader,
    SendMessageRequestHeaderV2,
    create_send_message_request_header_v1,
)
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.topic import topic_validator
from mqlab.remoting.command_custom_header import decode_header
from mqlab.remoting.common.remoting_helper import parse_channel_remote_addr
from mqlab.remoting.exception.remoting_command_exception import RemotingCommandException
from mqlab.runtime.network import NetworkError

if TYPE_CHECKING:
    from mqlab.broker.broker_controller import BrokerController
    from mqlab.common.jdk.inet_socket_address import InetSocketAddress
    from mqlab.common.topic_config import TopicConfig
    from mqlab.remoting.protocol.remoting_command import RemotingCommand

# Java: AbstractSendMessageProcessor.DLQ_NUMS_PER_GROUP: a dead-letter topic has one queue.
DLQ_NUMS_PER_GROUP = 1
# Java: FAQUrl.suggestTodo(url); every 4.9.3 FAQ URL is the same page.
FAQ_SUGGESTION = "\nSee http://rocketmq.apache.org/docs/faq/ for further details."
# Java: MQVersion.Version.V3_4_9.ordinal(): requests at least this new carry maxReconsumeTimes themselves.
V3_4_9 = 121
# Java: TopicSysFlag.FLAG_UNIT / FLAG_UNIT_SUB (unit mode, kept for the flag values only).
TOPIC_SYS_FLAG_UNIT = 0x1
TOPIC_SYS_FLAG_UNIT_SUB = 0x1 << 1


def topic_config_to_string(config: TopicConfig) -> str:
    """Java's ``TopicConfig#toString`` (quoted in the "queueId is illegal" remark)."""
    return (
        f"TopicConfig [topicName={config.topic_name}, readQueueNums={config.read_queue_nums}, "
        f"writeQueueNums={config.write_queue_nums}, perm={perm_name.perm2string(config.perm)}, "
        f"topicFilterType={config.topic_filter_type.value}, topicSysFlag={config.topic_sys_flag}, "
        f"order={'true' if config.order else 'false'}]"
    )


class AbstractSendMessageProcessor:
    """Base of ``SendMessageProcessor``.

    Args:
        broker_controller: the broker (configs, managers, store, store host).
    """

    def __init__(self, broker_controller: BrokerController):
        self.broker_controller = broker_controller

    @property
    def store_host(self) -> InetSocketAddress:
        """``brokerIP1:listenPort``: the STOREHOST of every record this broker writes. Java: #getStoreHost."""
        return self.broker_controller.store_host

    def random_queue_id(self, write_queue_nums: int) -> int:
        """Java: ``ThreadLocalRandom.current().nextInt(99999999) % writeQueueNums`` (from the runtime's stream)."""
        return self.broker_controller.runtime.random.randrange(99999999) % write_queue_nums

    # -- headers ---------------------------------------------------------------------------------------------
    @staticmethod
    def decode_send_message_header_v2(request: RemotingCommand) -> SendMessageRequestHeaderV2:
        """The V2 header, fields a..h required and parsed strictly.

        Java: AbstractSendMessageProcessor#decodeSendMessageHeaderV2

        Raises:
            RemotingCommandException: no ext fields, or a required field missing or not a number.
        """
        if request.ext_fields is None:
            raise RemotingCommandException("the ext fields is null")
        return decode_header(SendMessageRequestHeaderV2, request.ext_fields, strict=True)

    def parse_request_header(self, request: RemotingCommand) -> SendMessageRequestHeader | None:
        """The V1 header of SEND_MESSAGE, or V2 (SEND_MESSAGE_V2, SEND_BATCH_MESSAGE) converted to V1.

        Java: AbstractSendMessageProcessor#parseRequestHeader
        """
        if request.code in (RequestCode.SEND_MESSAGE_V2, RequestCode.SEND_BATCH_MESSAGE):
            return create_send_message_request_header_v1(self.decode_send_message_header_v2(request))
        if request.code == RequestCode.SEND_MESSAGE:
            return request.decode_command_custom_header(SendMessageRequestHeader)
        return None

    # -- the checks before a send ----------------------------------------------------------------------------
    def msg_check(
        self, ctx: Any, request_header: SendMessageRequestHeader, response: RemotingCommand
    ) -> RemotingCommand:
        """The checks before a send; a failure sets the response's code and remark.

        In order: the broker's write permission (order topics only), the topic name, forbidden topics, the topic
        itself (created from the default topic if unknown), the queue id.

        Java: AbstractSendMessageProcessor#msgCheck
        """
        controller = self.broker_controller
        broker_config = controller.broker_config
        topic = request_header.topic or ""
        if not perm_name.is_writeable(
            broker_config.broker_permission
        ) and controller.topic_config_manager.is_order_topic(topic):
            response.code = ResponseCode.NO_PERMISSION
            response.remark = f"the broker[{broker_config.broker_ip1}] sending message is forbidden"
            return response
        failure = topic_validator.validate_topic(request_header.topic) or topic_validator.not_allowed_send_answer(topic)
        if failure is not None:
            response.code, response.remark = failure
            return response
        topic_config = controller.topic_config_manager.select_topic_config(topic)
        if topic_config is None:
            topic_config = self._create_topic_for_send(ctx, request_header)
            if topic_config is None:
                response.code = ResponseCode.TOPIC_NOT_EXIST
                response.remark = f"topic[{topic}] not exist, apply first please!{FAQ_SUGGESTION}"
                return response
        queue_id = request_header.queue_id if request_header.queue_id is not None else -1
        if queue_id >= max(topic_config.write_queue_nums, topic_config.read_queue_nums):
            response.code = ResponseCode.SYSTEM_ERROR
            response.remark = (
                f"request queueId[{queue_id}] is illegal, {topic_config_to_string(topic_config)} "
                f"Producer: {parse_channel_remote_addr(ctx.channel)}"
            )
        return response

    def _create_topic_for_send(self, ctx: Any, request_header: SendMessageRequestHeader) -> TopicConfig | None:
        """An unknown topic: inherit from the default topic (TBW102); a ``%RETRY%`` topic gets one RW queue."""
        manager = self.broker_controller.topic_config_manager
        topic = request_header.topic or ""
        topic_sys_flag = 0
        if request_header.unit_mode:
            retry = topic.startswith(mix_all.RETRY_GROUP_TOPIC_PREFIX)
            topic_sys_flag = TOPIC_SYS_FLAG_UNIT_SUB if retry else TOPIC_SYS_FLAG_UNIT
        config = manager.create_topic_in_send_message_method(
            topic,
            request_header.default_topic or "",
            parse_channel_remote_addr(ctx.channel),
            request_header.default_topic_queue_nums or 0,
            topic_sys_flag,
        )
        if config is None and topic.startswith(mix_all.RETRY_GROUP_TOPIC_PREFIX):
            config = manager.create_topic_in_send_message_back_method(
                topic, 1, perm_name.PERM_WRITE | perm_name.PERM_READ, topic_sys_flag
            )
        return config

    # -- answering -------------------------------------------------------------------------------------------
    def do_response(self, ctx: Any, request: RemotingCommand, response: RemotingCommand) -> None:
        """Write an answer that comes after ``process_request`` returned (not for oneway requests).

        Java: AbstractSendMessageProcessor#doResponse (and the response callback of NettyRemotingAbstract)
        """
        if request.is_oneway_rpc():
            return
        response.opaque = request.opaque
        response.mark_response_type()
        try:
            ctx.write_and_flush(response)
        except (NetworkError, RemotingCommandException) as exc:  # Java logs "process request over, but response failed"
            self.broker_controller.runtime.trace_event("SendMessageProcessor", "responseFailed", error=repr(exc))

    def reject_request(self) -> bool:
        """Java: AbstractSendMessageProcessor#rejectRequest (overridden by SendMessageProcessor)."""
        return False

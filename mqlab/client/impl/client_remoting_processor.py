"""What a client does with the requests a broker sends it over the client's own connection.

The one that matters for the message life cycle is NOTIFY_CONSUMER_IDS_CHANGED (40, oneway): a consumer joined or
left a group, so every member rebalances at once instead of waiting for the 20 s timer
(``MQClientInstance.rebalance_immediately``). GET_CONSUMER_RUNNING_INFO is answered from the consumer when it can
describe itself, else with SYSTEM_ERROR as Java does for an unknown group. RESET_CONSUMER_CLIENT_OFFSET (oneway)
carries the offsets an admin tool reset the group to; ``MQClientInstance.reset_offset`` applies them.
CONSUME_MESSAGE_DIRECTLY hands one stored message to the group's listener at once and answers how it took it.
CHECK_TRANSACTION_STATE (oneway) asks the producer of the message's PGROUP about a half message; the producer
answers later with its own END_TRANSACTION (``DefaultMQProducerImpl.check_transaction_state``).

Java: org.apache.rocketmq.client.impl.ClientRemotingProcessor (rocketmq-all-4.9.3)
Left out (answered REQUEST_CODE_NOT_SUPPORTED, or ignored for oneway requests, which get no answer anyway):
consumer status queries (GET_CONSUMER_STATUS_FROM_CLIENT) and request-reply (PUSH_REPLY_MESSAGE_TO_CLIENT).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message import message_const as mc
from mqlab.common.message import message_decoder
from mqlab.common.message.message_errors import MessageFormatError
from mqlab.common.protocol.body.reset_offset_body import ResetOffsetBody
from mqlab.common.protocol.header.broker_headers import (
    ConsumeMessageDirectlyResultRequestHeader,
    NotifyConsumerIdsChangedRequestHeader,
    ResetOffsetRequestHeader,
)
from mqlab.common.protocol.header.check_transaction_state_request_header import CheckTransactionStateRequestHeader
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.common.remoting_helper import parse_channel_remote_addr
from mqlab.remoting.protocol.remoting_command import RemotingCommand

if TYPE_CHECKING:
    from mqlab.client.impl.factory.mq_client_instance import MQClientInstance

COMPONENT = "ClientRemotingProcessor"


class ClientRemotingProcessor:
    """The client's processor for broker-initiated requests.

    Args:
        mq_client_factory: the client instance whose consumers the requests concern.
    """

    def __init__(self, mq_client_factory: MQClientInstance):
        self.mq_client_factory = mq_client_factory

    def process_request(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        """Dispatch on the request code. Java: ClientRemotingProcessor#processRequest."""
        if request.code == RequestCode.CHECK_TRANSACTION_STATE:
            return self.check_transaction_state(ctx, request)
        if request.code == RequestCode.NOTIFY_CONSUMER_IDS_CHANGED:
            return self.notify_consumer_ids_changed(ctx, request)
        if request.code == RequestCode.RESET_CONSUMER_CLIENT_OFFSET:
            return self.reset_offset(ctx, request)
        if request.code == RequestCode.GET_CONSUMER_RUNNING_INFO:
            return self.get_consumer_running_info(ctx, request)
        if request.code == RequestCode.CONSUME_MESSAGE_DIRECTLY:
            return self.consume_message_directly(ctx, request)
        return self._not_supported(ctx, request)

    def reject_request(self) -> bool:
        """Never refuse. Java: ClientRemotingProcessor#rejectRequest."""
        return False

    def check_transaction_state(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        """Hand a broker's transaction check to the producer of the message's group; no answer (oneway).

        The body is a full record (decoded with the body inflated); ``transactionId`` = its UNIQ_KEY; the producer
        is the one registered under its PGROUP. A missing group or producer, or a body that does not decode, is
        only traced, as Java logs it.

        Java: ClientRemotingProcessor#checkTransactionState (no namespaces in mqlab)
        """
        factory = self.mq_client_factory
        header = request.decode_command_custom_header(CheckTransactionStateRequestHeader)
        try:
            message_ext = message_decoder.decode(request.body or b"")
        except MessageFormatError as exc:
            factory.runtime.trace_event(COMPONENT, "checkTransactionStateDecodeFailed", error=repr(exc))
            return None
        transaction_id = message_ext.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
        if transaction_id:
            message_ext.transaction_id = transaction_id
        group = message_ext.get_property(mc.PROPERTY_PRODUCER_GROUP)
        producer = factory.select_producer(group) if group is not None else None
        factory.runtime.trace_event(
            COMPONENT,
            "checkTransactionState",
            broker=_remote(ctx),
            group=group,
            msgId=header.msg_id,
            commitLogOffset=header.commit_log_offset,
            producer=producer is not None,
        )
        if producer is not None:
            producer.check_transaction_state(_remote(ctx), message_ext, header)
        return None

    def notify_consumer_ids_changed(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        """Rebalance now; no answer (the request is oneway). Java: ClientRemotingProcessor#notifyConsumerIdsChanged."""
        try:
            header = request.decode_command_custom_header(NotifyConsumerIdsChangedRequestHeader)
            self.mq_client_factory.runtime.trace_event(
                COMPONENT,
                "notifyConsumerIdsChanged",
                broker=_remote(ctx),
                group=header.consumer_group,
            )
            self.mq_client_factory.rebalance_immediately()
        except Exception as exc:  # Java logs and goes on
            self.mq_client_factory.runtime.trace_event(COMPONENT, "notifyFailed", error=repr(exc))
        return None

    def reset_offset(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        """Apply the offsets a broker sent (``MQClientInstance.reset_offset``); no answer (the request is oneway).

        A body that is not a ResetOffsetBody (the C++ list form) fails here: Java's decode throws too, and its
        remoting layer logs the exception; mqlab traces it.

        Java: ClientRemotingProcessor#resetOffset
        """
        try:
            header = request.decode_command_custom_header(ResetOffsetRequestHeader)
            self.mq_client_factory.runtime.trace_event(
                COMPONENT,
                "resetOffset",
                broker=_remote(ctx),
                topic=header.topic,
                group=header.group,
                timestamp=header.timestamp,
            )
            offset_table = JavaHashMap() if request.body is None else ResetOffsetBody.decode(request.body).offset_table
            self.mq_client_factory.reset_offset(header.topic or "", header.group or "", offset_table)
        except Exception as exc:
            self.mq_client_factory.runtime.trace_event(COMPONENT, "resetOffsetFailed", error=repr(exc))
        return None

    def get_consumer_running_info(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """The consumer's self-description as the body, or SYSTEM_ERROR for a group this client does not have.

        Java: ClientRemotingProcessor#getConsumerRunningInfo (no jstack in mqlab). The header is read from the ext
        fields directly: mqlab has no GetConsumerRunningInfoRequestHeader class.
        """
        group = (request.ext_fields or {}).get("consumerGroup")
        info = self.mq_client_factory.consumer_running_info(group) if group is not None else None
        response = RemotingCommand.create_response_command(remark=None)
        if info is not None:
            response.code = ResponseCode.SUCCESS
            encode = getattr(info, "encode", None)
            response.body = encode() if encode is not None else None
        else:
            response.code = ResponseCode.SYSTEM_ERROR
            response.remark = f"The Consumer Group <{group}> not exist in this consumer"
        return response

    def consume_message_directly(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Consume the record in the body now (an admin tool's push, relayed by the broker); answer the result.

        SYSTEM_ERROR "The Consumer Group <g> not exist in this consumer" for a group this client does not have.

        Java: ClientRemotingProcessor#consumeMessageDirectly. Java decodes a plain MessageExt, whose ``getMsgId``
        is the offsetMsgId; mqlab decodes the client form (``get_msg_id`` is the UNIQ_KEY, as for every consumed
        message) because mqlab's plain MessageExt has no ``get_msg_id`` a listener could call.
        """
        header = request.decode_command_custom_header(ConsumeMessageDirectlyResultRequestHeader)
        msg = message_decoder.decode(request.body or b"", is_client=True)
        result = self.mq_client_factory.consume_message_directly(msg, header.consumer_group or "", header.broker_name)
        if result is None:
            return RemotingCommand.create_response_command(
                ResponseCode.SYSTEM_ERROR, f"The Consumer Group <{header.consumer_group}> not exist in this consumer"
            )
        response = RemotingCommand.create_response_command(ResponseCode.SUCCESS, None)
        response.body = result.encode()
        return response

    def _not_supported(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        self.mq_client_factory.runtime.trace_event(COMPONENT, "notSupported", code=request.code, broker=_remote(ctx))
        if request.is_oneway_rpc():
            return None
        return RemotingCommand.create_response_command(
            ResponseCode.REQUEST_CODE_NOT_SUPPORTED, f" request type {request.code} not supported"
        )


def _remote(ctx: Any) -> str:
    channel = getattr(ctx, "channel", None)
    return parse_channel_remote_addr(channel) if channel is not None else ""

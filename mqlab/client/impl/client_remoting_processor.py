"""What a client does with the requests a broker sends it over the client's own connection.

The one that matters for the message life cycle is NOTIFY_CONSUMER_IDS_CHANGED (40, oneway): a consumer joined or
left a group, so every member rebalances at once instead of waiting for the 20 s timer
(``MQClientInstance.rebalance_immediately``). GET_CONSUMER_RUNNING_INFO is answered from the consumer when it can
describe itself, else with SYSTEM_ERROR as Java does for an unknown group. RESET_CONSUMER_CLIENT_OFFSET (oneway)
carries the offsets an admin tool reset the group to; ``MQClientInstance.reset_offset`` applies them.

Java: org.apache.rocketmq.client.impl.ClientRemotingProcessor (rocketmq-all-4.9.3)
Left out (answered REQUEST_CODE_NOT_SUPPORTED, or ignored for oneway requests, which get no answer anyway):
transaction checks (CHECK_TRANSACTION_STATE), consumer status queries (GET_CONSUMER_STATUS_FROM_CLIENT),
CONSUME_MESSAGE_DIRECTLY and request-reply (PUSH_REPLY_MESSAGE_TO_CLIENT).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.protocol.body.reset_offset_body import ResetOffsetBody
from mqlab.common.protocol.header.broker_headers import NotifyConsumerIdsChangedRequestHeader, ResetOffsetRequestHeader
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
        if request.code == RequestCode.NOTIFY_CONSUMER_IDS_CHANGED:
            return self.notify_consumer_ids_changed(ctx, request)
        if request.code == RequestCode.RESET_CONSUMER_CLIENT_OFFSET:
            return self.reset_offset(ctx, request)
        if request.code == RequestCode.GET_CONSUMER_RUNNING_INFO:
            return self.get_consumer_running_info(ctx, request)
        return self._not_supported(ctx, request)

    def reject_request(self) -> bool:
        """Never refuse. Java: ClientRemotingProcessor#rejectRequest."""
        return False

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

"""Consumer offsets and group membership: GET_CONSUMER_LIST_BY_GROUP, QUERY/UPDATE_CONSUMER_OFFSET.

Java: org.apache.rocketmq.broker.processor.ConsumerManageProcessor (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.broker.processor.group_check import refuse_invalid_group
from mqlab.common.protocol.body.get_consumer_list_by_group_response_body import GetConsumerListByGroupResponseBody
from mqlab.common.protocol.header.broker_headers import (
    GetConsumerListByGroupRequestHeader,
    QueryConsumerOffsetRequestHeader,
    QueryConsumerOffsetResponseHeader,
    UpdateConsumerOffsetRequestHeader,
    UpdateConsumerOffsetResponseHeader,
)
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.common.remoting_helper import parse_channel_remote_addr
from mqlab.remoting.protocol.remoting_command import RemotingCommand

if TYPE_CHECKING:
    from mqlab.broker.broker_controller import BrokerController


class ConsumerManageProcessor:
    """Offsets and member lists for consumers."""

    def __init__(self, broker_controller: BrokerController):
        self.broker_controller = broker_controller

    def process_request(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        """Java: ConsumerManageProcessor#processRequest."""
        if request.code == RequestCode.GET_CONSUMER_LIST_BY_GROUP:
            return self.get_consumer_list_by_group(ctx, request)
        if request.code == RequestCode.UPDATE_CONSUMER_OFFSET:
            return self.update_consumer_offset(ctx, request)
        if request.code == RequestCode.QUERY_CONSUMER_OFFSET:
            return self.query_consumer_offset(ctx, request)
        return None

    def reject_request(self) -> bool:
        """Never. Java: ConsumerManageProcessor#rejectRequest."""
        return False

    def get_consumer_list_by_group(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """The client ids of the group's connected consumers (what a consumer's rebalance allocates among).

        Java: ConsumerManageProcessor#getConsumerListByGroup
        """
        response = RemotingCommand.create_response_command()
        header = request.decode_command_custom_header(GetConsumerListByGroupRequestHeader)
        group_info = self.broker_controller.consumer_manager.get_consumer_group_info(header.consumer_group or "")
        if group_info is not None:
            client_ids = group_info.get_all_client_id()
            if client_ids:
                response.body = GetConsumerListByGroupResponseBody(client_ids).encode()
                response.code, response.remark = ResponseCode.SUCCESS, None
                return response
        response.code = ResponseCode.SYSTEM_ERROR
        response.remark = f"no consumer for this group, {header.consumer_group}"
        return response

    def update_consumer_offset(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Store a group's offset (the push consumer sends it oneway every 5 s).

        Java: ConsumerManageProcessor#updateConsumerOffset
        """
        response = RemotingCommand.create_response_command(custom_header=UpdateConsumerOffsetResponseHeader())
        header = request.decode_command_custom_header(UpdateConsumerOffsetRequestHeader)
        if refuse_invalid_group(header.consumer_group, response):
            return response
        self.broker_controller.consumer_offset_manager.commit_offset(
            parse_channel_remote_addr(ctx.channel),
            header.consumer_group or "",
            header.topic or "",
            header.queue_id or 0,
            header.commit_offset or 0,
        )
        response.code, response.remark = ResponseCode.SUCCESS, None
        return response

    def query_consumer_offset(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """The committed offset; for a group with none, 0 or QUERY_NOT_FOUND.

        0 when the queue still starts at 0 and its first message is in memory; otherwise QUERY_NOT_FOUND, and the
        consumer applies its ConsumeFromWhere.

        Java: ConsumerManageProcessor#queryConsumerOffset
        """
        controller = self.broker_controller
        response = RemotingCommand.create_response_command(custom_header=QueryConsumerOffsetResponseHeader())
        header = request.decode_command_custom_header(QueryConsumerOffsetRequestHeader)
        response_header = response.custom_header
        assert isinstance(response_header, QueryConsumerOffsetResponseHeader)
        if refuse_invalid_group(header.consumer_group, response):
            return response
        topic, queue_id = header.topic or "", header.queue_id or 0
        offset = controller.consumer_offset_manager.query_offset(header.consumer_group or "", topic, queue_id)
        if offset >= 0:
            response_header.offset = offset
            response.code, response.remark = ResponseCode.SUCCESS, None
            return response
        store = controller.message_store
        min_offset = store.get_min_offset_in_queue(topic, queue_id)
        if min_offset <= 0 and not store.check_in_disk_by_consume_offset(topic, queue_id, 0):
            # The reason a new CONSUME_FROM_LAST_OFFSET group may start at 0 (facts §18 item 17).
            response_header.offset = 0
            response.code, response.remark = ResponseCode.SUCCESS, None
        else:
            response.code = ResponseCode.QUERY_NOT_FOUND
            response.remark = "Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first"
        return response

"""Finding messages: QUERY_MESSAGE (by key or unique id, through the index) and VIEW_MESSAGE_BY_ID (by offset).

Java: org.apache.rocketmq.broker.processor.QueryMessageProcessor (rocketmq-all-4.9.3)

Java streams the records zero-copy after the header (``QueryMessageTransfer``, ``OneMessageTransfer``); on the wire
that is an ordinary response whose body is the records, which is what mqlab sends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.common import mix_all
from mqlab.common.protocol.header.broker_headers import (
    QueryMessageRequestHeader,
    QueryMessageResponseHeader,
    ViewMessageRequestHeader,
)
from mqlab.common.protocol.request_code import RequestCode
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.remoting.protocol.remoting_command import RemotingCommand

if TYPE_CHECKING:
    from mqlab.broker.broker_controller import BrokerController


class QueryMessageProcessor:
    """Index queries and lookups by CommitLog offset."""

    def __init__(self, broker_controller: BrokerController):
        self.broker_controller = broker_controller

    def process_request(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        """Java: QueryMessageProcessor#processRequest."""
        if request.code == RequestCode.QUERY_MESSAGE:
            return self.query_message(ctx, request)
        if request.code == RequestCode.VIEW_MESSAGE_BY_ID:
            return self.view_message_by_id(ctx, request)
        return None

    def reject_request(self) -> bool:
        """Never. Java: QueryMessageProcessor#rejectRequest."""
        return False

    def query_message(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """Records whose ``topic#key`` is in the index within the time window.

        With the ext field ``_UNIQUE_KEY_QUERY=true`` (a lookup by UNIQ_KEY) at most ``defaultQueryMaxNum`` (32).

        Java: QueryMessageProcessor#queryMessage
        """
        controller = self.broker_controller
        response = RemotingCommand.create_response_command(custom_header=QueryMessageResponseHeader())
        header = request.decode_command_custom_header(QueryMessageRequestHeader)
        response.opaque = request.opaque
        max_num = header.max_num or 0
        if (request.ext_fields or {}).get(mix_all.UNIQUE_MSG_QUERY_FLAG) == "true":
            max_num = controller.message_store_config.default_query_max_num
        result = controller.message_store.query_message(
            header.topic or "", header.key or "", max_num, header.begin_timestamp or 0, header.end_timestamp or 0
        )
        response_header = response.custom_header
        assert isinstance(response_header, QueryMessageResponseHeader)
        response_header.index_last_update_phyoffset = result.index_last_update_phyoffset
        response_header.index_last_update_timestamp = result.index_last_update_timestamp
        if result.buffer_total_size > 0:
            response.code, response.remark = ResponseCode.SUCCESS, None
            response.body = result.message_bytes()
            return response
        response.code = ResponseCode.QUERY_NOT_FOUND
        response.remark = "can not find message, maybe time range not correct"
        return response

    def view_message_by_id(self, ctx: Any, request: RemotingCommand) -> RemotingCommand:
        """The record at a CommitLog offset (decoded by the client from the offset message id).

        Java: QueryMessageProcessor#viewMessageById
        """
        response = RemotingCommand.create_response_command()
        header = request.decode_command_custom_header(ViewMessageRequestHeader)
        response.opaque = request.opaque
        found = self.broker_controller.message_store.select_one_message_by_offset(header.offset or 0)
        if found is not None:
            response.code, response.remark = ResponseCode.SUCCESS, None
            response.body = found.data
            return response
        response.code = ResponseCode.SYSTEM_ERROR
        response.remark = f"can not find message by the offset, {header.offset}"
        return response

"""END_TRANSACTION (37): a producer commits or rolls back a half message.

It comes after the producer's local transaction, or as the answer to the broker's check.

Java: org.apache.rocketmq.broker.processor.EndTransactionProcessor (rocketmq-all-4.9.3)

Steps, in Java's order: a SLAVE refuses (SLAVE_NOT_AVAILABLE); state 0 ("unknown") changes nothing and gets no
answer; commit (8) and rollback (12) look the half record up by ``commitLogOffset`` and check its PGROUP, queue
offset and commitlog offset against the header. A commit then stores a new record in the real topic and queue
(REAL_TOPIC / REAL_QID) with the transaction type COMMIT, and only if that put succeeded writes the op message
(tag ``d``) that retires the half record; a rollback only writes the op message. In 4.9.3 nothing
records that a half message was already resolved: every commit that passes the checks stores another copy.

*Stricter than 4.9.3* (issue 22): the lookup accepts only a record of ``RMQ_SYS_TRANS_HALF_TOPIC`` whose
transaction was not yet resolved and whose real queue exists; anything else is answered as a missing half message
(``TransactionalMessageServiceImpl#half_message_refusal``). A lock makes lookup, put and op message one step.

The producer sends this request oneway, so the answers below reach nobody but a raw client; they are Java's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.common.message import message_const as mc
from mqlab.common.message.message_decoder import message_properties2string
from mqlab.common.protocol.header.end_transaction_request_header import EndTransactionRequestHeader
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.sysflag.message_sys_flag import TRANSACTION_NOT_TYPE, MessageSysFlag, reset_transaction_value
from mqlab.remoting.common.remoting_helper import parse_channel_remote_addr
from mqlab.remoting.protocol.remoting_command import RemotingCommand
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.store.put_message_status import PutMessageStatus

if TYPE_CHECKING:
    from mqlab.broker.broker_controller import BrokerController
    from mqlab.broker.transaction.operation_result import OperationResult
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.store.put_message_result import PutMessageResult

COMPONENT = "EndTransactionProcessor"
_COMMIT = int(MessageSysFlag.TRANSACTION_COMMIT_TYPE)
_ROLLBACK = int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE)
_STORED = (
    PutMessageStatus.PUT_OK,
    PutMessageStatus.FLUSH_DISK_TIMEOUT,
    PutMessageStatus.FLUSH_SLAVE_TIMEOUT,
    PutMessageStatus.SLAVE_NOT_AVAILABLE,
)
# Java's code and remark for each put status that did not store (sendFinalMessage).
_FINAL_FAILED = {
    PutMessageStatus.CREATE_MAPEDFILE_FAILED: (ResponseCode.SYSTEM_ERROR, "Create mapped file failed."),
    PutMessageStatus.MESSAGE_ILLEGAL: (
        ResponseCode.MESSAGE_ILLEGAL,
        "The message is illegal, maybe msg body or properties length not matched. msg body length limit 128k, "
        "msg properties length limit 32k.",
    ),
    PutMessageStatus.SERVICE_NOT_AVAILABLE: (ResponseCode.SERVICE_NOT_AVAILABLE, "Service not available now."),
    PutMessageStatus.OS_PAGECACHE_BUSY: (ResponseCode.SYSTEM_ERROR, "OS page cache busy, please try another machine"),
    PutMessageStatus.UNKNOWN_ERROR: (ResponseCode.SYSTEM_ERROR, "UNKNOWN_ERROR"),
}
_FINAL_FAILED[PutMessageStatus.PROPERTIES_SIZE_EXCEEDED] = _FINAL_FAILED[PutMessageStatus.MESSAGE_ILLEGAL]


class EndTransactionProcessor:
    """The END_TRANSACTION processor.

    Args:
        broker_controller: role, transactional message service, store.
    """

    def __init__(self, broker_controller: BrokerController):
        self.broker_controller = broker_controller

    def _trace(self, event: str, **fields: Any) -> None:
        self.broker_controller.runtime.trace_event(COMPONENT, event, **fields)

    def process_request(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        """Commit, roll back, or ignore. Java: EndTransactionProcessor#processRequest."""
        response = RemotingCommand.create_response_command()
        header = request.decode_command_custom_header(EndTransactionRequestHeader)
        controller = self.broker_controller
        if controller.message_store_config.broker_role is BrokerRole.SLAVE:
            response.code = ResponseCode.SLAVE_NOT_AVAILABLE
            self._trace("slave")
            return response
        state = header.commit_or_rollback
        self._trace(
            "endTransaction",
            producer=parse_channel_remote_addr(ctx.channel),
            state={TRANSACTION_NOT_TYPE: "UNKNOW", _COMMIT: "COMMIT", _ROLLBACK: "ROLLBACK"}.get(state, state),
            fromCheck=bool(header.from_transaction_check),
            commitLogOffset=header.commit_log_offset,
            tranStateTableOffset=header.tran_state_table_offset,
            remark=request.remark,
        )
        if state not in (_COMMIT, _ROLLBACK):
            return None  # still unknown (or a value checkFields let through): the check will ask again
        service = controller.transactional_message_service
        with service.end_transaction_lock:  # mqlab: one resolution per half message, even for concurrent requests
            return self._resolve(service, state, header, response)

    def _resolve(
        self, service: Any, state: int, header: EndTransactionRequestHeader, response: RemotingCommand
    ) -> RemotingCommand:
        """Commit or roll back (the second half of Java's processRequest)."""
        if state == _COMMIT:
            result = service.commit_message(header)
            if result.response_code == ResponseCode.SUCCESS:
                res = self.check_prepare_message(result.prepare_message, header)
                if res.code != ResponseCode.SUCCESS:
                    return res
                assert result.prepare_message is not None
                inner = self.end_message_transaction(result.prepare_message)
                inner.sys_flag = reset_transaction_value(inner.sys_flag, state)
                inner.queue_offset = header.tran_state_table_offset or 0
                inner.prepared_transaction_offset = header.commit_log_offset or 0
                inner.store_timestamp = result.prepare_message.store_timestamp
                inner.clear_property(mc.PROPERTY_TRANSACTION_PREPARED)
                send_result = self.send_final_message(inner)
                if send_result.code == ResponseCode.SUCCESS:
                    service.delete_prepare_message(result.prepare_message)
                return send_result
        else:
            result = service.rollback_message(header)
            if result.response_code == ResponseCode.SUCCESS:
                res = self.check_prepare_message(result.prepare_message, header)
                if res.code == ResponseCode.SUCCESS:
                    service.delete_prepare_message(result.prepare_message)
                return res
        return self._lookup_failed(response, result)

    @staticmethod
    def _lookup_failed(response: RemotingCommand, result: OperationResult) -> RemotingCommand:
        response.code = result.response_code
        response.remark = result.response_remark
        return response

    def reject_request(self) -> bool:
        """Never. Java: EndTransactionProcessor#rejectRequest."""
        return False

    @staticmethod
    def check_prepare_message(msg_ext: MessageExt | None, header: EndTransactionRequestHeader) -> RemotingCommand:
        """PGROUP, queue offset and commitlog offset of the half record must match the header, in that order.

        A half record without PGROUP fails as Java's NullPointerException does (SYSTEM_ERROR, the exception's
        text, which is null in Java; mqlab says what was missing).

        Java: EndTransactionProcessor#checkPrepareMessage
        """
        response = RemotingCommand.create_response_command()
        if msg_ext is None:
            response.code, response.remark = ResponseCode.SYSTEM_ERROR, "Find prepared transaction message failed"
            return response
        pgroup = msg_ext.get_property(mc.PROPERTY_PRODUCER_GROUP)
        if pgroup is None:
            response.code, response.remark = ResponseCode.SYSTEM_ERROR, "java.lang.NullPointerException: PGROUP"
            return response
        if pgroup != header.producer_group:
            response.code, response.remark = ResponseCode.SYSTEM_ERROR, "The producer group wrong"
            return response
        if msg_ext.queue_offset != header.tran_state_table_offset:
            response.code, response.remark = ResponseCode.SYSTEM_ERROR, "The transaction state table offset wrong"
            return response
        if msg_ext.commit_log_offset != header.commit_log_offset:
            response.code, response.remark = ResponseCode.SYSTEM_ERROR, "The commit log offset wrong"
            return response
        response.code = ResponseCode.SUCCESS
        return response

    @staticmethod
    def end_message_transaction(msg_ext: MessageExt) -> MessageExtBrokerInner:
        """The record to store in the real topic: the half message's fields and property map.

        The properties string is serialised *before* REAL_TOPIC and REAL_QID are removed from the map (and
        before the caller removes TRAN_MSG), so the stored record still carries all three, as in 4.9.3. The tags
        code is computed before the map is attached, hence 0 (the ConsumeQueue recomputes it at dispatch).

        Java: EndTransactionProcessor#endMessageTransaction
        """
        inner = MessageExtBrokerInner.bare()
        inner.topic = msg_ext.get_user_property(mc.PROPERTY_REAL_TOPIC)
        inner.queue_id = int(msg_ext.get_user_property(mc.PROPERTY_REAL_QUEUE_ID) or "")
        inner.body = msg_ext.body
        inner.flag = msg_ext.flag
        inner.born_timestamp = msg_ext.born_timestamp
        inner.born_host = msg_ext.born_host
        inner.store_host = msg_ext.store_host
        inner.reconsume_times = msg_ext.reconsume_times
        inner.set_wait_store_msg_ok(False)
        inner.transaction_id = msg_ext.get_user_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
        inner.sys_flag = msg_ext.sys_flag
        inner.tags_code = MessageExtBrokerInner.tags_string2tags_code(inner.get_tags())
        inner.properties = msg_ext.properties  # shared, as MessageAccessor#setProperties does
        inner.properties_string = message_properties2string(msg_ext.properties)
        inner.clear_property(mc.PROPERTY_REAL_TOPIC)
        inner.clear_property(mc.PROPERTY_REAL_QUEUE_ID)
        return inner

    def send_final_message(self, inner: MessageExtBrokerInner) -> RemotingCommand:
        """Put the committed record (sync) and map the status. Java: EndTransactionProcessor#sendFinalMessage."""
        response = RemotingCommand.create_response_command()
        result: PutMessageResult | None = self.broker_controller.message_store.put_message(inner)
        if result is None:
            response.code, response.remark = ResponseCode.SYSTEM_ERROR, "store putMessage return null"
            return response
        status = result.put_message_status
        if status in _STORED:
            response.code, response.remark = ResponseCode.SUCCESS, None
        else:
            response.code, response.remark = _FINAL_FAILED.get(
                status, (ResponseCode.SYSTEM_ERROR, "UNKNOWN_ERROR DEFAULT")
            )
        self._trace("sendFinalMessage", status=status.name, topic=inner.topic, queueId=inner.queue_id)
        return response

"""The transactional classes' door to the store and the broker's managers.

Half messages are ordinary records of ``RMQ_SYS_TRANS_HALF_TOPIC`` (queue 0) carrying their real topic and queue in
``REAL_TOPIC`` / ``REAL_QID``; op messages are records of ``RMQ_SYS_TRANS_OP_HALF_TOPIC`` whose body is the half
queue offset they resolve, tagged ``d``. The check reads both through ``get_message`` as the internal group
``CID_RMQ_SYS_TRANS`` and keeps its progress as that group's consumer offsets.

Java: org.apache.rocketmq.broker.transaction.queue.TransactionalMessageBridge (rocketmq-all-4.9.3)
Left out: the broker statistics a FOUND pull records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.broker.transaction.queue import transactional_message_util as util
from mqlab.client.consumer.pull_result import PullResult
from mqlab.client.consumer.pull_status import PullStatus
from mqlab.common.constant import perm_name
from mqlab.common.message import message_const as mc
from mqlab.common.message.message import Message
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.message_decoder import decode, message_properties2string
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.sysflag.message_sys_flag import TRANSACTION_NOT_TYPE, reset_transaction_value
from mqlab.store.get_message_status import GetMessageStatus
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.store.put_message_status import PutMessageStatus

if TYPE_CHECKING:
    from mqlab.broker.broker_controller import BrokerController
    from mqlab.common.jdk.inet_socket_address import InetSocketAddress
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.runtime.scheduler import Future
    from mqlab.store.default_message_store import DefaultMessageStore
    from mqlab.store.get_message_result import GetMessageResult
    from mqlab.store.put_message_result import PutMessageResult

COMPONENT = "TransactionalMessageBridge"

# GetMessageStatus → the PullStatus the check sees (Java: the switch in TransactionalMessageBridge#getMessage).
_PULL_STATUS = {
    GetMessageStatus.FOUND: PullStatus.FOUND,
    GetMessageStatus.NO_MATCHED_MESSAGE: PullStatus.NO_MATCHED_MSG,
    GetMessageStatus.NO_MESSAGE_IN_QUEUE: PullStatus.NO_NEW_MSG,
    GetMessageStatus.OFFSET_OVERFLOW_ONE: PullStatus.NO_NEW_MSG,
    GetMessageStatus.MESSAGE_WAS_REMOVING: PullStatus.OFFSET_ILLEGAL,
    GetMessageStatus.NO_MATCHED_LOGIC_QUEUE: PullStatus.OFFSET_ILLEGAL,
    GetMessageStatus.OFFSET_FOUND_NULL: PullStatus.OFFSET_ILLEGAL,
    GetMessageStatus.OFFSET_OVERFLOW_BADLY: PullStatus.OFFSET_ILLEGAL,
    GetMessageStatus.OFFSET_TOO_SMALL: PullStatus.OFFSET_ILLEGAL,
}


class TransactionalMessageBridge:
    """Half/op reads and writes, consumer offsets of ``CID_RMQ_SYS_TRANS``, and the copies the check makes.

    Args:
        broker_controller: topics, consumer offsets, broker name and address, the node's runtime.
        store: the message store (the controller's, once initialised).
    """

    def __init__(self, broker_controller: BrokerController, store: DefaultMessageStore):
        self.broker_controller = broker_controller
        self.store = store
        self.op_queue_map: dict[MessageQueue, MessageQueue] = {}

    @property
    def store_host(self) -> InetSocketAddress:
        """``brokerIP1:listenPort``: born and store host of op messages (read when used: the port is known at start)."""
        return self.broker_controller.store_host

    # -- consumer offsets of CID_RMQ_SYS_TRANS ----------------------------------------------------------------
    def fetch_consume_offset(self, mq: MessageQueue) -> int:
        """The committed offset of the internal group, else the queue's min offset.

        Java: TransactionalMessageBridge#fetchConsumeOffset
        """
        offset = self.broker_controller.consumer_offset_manager.query_offset(
            util.build_consumer_group(), mq.topic, mq.queue_id
        )
        if offset == -1:
            offset = self.store.get_min_offset_in_queue(mq.topic, mq.queue_id)
        return offset

    def fetch_message_queues(self, topic: str) -> list[MessageQueue]:
        """One queue per read queue of ``topic``; the topic is created (1 queue, perm 6) when absent.

        Java: TransactionalMessageBridge#fetchMessageQueues (a HashSet in Java; mqlab keeps queue-id order)
        """
        config = self.broker_controller.topic_config_manager.select_topic_config(topic)
        if config is None:
            config = self.broker_controller.topic_config_manager.create_topic_in_send_message_back_method(
                topic, 1, perm_name.PERM_WRITE | perm_name.PERM_READ, 0
            )
        if config is None or config.read_queue_nums <= 0:
            return []
        broker_name = self.broker_controller.broker_config.broker_name
        return [MessageQueue(topic, broker_name, queue_id) for queue_id in range(config.read_queue_nums)]

    def update_consume_offset(self, mq: MessageQueue, offset: int) -> None:
        """Commit an offset of the internal group. Java: TransactionalMessageBridge#updateConsumeOffset."""
        host = self.store_host
        self.broker_controller.consumer_offset_manager.commit_offset(
            f"{host.host}:{host.port}", util.build_consumer_group(), mq.topic, mq.queue_id, offset
        )

    # -- reading ----------------------------------------------------------------------------------------------
    def get_half_message(self, queue_id: int, offset: int, nums: int) -> PullResult | None:
        """Up to ``nums`` half messages from ``offset``. Java: TransactionalMessageBridge#getHalfMessage."""
        return self.get_message(util.build_consumer_group(), util.build_half_topic(), queue_id, offset, nums)

    def get_op_message(self, queue_id: int, offset: int, nums: int) -> PullResult | None:
        """Up to ``nums`` op messages from ``offset``. Java: TransactionalMessageBridge#getOpMessage."""
        return self.get_message(util.build_consumer_group(), util.build_op_topic(), queue_id, offset, nums)

    def get_message(self, group: str, topic: str, queue_id: int, offset: int, nums: int) -> PullResult | None:
        """Read from the store and turn the answer into a PullResult; None when the store returned none.

        Java: TransactionalMessageBridge#getMessage
        """
        result = self.store.get_message(group, topic, queue_id, offset, nums, None)
        if result is None:
            self.broker_controller.runtime.trace_event(COMPONENT, "getMessageNull", topic=topic, offset=offset)
            return None
        status = _PULL_STATUS[result.status] if result.status is not None else PullStatus.NO_NEW_MSG
        found = self.decode_msg_list(result) if status is PullStatus.FOUND else None
        return PullResult(status, result.next_begin_offset, result.min_offset, result.max_offset, found)

    @staticmethod
    def decode_msg_list(result: GetMessageResult) -> list[MessageExt]:
        """Decode each record (body kept as stored). Java: TransactionalMessageBridge#decodeMsgList."""
        return [decode(buffer.data, decompress_body=False) for buffer in result.message_mapped_list]

    def look_message_by_offset(self, commit_log_offset: int) -> MessageExt | None:
        """Java: TransactionalMessageBridge#lookMessageByOffset."""
        return self.store.look_message_by_offset(commit_log_offset)

    # -- half messages ----------------------------------------------------------------------------------------
    def put_half_message(self, inner: MessageExtBrokerInner) -> PutMessageResult:
        """Java: TransactionalMessageBridge#putHalfMessage."""
        return self.store.put_message(self.parse_half_message_inner(inner))

    def async_put_half_message(self, inner: MessageExtBrokerInner) -> Future[PutMessageResult]:
        """Java: TransactionalMessageBridge#asyncPutHalfMessage."""
        return self.store.async_put_message(self.parse_half_message_inner(inner))

    @staticmethod
    def parse_half_message_inner(inner: MessageExtBrokerInner) -> MessageExtBrokerInner:
        """Turn a send into a half message: REAL_TOPIC / REAL_QID, no transaction type, half topic queue 0.

        The properties string is serialised again from the map, so ``WAIT``, which the send processor kept out
        of the string but left in the map, is stored in every half message (4.9.3 does the same).

        Java: TransactionalMessageBridge#parseHalfMessageInner
        """
        inner.put_property(mc.PROPERTY_REAL_TOPIC, inner.topic or "")
        inner.put_property(mc.PROPERTY_REAL_QUEUE_ID, str(inner.queue_id))
        inner.sys_flag = reset_transaction_value(inner.sys_flag, TRANSACTION_NOT_TYPE)
        inner.topic = util.build_half_topic()
        inner.queue_id = 0
        inner.properties_string = message_properties2string(inner.properties)
        return inner

    def put_message_return_result(self, inner: MessageExtBrokerInner) -> PutMessageResult:
        """Java: TransactionalMessageBridge#putMessageReturnResult."""
        return self.store.put_message(inner)

    def put_message(self, inner: MessageExtBrokerInner) -> bool:
        """Put and say whether it was PUT_OK. Java: TransactionalMessageBridge#putMessage."""
        result = self.store.put_message(inner)
        if result is not None and result.put_message_status is PutMessageStatus.PUT_OK:
            return True
        self.broker_controller.runtime.trace_event(
            COMPONENT, "putFailed", topic=inner.topic, queueId=inner.queue_id, msgId=inner.msg_id
        )
        return False

    @staticmethod
    def renew_half_message_inner(msg_ext: MessageExt) -> MessageExtBrokerInner:
        """The copy the check appends to the half queue before asking the producer.

        It shares ``msg_ext``'s property map (so the check count it carries is the updated one) and is written
        from a string serialised *before* ``WAIT=false`` is put into that shared map. FLAG and reconsume times
        are not copied (0 in the copy), as in 4.9.3.

        Java: TransactionalMessageBridge#renewHalfMessageInner
        """
        inner = MessageExtBrokerInner.bare()
        inner.topic = msg_ext.topic
        inner.body = msg_ext.body
        inner.queue_id = msg_ext.queue_id
        inner.msg_id = msg_ext.msg_id
        inner.sys_flag = msg_ext.sys_flag
        inner.tags_code = MessageExtBrokerInner.tags_string2tags_code(msg_ext.get_tags())
        inner.properties = msg_ext.properties  # shared, as MessageAccessor#setProperties does
        inner.properties_string = message_properties2string(msg_ext.properties)
        inner.born_timestamp = msg_ext.born_timestamp
        inner.born_host = msg_ext.born_host
        inner.store_host = msg_ext.store_host
        inner.set_wait_store_msg_ok(False)
        return inner

    def renew_immunity_half_message_inner(self, msg_ext: MessageExt) -> MessageExtBrokerInner:
        """A copy for a message still in its immunity time, pointing at the original half offset.

        TRAN_PREPARED_QUEUE_OFFSET keeps the value it has, else takes the current queue offset.

        Java: TransactionalMessageBridge#renewImmunityHalfMessageInner
        """
        inner = self.renew_half_message_inner(msg_ext)
        from_prepare = msg_ext.get_user_property(mc.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET)
        inner.put_property(
            mc.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET,
            from_prepare if from_prepare is not None else str(msg_ext.queue_offset),
        )
        inner.properties_string = message_properties2string(inner.properties)
        return inner

    # -- op messages ------------------------------------------------------------------------------------------
    def put_op_message(self, msg_ext: MessageExt, op_type: str) -> bool:
        """Record that a half message was resolved (op type ``d``); always True. Java: #putOpMessage."""
        mq = MessageQueue(msg_ext.topic, self.broker_controller.broker_config.broker_name, msg_ext.queue_id)
        if op_type == util.REMOVETAG:
            return self.add_remove_tag_in_transaction_op(msg_ext, mq)
        return True

    def add_remove_tag_in_transaction_op(self, prepare_message: MessageExt, mq: MessageQueue) -> bool:
        """The op message: tag ``d``, body = the half message's queue offset in decimal.

        Java: TransactionalMessageBridge#addRemoveTagInTransactionOp
        """
        message = Message(
            util.build_op_topic(), util.REMOVETAG, body=str(prepare_message.queue_offset).encode(util.CHARSET)
        )
        self.write_op(message, mq)
        return True

    def write_op(self, message: Message, mq: MessageQueue) -> None:
        """Put the op message into the op queue of the half queue ``mq``. Java: TransactionalMessageBridge#writeOp."""
        op_queue = self.op_queue_map.get(mq)
        if op_queue is None:
            op_queue = self.op_queue_map.setdefault(mq, self.get_op_queue_by_half(mq))
        self.put_message(self.make_op_message_inner(message, op_queue))

    def make_op_message_inner(self, message: Message, mq: MessageQueue) -> MessageExtBrokerInner:
        """The op record: its stored string holds only TAGS and WAIT=true.

        The WAIT=false and UNIQ_KEY put afterwards reach the shared map only, so the put does not wait and no
        UNIQ_KEY is stored.

        Java: TransactionalMessageBridge#makeOpMessageInner
        """
        inner = MessageExtBrokerInner.bare()
        inner.topic = message.topic
        inner.body = message.body
        inner.queue_id = mq.queue_id
        inner.tags_code = MessageExtBrokerInner.tags_string2tags_code(message.get_tags())
        inner.sys_flag = 0
        inner.properties = message.properties
        inner.properties_string = message_properties2string(message.properties)
        inner.born_timestamp = self.broker_controller.runtime.now_ms()
        inner.born_host = self.store_host
        inner.store_host = self.store_host
        inner.set_wait_store_msg_ok(False)
        MessageClientIDSetter.for_runtime(self.broker_controller.runtime).set_uniq_id(inner)
        return inner

    @staticmethod
    def get_op_queue_by_half(half_mq: MessageQueue) -> MessageQueue:
        """The op queue of a half queue: same broker and queue id. Java: #getOpQueueByHalf."""
        return MessageQueue(util.build_op_topic(), half_mq.broker_name, half_mq.queue_id)

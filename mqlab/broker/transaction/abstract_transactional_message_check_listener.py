"""What the check does with a half message: ask a producer of its group (here), or discard it (subclass).

Java: org.apache.rocketmq.broker.transaction.AbstractTransactionalMessageCheckListener (rocketmq-all-4.9.3)

``resolve_half_msg`` runs ``send_check_message`` on a small pool (Java: a static pool of 2-5 threads named
``Transaction-msg-check-thread`` whose full queue makes the caller send; mqlab gives each broker its own executor).
The request names the copy the check just wrote; the message in the body is turned back to its real topic and queue.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from mqlab.common.message import message_const as mc
from mqlab.common.protocol.header.check_transaction_state_request_header import CheckTransactionStateRequestHeader

if TYPE_CHECKING:
    from mqlab.broker.broker_controller import BrokerController
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.runtime.scheduler import Executor

COMPONENT = "TransactionalMessageCheckListener"
# Java: TCMT_QUEUE_NUMS, the queue count of TRANS_CHECK_MAX_TIME_TOPIC.
TCMT_QUEUE_NUMS = 1
CHECK_THREAD_NAME = "Transaction-msg-check-thread"
CHECK_POOL_MAX_THREADS = 5


class AbstractTransactionalMessageCheckListener(ABC):
    """Base of the check listeners.

    Args:
        broker_controller: producer channels, Broker2Client, topics and store (read at call time).
    """

    def __init__(self, broker_controller: BrokerController | None = None):
        self.broker_controller = broker_controller
        self._executor: Executor | None = None

    def _check_executor(self) -> Executor:
        controller = self.broker_controller
        assert controller is not None, "set_broker_controller first"
        if self._executor is None:
            self._executor = controller.runtime.scheduler.new_executor(CHECK_THREAD_NAME, CHECK_POOL_MAX_THREADS)
        return self._executor

    def set_broker_controller(self, broker_controller: BrokerController) -> None:
        """Java: AbstractTransactionalMessageCheckListener#setBrokerController."""
        self.broker_controller = broker_controller

    def send_check_message(self, msg_ext: MessageExt) -> bool:
        """CHECK_TRANSACTION_STATE for ``msg_ext`` to one producer channel of its PGROUP; False when none.

        The header takes the copy's commitlog offset, offset message id and half queue offset, and UNIQ_KEY as both
        msgId and transactionId; then the message itself gets its real topic and queue back (store size 0).

        Java: AbstractTransactionalMessageCheckListener#sendCheckMessage
        """
        controller = self.broker_controller
        assert controller is not None
        uniq = msg_ext.get_user_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
        header = CheckTransactionStateRequestHeader(
            tran_state_table_offset=msg_ext.queue_offset,
            commit_log_offset=msg_ext.commit_log_offset,
            msg_id=uniq,
            transaction_id=uniq,
            offset_msg_id=msg_ext.msg_id,
        )
        msg_ext.topic = msg_ext.get_user_property(mc.PROPERTY_REAL_TOPIC)
        msg_ext.queue_id = int(msg_ext.get_user_property(mc.PROPERTY_REAL_QUEUE_ID) or "")
        msg_ext.store_size = 0
        group = msg_ext.get_property(mc.PROPERTY_PRODUCER_GROUP)
        channel = controller.producer_manager.get_available_channel(group)
        if channel is None:
            controller.runtime.trace_event(COMPONENT, "noProducerChannel", group=group)
            return False
        return controller.broker2client.check_producer_transaction_state(group, channel, header, msg_ext)

    def resolve_half_msg(self, msg_ext: MessageExt) -> None:
        """Send the check on the listener's executor. Java: AbstractTransactionalMessageCheckListener#resolveHalfMsg."""

        def task() -> None:
            try:
                self.send_check_message(msg_ext)
            except Exception as exc:  # Java: log.error("Send check message error!", e)
                assert self.broker_controller is not None
                self.broker_controller.runtime.trace_event(COMPONENT, "sendCheckError", error=repr(exc))

        try:
            self._check_executor().submit(task)
        except RuntimeError:  # a shut-down pool: the caller runs it (Java's CallerRunsPolicy covers a full queue)
            task()

    def shut_down(self) -> None:
        """Java: AbstractTransactionalMessageCheckListener#shutDown."""
        if self._executor is not None:
            self._executor.shutdown()

    @abstractmethod
    def resolve_discard_msg(self, msg_ext: MessageExt) -> None:
        """A half message checked too often (or too old): what to do with it.

        Java: AbstractTransactionalMessageCheckListener#resolveDiscardMsg
        """

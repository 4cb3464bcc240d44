"""A producer that sends transactional messages: a half message, the local transaction, then commit or rollback.

``send_message_in_transaction(msg, arg)`` stores ``msg`` as a half message (invisible to consumers), runs
``transaction_listener.execute_local_transaction(msg, arg)`` and tells the broker the outcome. When the outcome was
UNKNOW, or the producer died before telling, the broker asks the group later (``check_local_transaction``) until
someone answers or ``transactionCheckMax`` checks were made.

Java: org.apache.rocketmq.client.producer.TransactionMQProducer (rocketmq-all-4.9.3)
Left out: namespaces, the deprecated ``sendMessageInTransaction(msg, LocalTransactionExecuter, arg)`` and
TransactionCheckListener.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.client.producer.default_mq_producer import DefaultMQProducer
from mqlab.common.mix_all import DEFAULT_PRODUCER_GROUP

if TYPE_CHECKING:
    from mqlab.client.producer.transaction_listener import TransactionListener
    from mqlab.client.producer.transaction_send_result import TransactionSendResult
    from mqlab.common.message.message import Message
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.runtime.runtime import Runtime
    from mqlab.runtime.scheduler import Executor


class TransactionMQProducer(DefaultMQProducer):
    """A DefaultMQProducer with a transaction listener and a check executor.

    Args:
        producer_group: the group; the broker sends its checks to any live producer of it.
        runtime: the node the producer runs on.
        transaction_listener: runs local transactions and answers checks.
        executor_service: runs the checks (default: one thread, ``check_request_hold_max`` queued).
        check_thread_pool_min_size: the default check executor's core size (1).
        check_thread_pool_max_size: its thread count (1).
        check_request_hold_max: how many checks may wait in its queue (2000).
        rpc_hook: as DefaultMQProducer.
        **settings: as DefaultMQProducer.
    """

    def __init__(
        self,
        producer_group: str | None = DEFAULT_PRODUCER_GROUP,
        runtime: Runtime | None = None,
        *,
        transaction_listener: TransactionListener | None = None,
        executor_service: Executor | None = None,
        check_thread_pool_min_size: int = 1,
        check_thread_pool_max_size: int = 1,
        check_request_hold_max: int = 2000,
        rpc_hook: RPCHook | None = None,
        **settings: Any,
    ):
        super().__init__(producer_group, runtime, rpc_hook=rpc_hook, **settings)
        self.transaction_listener = transaction_listener
        self.executor_service = executor_service
        self.check_thread_pool_min_size = check_thread_pool_min_size
        self.check_thread_pool_max_size = check_thread_pool_max_size
        self.check_request_hold_max = check_request_hold_max

    def start(self) -> None:
        """Make the check executor, then start as any producer. Java: TransactionMQProducer#start."""
        self.default_mq_producer_impl.init_transaction_env()
        super().start()

    def shutdown(self) -> None:
        """Stop, then stop the check executor. Java: TransactionMQProducer#shutdown."""
        super().shutdown()
        self.default_mq_producer_impl.destroy_transaction_env()

    def send_message_in_transaction(self, msg: Message, arg: Any = None) -> TransactionSendResult:
        """Half message, local transaction, END_TRANSACTION; see DefaultMQProducerImpl.send_message_in_transaction.

        Java: TransactionMQProducer#sendMessageInTransaction(Message, Object)

        Raises:
            MQClientException: "TransactionListener is null", or as DefaultMQProducerImpl.
        """
        if self.transaction_listener is None:
            raise MQClientException("TransactionListener is null")
        return self.default_mq_producer_impl.send_message_in_transaction(msg, arg)

    def __repr__(self) -> str:
        return f"TransactionMQProducer(group={self.producer_group!r}, namesrv={self.namesrv_addr!r})"

"""A clustering consumer's offsets: an in-memory table that is pushed to the queue's broker every 5 seconds.

Consumers of a group share queues over time (rebalance moves a queue from one to another), so the offset of a queue
must live where the next owner finds it: on the master broker of that queue, in ``ConsumerOffsetManager`` under
``topic@group``. The client keeps the current value in memory, sends it oneway with UPDATE_CONSUMER_OFFSET
(``persist_all``, every ``persistConsumerOffsetInterval``), and asks the broker with QUERY_CONSUMER_OFFSET when it is
given a queue (``read_offset(mq, READ_FROM_STORE)``).

What the store needs from the rest of the client is passed in:

* ``client_api``: the three broker calls of ``MQClientAPIImpl`` (:class:`ConsumerOffsetClientAPI`);
* ``find_broker_address``: the broker-name lookup of ``MQClientInstance#findBrokerAddressInSubscribe``
  (:class:`FindBrokerAddressInSubscribe`), returning just the address;
* ``update_topic_route_info``: ``MQClientInstance#updateTopicRouteInfoFromNameServer(topic)``, called once when the
  broker is unknown before looking again.

Java: org.apache.rocketmq.client.consumer.store.RemoteBrokerOffsetStore (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Set
from typing import Protocol

from mqlab.client.consumer.store.read_offset_type import ReadOffsetType
from mqlab.client.exception.mq_broker_exception import MQBrokerException
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.mix_all import MASTER_ID
from mqlab.common.protocol.header.broker_headers import (
    QueryConsumerOffsetRequestHeader,
    UpdateConsumerOffsetRequestHeader,
)
from mqlab.common.util_all import is_blank

# Timeout of the offset RPCs (Java writes 1000 * 5 at each call).
OFFSET_RPC_TIMEOUT_MILLIS = 1000 * 5


class ConsumerOffsetClientAPI(Protocol):
    """The offset calls of ``MQClientAPIImpl`` (implemented by ``mqlab.client.impl.mq_client_api_impl``)."""

    def query_consumer_offset(
        self, addr: str, request_header: QueryConsumerOffsetRequestHeader, timeout_millis: int
    ) -> int:
        """QUERY_CONSUMER_OFFSET (14): the offset the broker stores for the queue.

        Raises ``MQBrokerException`` on any answer but SUCCESS (QUERY_NOT_FOUND 22 when the broker has none), and
        ``RemotingException`` when the call itself fails.

        Java: MQClientAPIImpl#queryConsumerOffset
        """
        ...

    def update_consumer_offset(
        self, addr: str, request_header: UpdateConsumerOffsetRequestHeader, timeout_millis: int
    ) -> None:
        """UPDATE_CONSUMER_OFFSET (15), waiting for the answer (``MQBrokerException`` if not SUCCESS).

        Java: MQClientAPIImpl#updateConsumerOffset
        """
        ...

    def update_consumer_offset_oneway(
        self, addr: str, request_header: UpdateConsumerOffsetRequestHeader, timeout_millis: int
    ) -> None:
        """UPDATE_CONSUMER_OFFSET (15) as a oneway request (no answer).

        Java: MQClientAPIImpl#updateConsumerOffsetOneway
        """
        ...


class FindBrokerAddressInSubscribe(Protocol):
    """The address of broker ``broker_name`` with id ``broker_id`` from the client's broker table, or None.

    With ``only_this_broker`` false, another broker of that name (a slave) may be returned when the asked id is missing.
    Java: MQClientInstance#findBrokerAddressInSubscribe(...).getBrokerAddr()
    """

    def __call__(self, broker_name: str, broker_id: int, only_this_broker: bool) -> str | None:
        """Look the broker up."""
        ...


class RemoteBrokerOffsetStore:
    """Offsets by queue in memory, read from and written to each queue's master broker.

    Args:
        client_api: The broker calls.
        group: The consumer group.
        find_broker_address: Broker-name lookup (see :class:`FindBrokerAddressInSubscribe`).
        update_topic_route_info: Refreshes a topic's route from the name server (default: does nothing).
        client_id: For messages only (Java logs it).
    """

    def __init__(
        self,
        client_api: ConsumerOffsetClientAPI,
        group: str,
        *,
        find_broker_address: FindBrokerAddressInSubscribe,
        update_topic_route_info: Callable[[str], object] = lambda topic: None,
        client_id: str = "",
    ):
        self.client_api = client_api
        self.group_name = group
        self.find_broker_address = find_broker_address
        self.update_topic_route_info = update_topic_route_info
        self.client_id = client_id
        # Java: ConcurrentHashMap<MessageQueue, AtomicLong>; persist_all sends in its iteration order.
        self.offset_table: JavaHashMap[MessageQueue, int] = JavaHashMap()
        self._lock = threading.RLock()

    def load(self) -> None:
        """Nothing to load: offsets are read from the broker queue by queue.

        Java: RemoteBrokerOffsetStore#load
        """

    def update_offset(self, mq: MessageQueue | None, offset: int, increase_only: bool) -> None:
        """Set the in-memory offset; with ``increase_only`` an existing offset only grows.

        Java: RemoteBrokerOffsetStore#updateOffset (with MixAll#compareAndIncreaseOnly)
        """
        if mq is None:
            return
        with self._lock:
            old = self.offset_table.get(mq)
            if old is None or not increase_only or offset > old:
                self.offset_table[mq] = offset

    def read_offset(self, mq: MessageQueue | None, read_type: ReadOffsetType) -> int:
        """The offset of ``mq``: -1 if unknown, -2 if the broker could not be asked.

        READ_FROM_MEMORY: the table or -1. MEMORY_FIRST_THEN_STORE: the table, else as READ_FROM_STORE.
        READ_FROM_STORE: ask the broker and remember the answer; a broker error answer (``MQBrokerException``,
        QUERY_NOT_FOUND in particular) gives -1, any other failure -2.

        Java: RemoteBrokerOffsetStore#readOffset
        """
        if mq is None:
            return -1
        if read_type in (ReadOffsetType.MEMORY_FIRST_THEN_STORE, ReadOffsetType.READ_FROM_MEMORY):
            offset = self.offset_table.get(mq)
            if offset is not None:
                return offset
            if read_type is ReadOffsetType.READ_FROM_MEMORY:
                return -1
        try:
            broker_offset = self.fetch_consume_offset_from_broker(mq)
        except MQBrokerException:
            return -1  # the broker has no offset for this queue
        except Exception:
            return -2  # Java logs "fetchConsumeOffsetFromBroker exception"
        self.update_offset(mq, broker_offset, False)
        return broker_offset

    def persist_all(self, mqs: Set[MessageQueue] | None) -> None:
        """Send the offset of every queue in ``mqs`` (oneway); forget offsets of queues not in ``mqs``.

        A failed send is skipped (Java logs it). An empty or None ``mqs`` does nothing at all.

        Java: RemoteBrokerOffsetStore#persistAll
        """
        if not mqs:
            return
        unused: list[MessageQueue] = []
        for mq, offset in list(self.offset_table.items()):
            if mq in mqs:
                # Java logs "updateConsumeOffsetToBroker exception" and goes on with the next queue.
                with contextlib.suppress(Exception):
                    self.update_consume_offset_to_broker(mq, offset, True)
            else:
                unused.append(mq)
        for mq in unused:
            self.remove_offset(mq)

    def persist(self, mq: MessageQueue) -> None:
        """Send the offset of ``mq`` (oneway) if there is one; a failure is swallowed.

        Java: RemoteBrokerOffsetStore#persist
        """
        offset = self.offset_table.get(mq)
        if offset is not None:
            with contextlib.suppress(Exception):  # Java logs "updateConsumeOffsetToBroker exception"
                self.update_consume_offset_to_broker(mq, offset, True)

    def remove_offset(self, mq: MessageQueue | None) -> None:
        """Forget the in-memory offset of ``mq``.

        Java: RemoteBrokerOffsetStore#removeOffset
        """
        if mq is not None:
            with self._lock:
                self.offset_table.pop(mq, None)

    def clone_offset_table(self, topic: str | None) -> JavaHashMap[MessageQueue, int]:
        """A copy of the table, restricted to ``topic`` unless it is blank.

        Java: RemoteBrokerOffsetStore#cloneOffsetTable
        """
        return JavaHashMap(
            (mq, offset) for mq, offset in self.offset_table.items() if is_blank(topic) or mq.topic == topic
        )

    def update_consume_offset_to_broker(self, mq: MessageQueue, offset: int, is_oneway: bool = True) -> None:
        """UPDATE_CONSUMER_OFFSET to the master of ``mq``'s broker.

        Raises:
            MQClientException: the broker is not known even after a route refresh.

        Java: RemoteBrokerOffsetStore#updateConsumeOffsetToBroker
        """
        addr = self._find_master_address(mq)
        header = UpdateConsumerOffsetRequestHeader(
            consumer_group=self.group_name, topic=mq.topic, queue_id=mq.queue_id, commit_offset=offset
        )
        if is_oneway:
            self.client_api.update_consumer_offset_oneway(addr, header, OFFSET_RPC_TIMEOUT_MILLIS)
        else:
            self.client_api.update_consumer_offset(addr, header, OFFSET_RPC_TIMEOUT_MILLIS)

    def fetch_consume_offset_from_broker(self, mq: MessageQueue) -> int:
        """QUERY_CONSUMER_OFFSET to the master of ``mq``'s broker (exceptions pass through to ``read_offset``).

        Java: RemoteBrokerOffsetStore#fetchConsumeOffsetFromBroker
        """
        addr = self._find_master_address(mq)
        header = QueryConsumerOffsetRequestHeader(consumer_group=self.group_name, topic=mq.topic, queue_id=mq.queue_id)
        return self.client_api.query_consumer_offset(addr, header, OFFSET_RPC_TIMEOUT_MILLIS)

    def _find_master_address(self, mq: MessageQueue) -> str:
        """The master's address; if unknown, refresh the topic's route and accept any broker of that name.

        Java: the lookup at the start of updateConsumeOffsetToBroker and fetchConsumeOffsetFromBroker
        """
        addr = self.find_broker_address(mq.broker_name, MASTER_ID, True)
        if addr is None:
            self.update_topic_route_info(mq.topic)
            addr = self.find_broker_address(mq.broker_name, MASTER_ID, False)
        if addr is None:
            raise MQClientException(f"The broker[{mq.broker_name}] not exist")
        return addr

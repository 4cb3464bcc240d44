"""Queue-level questions a client asks brokers: offsets, store times, a message by id, topic creation.

A push consumer starting on a new queue asks for its max offset (CONSUME_FROM_LAST_OFFSET) or searches an offset
by time (CONSUME_FROM_TIMESTAMP); a lite pull consumer lists a topic's readable queues; a producer can create a
topic on every master of its default topic's route. Each call finds the queue's master (refreshing the route once
if the broker is unknown), asks it with a 6 s timeout, and wraps any failure in ``MQClientException``.

Java: org.apache.rocketmq.client.impl.MQAdminImpl (rocketmq-all-4.9.3)
Left out: ``queryMessage`` / ``queryMessageByUniqKey`` (the scatter-gather over every broker; the single request is
``MQClientAPIImpl.query_message``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mqlab.client import validators
from mqlab.client.exception.mq_client_exception import MQClientException
from mqlab.common import mix_all
from mqlab.common.message import message_decoder
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.common.topic_config import TopicConfig

if TYPE_CHECKING:
    from mqlab.client.impl.factory.mq_client_instance import MQClientInstance
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.message.message_queue import MessageQueue

# Java: MQAdminImpl.timeoutMillis
DEFAULT_TIMEOUT_MILLIS = 6000


class MQAdminImpl:
    """Admin calls of one client instance.

    Args:
        mq_client_factory: the instance whose routes and request layer are used.
    """

    def __init__(self, mq_client_factory: MQClientInstance):
        self.mq_client_factory = mq_client_factory
        self.timeout_millis = DEFAULT_TIMEOUT_MILLIS

    def create_topic(self, key: str, new_topic: str, queue_num: int, topic_sys_flag: int = 0) -> None:
        """Create ``new_topic`` with ``queue_num`` queues on every master of ``key``'s route (5 tries each).

        Java: MQAdminImpl#createTopic

        Raises:
            MQClientException: "create new topic failed" (invalid name, no route, or no broker accepted).
        """
        api = self.mq_client_factory.mq_client_api_impl
        try:
            validators.check_topic(new_topic)
            validators.is_system_topic(new_topic)
            route = api.get_topic_route_info_from_name_server(key, self.timeout_millis)
            brokers = sorted(route.broker_datas, key=lambda bd: bd.broker_name)
            if not brokers:
                raise MQClientException("Not found broker, maybe key is wrong")
            created_once = False
            failure: MQClientException | None = None
            for broker_data in brokers:
                addr = broker_data.broker_addrs.get(mix_all.MASTER_ID)
                if addr is None:
                    continue
                config = TopicConfig(new_topic, queue_num, queue_num, topic_sys_flag=topic_sys_flag)
                for attempt in range(5):
                    try:
                        api.create_topic(addr, key, config, self.timeout_millis)
                        created_once = True
                        break
                    except Exception as exc:
                        if attempt == 4:
                            failure = MQClientException("create topic to broker exception", cause=exc)
            if failure is not None and not created_once:
                raise failure
        except Exception as exc:
            raise MQClientException("create new topic failed", cause=exc) from exc

    def fetch_publish_message_queues(self, topic: str) -> list[MessageQueue]:
        """The topic's writable queues, from a fresh route. Java: MQAdminImpl#fetchPublishMessageQueues."""
        from mqlab.client.impl.factory.mq_client_instance import topic_route_data2_topic_publish_info

        try:
            route = self.mq_client_factory.mq_client_api_impl.get_topic_route_info_from_name_server(
                topic, self.timeout_millis
            )
            info = topic_route_data2_topic_publish_info(topic, route, self.mq_client_factory.runtime.random)
            if info.ok():
                return self.parse_publish_message_queues(info.message_queue_list)
        except Exception as exc:
            raise MQClientException(f"Can not find Message Queue for this topic, {topic}", cause=exc) from exc
        raise MQClientException(f"Unknow why, Can not find Message Queue for this topic, {topic}")

    def parse_publish_message_queues(self, message_queue_list: list[MessageQueue]) -> list[MessageQueue]:
        """A copy of the list (Java strips the namespace here; mqlab has none). Java: #parsePublishMessageQueues."""
        return list(message_queue_list)

    def fetch_subscribe_message_queues(self, topic: str) -> set[MessageQueue]:
        """The topic's readable queues, from a fresh route. Java: MQAdminImpl#fetchSubscribeMessageQueues."""
        from mqlab.client.impl.factory.mq_client_instance import topic_route_data2_topic_subscribe_info

        try:
            route = self.mq_client_factory.mq_client_api_impl.get_topic_route_info_from_name_server(
                topic, self.timeout_millis
            )
            queues = topic_route_data2_topic_subscribe_info(topic, route)
            if not queues:
                raise MQClientException(f"Can not find Message Queue for this topic, {topic} Namesrv return empty")
            return queues
        except Exception as exc:
            raise MQClientException(f"Can not find Message Queue for this topic, {topic}", cause=exc) from exc

    def _master_of(self, mq: MessageQueue) -> str:
        """The queue's master, refreshing the route once. Raises "The broker[..] not exist" if still unknown."""
        factory = self.mq_client_factory
        addr = factory.find_broker_address_in_publish(mq.broker_name)
        if addr is None:
            factory.update_topic_route_info_from_name_server(mq.topic)
            addr = factory.find_broker_address_in_publish(mq.broker_name)
        if addr is None:
            raise MQClientException(f"The broker[{mq.broker_name}] not exist")
        return addr

    def _ask(self, addr: str, call: Callable[[], int]) -> int:
        try:
            return call()
        except Exception as exc:
            raise MQClientException(f"Invoke Broker[{addr}] exception", cause=exc) from exc

    def search_offset(self, mq: MessageQueue, timestamp: int) -> int:
        """The queue offset of the first message stored at or after ``timestamp``. Java: MQAdminImpl#searchOffset."""
        addr = self._master_of(mq)
        api = self.mq_client_factory.mq_client_api_impl
        return self._ask(addr, lambda: api.search_offset(addr, mq.topic, mq.queue_id, timestamp, self.timeout_millis))

    def max_offset(self, mq: MessageQueue) -> int:
        """The queue's next offset. Java: MQAdminImpl#maxOffset."""
        addr = self._master_of(mq)
        api = self.mq_client_factory.mq_client_api_impl
        return self._ask(addr, lambda: api.get_max_offset(addr, mq.topic, mq.queue_id, self.timeout_millis))

    def min_offset(self, mq: MessageQueue) -> int:
        """The queue's first offset still stored. Java: MQAdminImpl#minOffset."""
        addr = self._master_of(mq)
        api = self.mq_client_factory.mq_client_api_impl
        return self._ask(addr, lambda: api.get_min_offset(addr, mq.topic, mq.queue_id, self.timeout_millis))

    def earliest_msg_store_time(self, mq: MessageQueue) -> int:
        """Store time of the queue's first message. Java: MQAdminImpl#earliestMsgStoreTime."""
        addr = self._master_of(mq)
        api = self.mq_client_factory.mq_client_api_impl
        return self._ask(addr, lambda: api.get_earliest_msg_storetime(addr, mq.topic, mq.queue_id, self.timeout_millis))

    def view_message(self, msg_id: str) -> MessageExt:
        """The message with offset id ``msg_id`` (store address + CommitLog offset). Java: MQAdminImpl#viewMessage."""
        try:
            message_id = message_decoder.decode_message_id(msg_id)
        except Exception as exc:
            raise MQClientException(
                "query message by id finished, but no message.", int(ResponseCode.NO_MESSAGE)
            ) from exc
        addr = f"{message_id.address.host}:{message_id.address.port}"
        return self.mq_client_factory.mq_client_api_impl.view_message(addr, message_id.offset, self.timeout_millis)

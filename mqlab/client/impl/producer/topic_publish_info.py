"""What a producer knows about a topic: its writable queues, in route order, and a counter to walk them.

``MQClientInstance#topicRouteData2TopicPublishInfo`` builds one from a route: for each QueueData (sorted by broker
name) whose broker has a master and whose perm allows writing, ``writeQueueNums`` queues ``(topic, broker, 0..n-1)``.
A send picks one queue per attempt: round robin from the counter, and on a retry the first queue, going round,
whose broker is not the one the previous attempt failed on.

Java: org.apache.rocketmq.client.impl.producer.TopicPublishInfo (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.client.common.thread_local_index import ThreadLocalIndex, queue_position
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.mix_all import java_to_string
from mqlab.common.protocol.route.topic_route_data import TopicRouteData

if TYPE_CHECKING:
    from random import Random


class TopicPublishInfo:
    """A topic's queues as the producer sees them.

    Args:
        rng: The node's random stream; it seeds ``send_which_queue`` (Java: each TopicPublishInfo owns a
            ThreadLocalIndex with its own ``java.util.Random``).

    Attributes:
        order_topic: The route carried an ``orderTopicConf`` (queues are then listed as configured).
        have_topic_router_info: The route came from the name server (false for the empty entry a producer makes
            before its first lookup).
        message_queue_list: The writable queues, in route order.
        send_which_queue: The round-robin counter (one per thread).
        topic_route_data: The route this was built from.
    """

    __slots__ = ("have_topic_router_info", "message_queue_list", "order_topic", "send_which_queue", "topic_route_data")

    def __init__(self, rng: Random):
        self.order_topic = False
        self.have_topic_router_info = False
        self.message_queue_list: list[MessageQueue] = []
        self.send_which_queue = ThreadLocalIndex(rng)
        self.topic_route_data: TopicRouteData | None = None

    def ok(self) -> bool:
        """Whether there is at least one queue to send to.

        Java: TopicPublishInfo#ok
        """
        return self.message_queue_list is not None and len(self.message_queue_list) > 0

    def select_one_message_queue(self, last_broker_name: str | None = None) -> MessageQueue:
        """The next queue in round robin; with ``last_broker_name``, the next one on another broker if there is one.

        A retry passes the broker of the failed attempt. Up to ``len(queues)`` consecutive counter values are tried;
        the first queue on a different broker wins, and if every queue is on that broker the plain next queue is
        returned. Each try consumes one counter value, so a retry also moves the round robin on.

        Java: TopicPublishInfo#selectOneMessageQueue(String) and #selectOneMessageQueue()
        """
        if last_broker_name is None:
            return self._select_next()
        for _ in range(len(self.message_queue_list)):
            mq = self._select_next()
            if mq.broker_name != last_broker_name:
                return mq
        return self._select_next()

    def _select_next(self) -> MessageQueue:
        """The plain next queue in round robin.

        Java: TopicPublishInfo#selectOneMessageQueue()
        """
        index = self.send_which_queue.increment_and_get()
        return self.message_queue_list[queue_position(index, len(self.message_queue_list))]

    def get_queue_id_by_broker(self, broker_name: str | None) -> int:
        """The write queue count of ``broker_name`` in the route, or -1 (the Java name says "queue id"; it is a count).

        Java: TopicPublishInfo#getQueueIdByBroker (Java fails with a NullPointerException when there is no route)
        """
        if self.topic_route_data is None:
            raise ValueError(f"no route data to look up broker {broker_name!r} in")
        for queue_data in self.topic_route_data.queue_datas:
            if queue_data.broker_name == broker_name:
                return queue_data.write_queue_nums
        return -1

    def __str__(self) -> str:
        queues = ", ".join(str(mq) for mq in self.message_queue_list)
        return (
            f"TopicPublishInfo [orderTopic={java_to_string(self.order_topic)}, messageQueueList=[{queues}], "
            f"sendWhichQueue={self.send_which_queue}, "
            f"haveTopicRouterInfo={java_to_string(self.have_topic_router_info)}]"
        )

"""What a push consumer offers its user: subscribe, register a listener, start, and the pause switch.

A push consumer is a pull loop the library runs for you: it pulls the queues rebalancing gives it and calls your
listener with what arrives (``DefaultMQPushConsumer`` is the implementation).

Java: org.apache.rocketmq.client.consumer.MQPushConsumer and the two methods it inherits from
org.apache.rocketmq.client.consumer.MQConsumer (rocketmq-all-4.9.3).
Left out: the deprecated class-filter ``subscribe(topic, fullClassName, filterClassSource)`` and the
MQAdmin methods (topic creation, queries).
"""

from __future__ import annotations

from collections.abc import Set
from typing import Any, Protocol

from mqlab.client.consumer.message_selector import MessageSelector
from mqlab.common.message.message_ext import MessageExt
from mqlab.common.message.message_queue import MessageQueue


class MQPushConsumer(Protocol):
    """The push consumer's public methods."""

    def start(self) -> None:
        """Start pulling and consuming.

        Java: MQPushConsumer#start
        """
        ...

    def shutdown(self) -> None:
        """Persist offsets, leave the group and stop.

        Java: MQPushConsumer#shutdown
        """
        ...

    def register_message_listener(self, message_listener: Any, *, orderly: bool | None = None) -> None:
        """Register the code that consumes (concurrently, or orderly per queue).

        Java: MQPushConsumer#registerMessageListener (the two overloads)
        """
        ...

    def subscribe(self, topic: str, sub_expression: str | MessageSelector | None = None) -> None:
        """Subscribe to ``topic`` with a tag expression (``"*"``, ``"TagA || TagB"``) or a selector.

        Java: MQPushConsumer#subscribe(String, String) and #subscribe(String, MessageSelector)
        """
        ...

    def unsubscribe(self, topic: str) -> None:
        """Forget the subscription of ``topic``.

        Java: MQPushConsumer#unsubscribe
        """
        ...

    def update_core_pool_size(self, core_pool_size: int) -> None:
        """Change the consume pool's core size (a no-op in mqlab's runtimes).

        Java: MQPushConsumer#updateCorePoolSize
        """
        ...

    def suspend(self) -> None:
        """Pause pulling (queues stay assigned).

        Java: MQPushConsumer#suspend
        """
        ...

    def resume(self) -> None:
        """Resume pulling and rebalance at once.

        Java: MQPushConsumer#resume
        """
        ...

    def send_message_back(self, msg: MessageExt, delay_level: int, broker_name: str | None = None) -> None:
        """Hand a consumed message back to the broker for a later retry.

        Java: MQConsumer#sendMessageBack
        """
        ...

    def fetch_subscribe_message_queues(self, topic: str) -> Set[MessageQueue]:
        """The queues of ``topic`` a consumer can read (from the route).

        Java: MQConsumer#fetchSubscribeMessageQueues
        """
        ...

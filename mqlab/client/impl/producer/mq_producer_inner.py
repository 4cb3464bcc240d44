"""What a client instance needs from each producer registered with it.

``MQClientInstance`` refreshes routes for the topics a producer publishes to (``get_publish_topic_list``), hands it
a new TopicPublishInfo whenever a route changes (``update_topic_publish_info``), and forces a refresh when the
producer's info for a topic is empty (``is_publish_topic_need_update``).

Java: org.apache.rocketmq.client.impl.producer.MQProducerInner (rocketmq-all-4.9.3)
A broker's CHECK_TRANSACTION_STATE reaches the producer of the message's group through
``check_transaction_state``.

Left out: ``checkListener`` (the deprecated TransactionCheckListener) and ``getCheckListener``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mqlab.client.impl.producer.topic_publish_info import TopicPublishInfo
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.protocol.header.check_transaction_state_request_header import (
        CheckTransactionStateRequestHeader,
    )


class MQProducerInner(Protocol):
    """Implemented by ``DefaultMQProducerImpl``."""

    def get_publish_topic_list(self) -> set[str]:
        """Every topic the producer has publish info for (including the create-topic key, TBW102).

        Java: MQProducerInner#getPublishTopicList
        """
        ...

    def is_publish_topic_need_update(self, topic: str) -> bool:
        """True when the producer has no usable publish info for ``topic``.

        Java: MQProducerInner#isPublishTopicNeedUpdate
        """
        ...

    def update_topic_publish_info(self, topic: str, info: TopicPublishInfo) -> None:
        """Replace the producer's publish info for ``topic``.

        Java: MQProducerInner#updateTopicPublishInfo
        """
        ...

    def is_unit_mode(self) -> bool:
        """Java: MQProducerInner#isUnitMode."""
        ...

    def check_transaction_state(
        self, addr: str, msg: MessageExt, check_request_header: CheckTransactionStateRequestHeader
    ) -> None:
        """Answer a broker's transaction check (later, with END_TRANSACTION to ``addr``).

        Java: MQProducerInner#checkTransactionState
        """
        ...

"""What a client instance needs from each producer registered with it.

``MQClientInstance`` refreshes routes for the topics a producer publishes to (``get_publish_topic_list``), hands it
a new TopicPublishInfo whenever a route changes (``update_topic_publish_info``), and forces a refresh when the
producer's info for a topic is empty (``is_publish_topic_need_update``).

Java: org.apache.rocketmq.client.impl.producer.MQProducerInner (rocketmq-all-4.9.3)
Left out: the transaction-check methods (``checkListener``, ``getCheckListener``, ``checkTransactionState``):
transactions are out of mqlab's scope.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from mqlab.client.impl.producer.topic_publish_info import TopicPublishInfo


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

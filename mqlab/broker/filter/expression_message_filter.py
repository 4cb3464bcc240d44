"""The broker's filter for a pull: the subscription's tag hash codes, checked against each ConsumeQueue unit.

Java: org.apache.rocketmq.broker.filter.ExpressionMessageFilter (rocketmq-all-4.9.3)
Left out: SQL92 (property) filtering, its bloom-filter bit maps and the ConsumerFilterManager. The pull processor
refuses SQL92 subscriptions before a filter is built, so every filter here is a TAG filter.

For TAG subscriptions only the first stage decides: ``*`` takes everything, otherwise the low 32 bits of the unit's
tags code must be one of the subscribed tags' ``String#hashCode`` values. The CommitLog stage accepts everything,
so two tags with equal hash codes both reach the client, which compares the tag strings itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.common.filter.expression_type import is_tag_type
from mqlab.common.jdk.string_hash import to_int32
from mqlab.common.protocol.heartbeat.subscription_data import SUB_ALL

if TYPE_CHECKING:
    from mqlab.common.protocol.heartbeat.subscription_data import SubscriptionData


class ExpressionMessageFilter:
    """A ``MessageFilter`` (see ``mqlab.store.message_filter``) built from one subscription.

    Args:
        subscription_data: the consumer's subscription (``None``: take everything).
    """

    def __init__(self, subscription_data: SubscriptionData | None):
        self.subscription_data = subscription_data

    def is_matched_by_consume_queue(self, tags_code: int | None, cq_ext_unit: object | None = None) -> bool:
        """Whether a unit's tags code belongs to the subscription.

        Java: ExpressionMessageFilter#isMatchedByConsumeQueue
        """
        sub = self.subscription_data
        if sub is None or sub.class_filter_mode:
            return True
        if not is_tag_type(sub.expression_type):
            return True  # SQL92 without bloom data: Java lets the unit through to the CommitLog stage
        if tags_code is None or sub.sub_string == SUB_ALL:
            return True
        # Java: codeSet.contains(tagsCode.intValue()); a long tags code is cut to its low 32 bits.
        return to_int32(tags_code) in sub.code_set

    def is_matched_by_commit_log(self, msg_buffer: bytes | None, properties: dict[str, str] | None) -> bool:
        """Always true for TAG subscriptions (Java evaluates SQL92 expressions here).

        Java: ExpressionMessageFilter#isMatchedByCommitLog
        """
        return True

"""Builds a SubscriptionData from a topic and a tag expression.

Java: org.apache.rocketmq.common.filter.FilterAPI (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.common.filter.expression_type import TAG
from mqlab.common.jdk.string_hash import java_string_hash
from mqlab.common.jdk.strings import java_split, java_trim
from mqlab.common.protocol.heartbeat.subscription_data import SUB_ALL, SubscriptionData


class SubscriptionExpressionError(ValueError):
    """An expression FilterAPI cannot build (Java throws a plain Exception / IllegalArgumentException)."""


def build_subscription_data(topic: str, sub_string: str | None, sub_version: int = 0) -> SubscriptionData:
    """``*`` (or blank) subscribes to everything; otherwise tags split on ``||``, trimmed, and hashed.

    An expression of separators only (``"||"``) splits into nothing and is refused, and tags are trimmed with Java's
    ``trim`` (characters up to U+0020), both as in 4.9.3.

    Java: FilterAPI#buildSubscriptionData (``sub_version``: Java stamps ``System.currentTimeMillis()``)

    Raises:
        SubscriptionExpressionError: the expression splits into no part at all (Java: "subString split error").
    """
    data = SubscriptionData(topic=topic, sub_string=sub_string, sub_version=sub_version)
    if sub_string is None or sub_string == SUB_ALL or sub_string == "":
        data.sub_string = SUB_ALL
        return data
    tags = java_split(sub_string, "||")
    if not tags:
        raise SubscriptionExpressionError(f"subString split error: {sub_string!r}")
    for tag in tags:
        trimmed = java_trim(tag)
        if trimmed:
            data.tags_set.add(trimmed)
            data.code_set.add(java_string_hash(trimmed))
    return data


def build(topic: str, sub_string: str | None, expression_type: str | None, sub_version: int = 0) -> SubscriptionData:
    """TAG expressions as above; other types keep the expression as is. Java: FilterAPI#build."""
    if expression_type is None or expression_type == TAG:
        return build_subscription_data(topic, sub_string, sub_version)
    if not sub_string:
        raise SubscriptionExpressionError(f"Expression can't be null! {expression_type}")
    return SubscriptionData(
        topic=topic, sub_string=sub_string, expression_type=expression_type, sub_version=sub_version
    )

"""Subscription expression kinds.

Java: org.apache.rocketmq.common.filter.ExpressionType (rocketmq-all-4.9.3)
"""

from __future__ import annotations

SQL92 = "SQL92"
TAG = "TAG"


def is_tag_type(expression_type: str | None) -> bool:
    """Blank or TAG. Java: ExpressionType#isTagType."""
    return expression_type is None or expression_type == "" or expression_type == TAG

"""What a consumer subscribes to besides the topic: a tag expression or an SQL92 expression.

``by_tag("TagA || TagB")`` is what ``subscribe(topic, "TagA || TagB")`` builds too; ``by_sql`` selects on message
properties (the mqlab broker refuses SQL92 subscriptions, see the broker-pull spec page).

Java: org.apache.rocketmq.client.consumer.MessageSelector (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass

from mqlab.common.filter import expression_type


@dataclass(frozen=True, slots=True)
class MessageSelector:
    """An expression and its type (``TAG`` or ``SQL92``); build it with :meth:`by_tag` or :meth:`by_sql`."""

    expression_type: str
    expression: str | None

    @classmethod
    def by_sql(cls, sql: str | None) -> MessageSelector:
        """Select by an SQL92 expression over message properties.

        Java: MessageSelector#bySql
        """
        return cls(expression_type.SQL92, sql)

    @classmethod
    def by_tag(cls, tag: str | None) -> MessageSelector:
        """Select by tags (``"*"`` or ``"TagA || TagB"``).

        Java: MessageSelector#byTag
        """
        return cls(expression_type.TAG, tag)

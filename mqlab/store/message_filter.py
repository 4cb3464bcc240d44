"""How ``get_message`` decides which messages a subscription wants: first by tags code, then on the CommitLog.

Java: org.apache.rocketmq.store.MessageFilter (rocketmq-all-4.9.3) and, for tag subscriptions,
org.apache.rocketmq.broker.filter.ExpressionMessageFilter#isMatchedByConsumeQueue (the store-side twin of the
default filter is org.apache.rocketmq.store.DefaultMessageFilter).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from mqlab.common.jdk.string_hash import java_string_hash

SUB_ALL = "*"


class MessageFilter(Protocol):
    """The two filter stages of ``DefaultMessageStore#getMessage``."""

    def is_matched_by_consume_queue(self, tags_code: int | None, cq_ext_unit: object | None) -> bool:
        """Judged on the 20-byte unit's tags code alone. Java: MessageFilter#isMatchedByConsumeQueue."""
        ...

    def is_matched_by_commit_log(self, msg_buffer: bytes | None, properties: dict[str, str] | None) -> bool:
        """Judged on the stored record. Java: MessageFilter#isMatchedByCommitLog."""
        ...


class TagsMessageFilter:
    """A tag subscription: ``*`` takes everything; otherwise the set of the tags' hash codes.

    As in 4.9.3, the CommitLog stage accepts everything for tag subscriptions: two tags with the same hash code
    (e.g. ``"Aa"`` and ``"BB"``) both pass the broker, and the client drops the wrong one by comparing the tag
    string (``PullAPIWrapper#processPullResult``).

    Java: org.apache.rocketmq.store.DefaultMessageFilter (with the tag set of a SubscriptionData)
    """

    def __init__(self, tags: str | Iterable[str] = SUB_ALL):
        if isinstance(tags, str):
            tags = [t.strip() for t in tags.split("||")] if tags.strip() else [SUB_ALL]
        self.tags_set = {t for t in tags if t}
        self.class_filter_mode = False
        self.sub_all = not self.tags_set or SUB_ALL in self.tags_set
        self.code_set = {java_string_hash(t) for t in self.tags_set if t != SUB_ALL}

    def is_matched_by_consume_queue(self, tags_code: int | None, cq_ext_unit: object | None = None) -> bool:
        """Everything for ``*``; a missing tags code matches; else the low 32 bits must be a subscribed hash."""
        if tags_code is None or self.sub_all:
            return True
        low = tags_code & 0xFFFFFFFF
        return (low - (1 << 32) if low & 0x80000000 else low) in self.code_set

    def is_matched_by_commit_log(self, msg_buffer: bytes | None, properties: dict[str, str] | None) -> bool:
        """Always true for tag subscriptions (see the class docstring)."""
        return True

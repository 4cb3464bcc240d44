"""A message inside the broker on its way into the CommitLog: adds the serialised properties and the tags code.

Java: org.apache.rocketmq.store.MessageExtBrokerInner (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.common.jdk.string_hash import java_string_hash
from mqlab.common.message.message_ext import MessageExt


class MessageExtBrokerInner(MessageExt):
    """The store's input: ``properties_string`` is what gets written, ``tags_code`` what the ConsumeQueue gets."""

    __slots__ = ("encoded_buff", "properties_string", "tags_code")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.properties_string: str = ""
        self.tags_code = 0
        self.encoded_buff: bytes | None = None  # the record pre-encoded outside the put lock

    @classmethod
    def bare(cls) -> MessageExtBrokerInner:
        """An inner message with no properties yet (the broker fills it from the request)."""
        return cls(_bare=True)

    @staticmethod
    def tags_string2tags_code(tags: str | None, filter_type: object = None) -> int:
        """``tags.hashCode()`` widened to a long, or 0 for no tags; the filter type is ignored, as in 4.9.3.

        Java: MessageExtBrokerInner#tagsString2tagsCode
        """
        if not tags:
            return 0
        return java_string_hash(tags)

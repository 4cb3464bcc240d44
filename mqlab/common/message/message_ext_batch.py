"""A batch as the broker receives it: one MessageExt whose body holds the inner messages.

Java: org.apache.rocketmq.common.message.MessageExtBatch (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.common.message.message_ext import MessageExt


class MessageExtBatch(MessageExt):
    """Broker-side batch: ``body`` is the client's batch encoding; ``properties_string`` the batch-level ones."""

    __slots__ = ("encoded_buff", "properties_string")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.properties_string: str | None = None
        self.encoded_buff: bytes | None = None  # set by the store's encoder (Java: MessageExtBatch#encodedBuff)

    @classmethod
    def bare(cls) -> MessageExtBatch:
        """An empty batch with no properties yet."""
        return cls(_bare=True)

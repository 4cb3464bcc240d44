"""Several messages of one topic sent in one request (SEND_BATCH_MESSAGE).

Java: org.apache.rocketmq.common.message.MessageBatch (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from mqlab.common import mix_all
from mqlab.common.message import message_decoder
from mqlab.common.message.message import Message


class MessageBatchError(ValueError):
    """The messages cannot form a batch (Java throws UnsupportedOperationException)."""


class MessageBatch(Message):
    """A message whose body is the batch encoding of its inner messages (see ``encode``)."""

    __slots__ = ("messages",)

    def __init__(self, messages: Sequence[Message]):
        super().__init__(_bare=True)
        self.messages = list(messages)

    def encode(self) -> bytes:
        """The batch body.

        Java: MessageBatch#encode
        """
        return message_decoder.encode_messages(self.messages)

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages)

    def __len__(self) -> int:
        return len(self.messages)

    @classmethod
    def generate_from_list(cls, messages: Sequence[Message]) -> MessageBatch:
        """Check the messages can travel together and wrap them: same topic and WAIT, no delay, no retry topic.

        Java: MessageBatch#generateFromList
        """
        if not messages:
            raise MessageBatchError("the batch is empty")
        first = None
        for message in messages:
            if message.get_delay_time_level() > 0:
                raise MessageBatchError("TimeDelayLevel is not supported for batching")
            if message.topic is not None and message.topic.startswith(mix_all.RETRY_GROUP_TOPIC_PREFIX):
                raise MessageBatchError("Retry Group is not supported for batching")
            if first is None:
                first = message
                continue
            if first.topic != message.topic:
                raise MessageBatchError("The topic of the messages in one batch should be the same")
            if first.is_wait_store_msg_ok() != message.is_wait_store_msg_ok():
                raise MessageBatchError("The waitStoreMsgOK of the messages in one batch should the same")
        assert first is not None
        batch = cls(messages)
        batch.topic = first.topic
        batch.set_wait_store_msg_ok(first.is_wait_store_msg_ok())
        return batch

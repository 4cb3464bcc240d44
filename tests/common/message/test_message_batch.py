import pytest

from mqlab.common.message.message import Message
from mqlab.common.message.message_batch import MessageBatch, MessageBatchError


def msg(topic="TopicTest", **kwargs) -> Message:
    return Message(topic, "TagA", "k", b"body", **kwargs)


@pytest.mark.spec("MSG-21")
def test_batch_takes_topic_and_wait_of_the_first_message():
    batch = MessageBatch.generate_from_list([msg(wait_store_msg_ok=False), msg(wait_store_msg_ok=False)])
    assert batch.topic == "TopicTest"
    assert dict(batch.properties) == {"WAIT": "false"}
    assert len(batch) == 2
    assert [m.body for m in batch] == [b"body", b"body"]


@pytest.mark.spec("MSG-21")
def test_refusals_in_order():
    delayed = msg()
    delayed.set_delay_time_level(2)
    with pytest.raises(MessageBatchError, match="TimeDelayLevel"):
        MessageBatch.generate_from_list([msg(), delayed])
    with pytest.raises(MessageBatchError, match="Retry Group"):
        MessageBatch.generate_from_list([msg(), msg("%RETRY%group")])
    with pytest.raises(MessageBatchError, match="topic of the messages"):
        MessageBatch.generate_from_list([msg(), msg("Other")])
    with pytest.raises(MessageBatchError, match="waitStoreMsgOK"):
        MessageBatch.generate_from_list([msg(), msg(wait_store_msg_ok=False)])
    with pytest.raises(MessageBatchError, match="empty"):
        MessageBatch.generate_from_list([])
    # The per-message checks run before the comparison with the first message: a delayed message to another
    # topic is refused for its delay.
    other_delayed = msg("Other")
    other_delayed.set_delay_time_level(1)
    with pytest.raises(MessageBatchError, match="TimeDelayLevel"):
        MessageBatch.generate_from_list([msg(), other_delayed])

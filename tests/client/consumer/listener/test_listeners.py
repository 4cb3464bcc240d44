"""Listener statuses, contexts and the two listener protocols (objects or plain functions)."""

import pytest

from mqlab.client.consumer.listener.consume_concurrently_context import ConsumeConcurrentlyContext
from mqlab.client.consumer.listener.consume_concurrently_status import ConsumeConcurrentlyStatus
from mqlab.client.consumer.listener.consume_orderly_context import ConsumeOrderlyContext
from mqlab.client.consumer.listener.consume_orderly_status import ConsumeOrderlyStatus
from mqlab.client.consumer.listener.message_listener_concurrently import as_message_listener_concurrently
from mqlab.client.consumer.listener.message_listener_orderly import as_message_listener_orderly
from mqlab.common.message.message_queue import MessageQueue
from tests.client.client_fakes import make_msg

MQ = MessageQueue("TopicTest", "broker-a", 0)

pytestmark = pytest.mark.spec("CLI-20")


def test_status_members():
    assert [s.name for s in ConsumeConcurrentlyStatus] == ["CONSUME_SUCCESS", "RECONSUME_LATER"]
    assert [s.name for s in ConsumeOrderlyStatus] == ["SUCCESS", "ROLLBACK", "COMMIT", "SUSPEND_CURRENT_QUEUE_A_MOMENT"]


def test_context_defaults():
    concurrently = ConsumeConcurrentlyContext(MQ)
    assert (concurrently.message_queue, concurrently.delay_level_when_next_consume, concurrently.ack_index) == (
        MQ,
        0,
        2**31 - 1,
    ), "ConsumeConcurrentlyContext: delayLevelWhenNextConsume 0, ackIndex Integer.MAX_VALUE"
    orderly = ConsumeOrderlyContext(MQ)
    assert (orderly.auto_commit, orderly.suspend_current_queue_time_millis) == (True, -1)


def test_plain_functions_are_accepted_as_listeners():
    seen = []

    def concurrently(msgs, context):
        seen.append(("c", [m.queue_offset for m in msgs], context.message_queue))
        context.ack_index = 0
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS

    listener = as_message_listener_concurrently(concurrently)
    context = ConsumeConcurrentlyContext(MQ)
    assert listener.consume_message([make_msg(4)], context) is ConsumeConcurrentlyStatus.CONSUME_SUCCESS
    assert context.ack_index == 0

    orderly = as_message_listener_orderly(lambda msgs, ctx: ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT)
    assert orderly.consume_message([make_msg(5)], ConsumeOrderlyContext(MQ)) is (
        ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT
    )
    assert seen == [("c", [4], MQ)]


def test_listener_objects_are_used_as_they_are():
    class Listener:
        def consume_message(self, msgs, context):
            return ConsumeOrderlyStatus.SUCCESS

    listener = Listener()
    assert as_message_listener_orderly(listener) is listener
    assert as_message_listener_concurrently(listener) is listener

"""The ready-made MessageQueueSelectors (4.9.3's SelectMessageQueueByHashTest and Java's hash arithmetic)."""

import random

import pytest

from mqlab.client.producer.selector.select_message_queue_by_hash import SelectMessageQueueByHash
from mqlab.client.producer.selector.select_message_queue_by_machine_room import SelectMessageQueueByMachineRoom
from mqlab.client.producer.selector.select_message_queue_by_random import SelectMessageQueueByRandom
from mqlab.common.message.message import Message
from mqlab.common.message.message_queue import MessageQueue

TOPIC = "FooBar"
QUEUES = [MessageQueue(TOPIC, "DefaultBroker", i) for i in range(10)]
MESSAGE = Message(TOPIC, body=b"")

pytestmark = pytest.mark.spec("CLI-8")


def test_select_by_hash_as_in_4_9_3s_test():
    selector = SelectMessageQueueByHash()
    assert selector.select(QUEUES, MESSAGE, "123") != selector.select(QUEUES, MESSAGE, "234")
    for key in ["polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES"]:  # hashCode == Integer.MIN_VALUE
        selector.select(QUEUES, MESSAGE, key)


@pytest.mark.parametrize(
    ("arg", "queue_id"),
    [
        ("123", 0),  # 48690 % 10
        ("234", 3),  # 49683 % 10
        ("order-1", 0),  # -1207111310 % 10 == 0
        ("order-2", 9),  # Java: -1207111309 % 10 == -9 → 9 (Python's % would give 1)
        ("polygenelubricants", 8),  # Integer.MIN_VALUE % 10 == -8 → 8
        (7, 7),  # Integer.hashCode
        (-3, 3),
        (2**40 + 5, 1),  # beyond the int range: Long.hashCode, (int)(v ^ v >>> 32) == 261
    ],
)
def test_select_by_hash_uses_java_hash_codes_and_remainder(arg, queue_id):
    assert SelectMessageQueueByHash().select(QUEUES, MESSAGE, arg).queue_id == queue_id


def test_same_key_same_queue():
    selector = SelectMessageQueueByHash()
    assert {selector.select(QUEUES, MESSAGE, "order-42") for _ in range(5)} == {
        selector.select(QUEUES, MESSAGE, "order-42")
    }


def test_select_by_random_draws_from_the_given_stream():
    picks = [SelectMessageQueueByRandom(random.Random(9)).select(QUEUES, MESSAGE, None) for _ in range(2)]
    assert picks[0] == picks[1]
    expected = random.Random(9).randrange(10)
    assert picks[0].queue_id == expected
    selector = SelectMessageQueueByRandom(random.Random(1))
    assert {selector.select(QUEUES, MESSAGE, None).queue_id for _ in range(200)} == set(range(10))


def test_select_by_machine_room_selects_nothing():
    selector = SelectMessageQueueByMachineRoom({"room-1"})
    assert selector.consumeridcs == {"room-1"}
    assert selector.select(QUEUES, MESSAGE, "x") is None

import pytest

from mqlab.client.consumer.rebalance.allocate_message_queue_averagely_by_circle import (
    AllocateMessageQueueAveragelyByCircle,
)
from mqlab.common.message.message_queue import MessageQueue
from tests.client.consumer.rebalance.allocation_helpers import WORKED_CIDS, WORKED_QUEUES, allocate_all, indices

# RocketMQ 4.9.3 AllocateMessageQueueAveragelyByCircleTest.
JAVA_TEST_QUEUES = [MessageQueue("topic", "brokerName", i) for i in range(10)]
JAVA_TEST_CIDS = [f"CID_PREFIX{i}" for i in range(4)]


@pytest.mark.spec("ALLOC-7")
def test_rocketmq_unit_test():
    strategy = AllocateMessageQueueAveragelyByCircle()
    assert strategy.allocate("", "CID_PREFIX", JAVA_TEST_QUEUES, JAVA_TEST_CIDS) == []
    result = allocate_all(strategy, JAVA_TEST_QUEUES, JAVA_TEST_CIDS)
    assert {cid: [mq.queue_id for mq in queues] for cid, queues in result.items()} == {
        "CID_PREFIX0": [0, 4, 8],
        "CID_PREFIX1": [1, 5, 9],
        "CID_PREFIX2": [2, 6],
        "CID_PREFIX3": [3, 7],
    }


@pytest.mark.spec("ALLOC-7", "ALLOC-19")
def test_worked_example_like_java():
    result = allocate_all(AllocateMessageQueueAveragelyByCircle(), WORKED_QUEUES, WORKED_CIDS)
    assert indices(result, WORKED_QUEUES) == [[0, 3, 6], [1, 4, 7], [2, 5]]


@pytest.mark.spec("ALLOC-7")
def test_more_consumers_than_queues():
    result = allocate_all(AllocateMessageQueueAveragelyByCircle(), WORKED_QUEUES[:2], WORKED_CIDS)
    assert indices(result, WORKED_QUEUES) == [[0], [1], []]

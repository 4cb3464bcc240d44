import pytest

from mqlab.client.consumer.rebalance.allocate_message_queue_averagely import AllocateMessageQueueAveragely
from mqlab.common.message.message_queue import MessageQueue
from tests.client.consumer.rebalance.allocation_helpers import WORKED_CIDS, WORKED_QUEUES, allocate_all, indices

# RocketMQ 4.9.3 AllocateMessageQueueAveragelyTest: 10 queues of one broker, consumers CID_PREFIX0..3.
JAVA_TEST_QUEUES = [MessageQueue("topic", "brokerName", i) for i in range(10)]
JAVA_TEST_CIDS = [f"CID_PREFIX{i}" for i in range(4)]


@pytest.mark.spec("ALLOC-6")
def test_rocketmq_unit_test_sizes_and_blocks():
    result = allocate_all(AllocateMessageQueueAveragely(), JAVA_TEST_QUEUES, JAVA_TEST_CIDS)
    assert [len(queues) for queues in result.values()] == [3, 3, 2, 2]  # the Java test's assertion
    # The blocks themselves, as the compiled 4.9.3 class returned them.
    assert indices(result, JAVA_TEST_QUEUES) == [[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]


@pytest.mark.spec("ALLOC-6", "ALLOC-19")
def test_worked_example_like_java():
    result = allocate_all(AllocateMessageQueueAveragely(), WORKED_QUEUES, WORKED_CIDS)
    assert indices(result, WORKED_QUEUES) == [[0, 1, 2], [3, 4, 5], [6, 7]]


@pytest.mark.spec("ALLOC-6")
@pytest.mark.parametrize(
    ("mq_count", "cid_count", "blocks"),
    [
        (8, 3, [(0, 3), (3, 3), (6, 2)]),
        (9, 3, [(0, 3), (3, 3), (6, 3)]),
        (3, 5, [(0, 1), (1, 1), (2, 1), (6, 0), (7, 0)]),  # fewer queues than consumers: the last ones idle
        (1, 1, [(0, 1)]),
        (7, 7, [(i, 1) for i in range(7)]),
        (5, 2, [(0, 3), (3, 2)]),
    ],
)
def test_blocks(mq_count, cid_count, blocks):
    assert [AllocateMessageQueueAveragely.block_of(i, mq_count, cid_count) for i in range(cid_count)] == blocks

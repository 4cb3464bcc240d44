import pytest

from mqlab.client.consumer.rebalance.allocate_message_queue_by_config import AllocateMessageQueueByConfig
from tests.client.consumer.rebalance.allocation_helpers import WORKED_CIDS, WORKED_QUEUES


@pytest.mark.spec("ALLOC-4", "ALLOC-19")
def test_every_consumer_gets_the_configured_list():
    configured = [WORKED_QUEUES[0], WORKED_QUEUES[4]]
    strategy = AllocateMessageQueueByConfig(configured)
    for cid in WORKED_CIDS:
        assert strategy.allocate("G", cid, WORKED_QUEUES, WORKED_CIDS) is configured


@pytest.mark.spec("ALLOC-4")
@pytest.mark.parametrize(
    ("current_cid", "mq_all", "cid_all"),
    [(None, None, None), ("", [], []), ("nobody@1", WORKED_QUEUES, WORKED_CIDS)],
)
def test_no_argument_checks(current_cid, mq_all, cid_all):
    configured = WORKED_QUEUES[5:]
    assert AllocateMessageQueueByConfig(configured).allocate("G", current_cid, mq_all, cid_all) == configured


@pytest.mark.spec("ALLOC-4")
def test_unset_list_allocates_nothing():
    strategy = AllocateMessageQueueByConfig()
    assert strategy.message_queue_list is None
    assert strategy.allocate("G", WORKED_CIDS[0], WORKED_QUEUES, WORKED_CIDS) == []
    strategy.message_queue_list = WORKED_QUEUES[:1]  # Java: setMessageQueueList
    assert strategy.allocate("G", WORKED_CIDS[0], WORKED_QUEUES, WORKED_CIDS) == WORKED_QUEUES[:1]

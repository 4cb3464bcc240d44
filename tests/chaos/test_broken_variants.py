"""Deliberately broken engines must fail a small campaign, each on the property it breaks; the real engine passes."""

import pytest

from mqlab.chaos import broken
from mqlab.chaos.campaign import run_local, tasks_for
from mqlab.client.impl.consumer.consume_message_concurrently_service import ConsumeMessageConcurrentlyService
from mqlab.client.impl.consumer.process_queue import ProcessQueue
from mqlab.store.commit_log import CommitLog
from mqlab.store.group_commit_service import GroupCommitService

# variant -> (workload, fault profile, the property its campaign must report, seeds)
SEEDS = (0, 1, 2)
CASES = {
    "skip-sync-flush": ("orderly", "power-loss", "acked-delivered", SEEDS),
    "drop-send-back": ("clustering", "none", "acked-delivered", SEEDS),
    "commit-before-consume": ("slow-consumer", "none", "commit-after-consume", SEEDS),
    "orderly-out-of-order": ("orderly", "none", "orderly-queue-order", SEEDS),
    # A SYNC_MASTER that does not wait loses only what its slave lacked when the master's machine was lost: these
    # seeds cut the slave off (a partition, a slave crash) before the loss; the others lose the master at a quiet
    # moment or not at all.
    "sync-master-no-wait": ("sync-master", "replication", "sync-master-replicated", (5, 8, 9)),
}


@pytest.mark.spec("CHAOS-9")
@pytest.mark.parametrize("variant", sorted(CASES))
def test_a_small_campaign_catches_the_broken_variant_and_passes_the_real_engine(variant):
    workload, faults, prop, seeds = CASES[variant]
    caught = run_local(tasks_for(seeds, [workload], [faults], broken=variant))
    assert caught.failures, f"{variant}: no seed of {workload}/{faults} broke a guarantee"
    assert all(row["anomalies"][0].startswith(prop) for row in caught.failures)
    assert "mqlab chaos replay --seed" in caught.summary()
    real = run_local(tasks_for(seeds, [workload], [faults]))
    assert not real.failures, real.summary()


@pytest.mark.spec("CHAOS-9")
def test_a_variant_changes_nothing_outside_its_block():
    originals = (
        GroupCommitService.run_once,
        ConsumeMessageConcurrentlyService.send_message_back,
        ConsumeMessageConcurrentlyService.submit_consume_request,
        ProcessQueue.take_messages,
        CommitLog.submit_replica_request,
    )
    for name in broken.VARIANTS:
        with broken.variant(name):
            pass
    assert (
        GroupCommitService.run_once,
        ConsumeMessageConcurrentlyService.send_message_back,
        ConsumeMessageConcurrentlyService.submit_consume_request,
        ProcessQueue.take_messages,
        CommitLog.submit_replica_request,
    ) == originals
    with pytest.raises(ValueError, match="unknown broken variant"), broken.variant("no-such-bug"):
        pass

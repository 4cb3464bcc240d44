"""The checker on small hand-made histories: each property fails when it should, each allowed behaviour is counted."""

import pytest

from mqlab.chaos.checker import check_history
from mqlab.chaos.history import CommitRecord, DeliveryRecord, DlqRecord, FaultRecord, History, SendRecord


def history(**groups):
    h = History(seed=5, workload="clustering", faults="crash")
    h.flush_types = {"broker-a": "SYNC_FLUSH", "broker-b": "ASYNC_FLUSH"}
    h.groups = groups or {"G": {"broadcasting": False, "orderly": False, "max_reconsume_times": 2}}
    return h


def send(h, key, broker="broker-a", outcome="ok", offset=0):
    h.sends.append(SendRecord(h.next_seq(), 0, key, "sync", outcome, broker, 0, offset))


def deliver(h, key, *, group="G", instance="G-1", status="success", offset=0, reconsume=0, orderly=False, work=0):
    seq = h.next_seq()
    for _ in range(work):
        h.next_seq()
    h.deliveries.append(
        DeliveryRecord(
            seq, h.next_seq(), 0, group, instance, key, "T", "broker-a", 0, offset, reconsume, status, orderly
        )
    )


CLUSTERING = {"broadcasting": False, "orderly": False, "max_reconsume_times": 2}


@pytest.mark.spec("CHAOS-3")
def test_an_acknowledged_message_never_consumed_breaks_acked_delivered():
    h = history()
    send(h, "m0")
    send(h, "m1")
    deliver(h, "m0")
    verdict = check_history(h)
    assert [(a.property, a.keys) for a in verdict.anomalies] == [("acked-delivered", ("m1",))]
    assert "mqlab chaos replay --seed 5 --workload clustering --faults crash" in verdict.report()
    assert verdict.line().startswith("seed=5 clustering/crash: FAIL(1)")


@pytest.mark.spec("CHAOS-3", "CHAOS-6")
def test_a_dead_lettered_message_counts_as_handled_after_enough_failures():
    h = history()
    send(h, "m0")
    for times in range(3):
        deliver(h, "m0", status="failure", reconsume=times)
    h.dlq.append(DlqRecord(h.next_seq(), 0, "G", "m0", "broker-a", 2))
    verdict = check_history(h)
    assert verdict.ok and verdict.classified["dead-lettered"] == 1


@pytest.mark.spec("CHAOS-6", "CHAOS-8")
def test_a_message_in_the_dlq_too_early_breaks_the_reconsume_rule():
    h = history()
    send(h, "m0")
    deliver(h, "m0", status="failure")
    h.dlq.append(DlqRecord(h.next_seq(), 0, "G", "m0", "broker-a", 0))
    assert [a.property for a in check_history(h).anomalies] == ["dlq-after-max-reconsume"]
    deliver(h, "m0", status="failure", reconsume=1)  # maxReconsumeTimes failures: the send-back fallback's way
    verdict = check_history(h)
    assert verdict.ok and verdict.classified["dead-lettered-early-after-send-back-fallback"] == 1


@pytest.mark.spec("CHAOS-8")
def test_a_message_stored_after_a_power_loss_at_a_reused_offset_is_classified():
    h = history()
    h.faults_applied.append(FaultRecord(h.next_seq(), 0, "power-loss", "start", "broker-b"))
    send(h, "m0", broker="broker-b")
    verdict = check_history(h)
    assert verdict.ok and verdict.classified["offset-reuse-after-power-loss"] == 1


@pytest.mark.spec("CHAOS-3", "CHAOS-8")
def test_async_flush_loss_after_a_power_loss_is_classified_not_failed():
    h = history()
    send(h, "m0", broker="broker-b")
    h.faults_applied.append(FaultRecord(h.next_seq(), 0, "power-loss", "start", "broker-b"))
    verdict = check_history(h)
    assert verdict.ok and verdict.classified["async-flush-loss"] == 1
    h.flush_types["broker-b"] = "SYNC_FLUSH"  # the same loss on a SYNC_FLUSH broker is a broken promise
    assert [a.property for a in check_history(h).anomalies] == ["acked-delivered"]


@pytest.mark.spec("CHAOS-4")
def test_every_broadcasting_instance_must_consume_every_acknowledged_message():
    h = history(B={"broadcasting": True, "orderly": False, "max_reconsume_times": 2})
    send(h, "m0")
    send(h, "m1")
    for key in ("m0", "m1"):
        deliver(h, key, group="B", instance="B-1")
    deliver(h, "m0", group="B", instance="B-2")
    verdict = check_history(h)
    assert [(a.property, a.keys) for a in verdict.anomalies] == [("broadcast-each-instance", ("m1",))]


@pytest.mark.spec("CHAOS-5")
def test_orderly_delivery_before_the_previous_message_is_consumed_is_caught():
    h = history(O={"broadcasting": False, "orderly": True, "max_reconsume_times": 2})
    for offset, key in enumerate(("m0", "m1", "m2")):
        send(h, key, offset=offset)
    deliver(h, "m0", group="O", offset=0, orderly=True, status="failure")
    deliver(h, "m0", group="O", offset=0, orderly=True, reconsume=1)
    deliver(h, "m1", group="O", offset=1, orderly=True)
    deliver(h, "m2", group="O", offset=2, orderly=True)
    assert check_history(h).ok
    h2 = history(O={"broadcasting": False, "orderly": True, "max_reconsume_times": 2})
    for offset, key in enumerate(("m0", "m1")):
        send(h2, key, offset=offset)
    deliver(h2, "m1", group="O", offset=1, orderly=True)
    deliver(h2, "m0", group="O", offset=0, orderly=True)
    assert [a.property for a in check_history(h2).anomalies] == ["orderly-queue-order"]


@pytest.mark.spec("CHAOS-7")
def test_a_commit_past_a_message_still_in_the_listener_is_caught():
    h = history()
    send(h, "m0")
    deliver(h, "m0", work=3)  # the listener runs over seqs 2..6
    commit_seq = h.deliveries[0].seq + 1
    h.commits.append(CommitRecord(commit_seq, 0, "G", "T", "broker-a", 0, 1))
    assert [a.property for a in check_history(h).anomalies] == ["commit-after-consume"]
    h.commits[0] = CommitRecord(h.next_seq(), 0, "G", "T", "broker-a", 0, 1)  # after the listener returned
    assert check_history(h).ok


@pytest.mark.spec("CHAOS-8")
def test_duplicates_are_counted_by_their_cause():
    h = history()
    send(h, "m0")
    send(h, "m1")
    send(h, "m2", outcome="failed")
    send(h, "m3", outcome="unknown")
    deliver(h, "m0", instance="G-1")
    deliver(h, "m0", instance="G-2")
    deliver(h, "m1")
    h.faults_applied.append(FaultRecord(h.next_seq(), 0, "consumer-crash", "start", "G-1"))
    deliver(h, "m1")
    deliver(h, "m2")
    verdict = check_history(h)
    assert verdict.ok
    assert verdict.classified["duplicate-after-rebalance"] == 1
    assert verdict.classified["duplicate-after-consumer-crash"] == 1
    assert verdict.classified["failed-send-stored"] == 1
    assert verdict.classified["unacked-send-lost"] == 1

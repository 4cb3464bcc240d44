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


@pytest.mark.spec("CHAOS-8")
def test_a_retry_written_twice_after_a_broker_restart_is_a_broker_crash_duplicate():
    def retried(h, offset):
        d = h.deliveries.pop()
        h.deliveries.append(
            DeliveryRecord(
                d.seq, d.end_seq, 0, "G", "G-1", "m0", "%RETRY%G", "broker-a", 0, offset, 1, "success", False
            )
        )

    h = history()
    send(h, "m0")
    deliver(h, "m0", status="failure")
    h.faults_applied.append(FaultRecord(h.next_seq(), 0, "broker-crash", "start", "broker-a"))
    deliver(h, "m0")
    retried(h, 0)
    deliver(h, "m0")
    retried(h, 1)  # the same attempt (reconsume 1) from a second copy in %RETRY%G
    verdict = check_history(h)
    assert verdict.ok and verdict.classified["duplicate-after-broker-crash"] == 1
    h.faults_applied.clear()  # without a broker crash before it, the second copy is not explained
    assert check_history(h).classified["duplicate-other"] == 1


def ha_history(role):
    h = History(seed=5, workload="sync-master", faults="replication")
    h.flush_types = {"broker-a": "ASYNC_FLUSH"}
    h.roles = {"broker-a": role}
    h.groups = {"G": CLUSTERING}
    h.replicas = {"broker-a": []}
    return h


def send_status(h, key, detail, outcome="unknown"):
    h.sends.append(SendRecord(h.next_seq(), 0, key, "sync", outcome, "broker-a", 0, 0, 0, detail))


def lose_master(h, behind):
    h.faults_applied.append(FaultRecord(h.next_seq(), 0, "master-loss", "start", "broker-a"))
    h.faults_applied.append(FaultRecord(h.next_seq(), 0, "master-loss", "lost", "broker-a", behind))


@pytest.mark.spec("CHAOS-12")
def test_a_sync_master_acknowledgement_missing_from_the_slave_breaks_sync_master_replicated():
    h = ha_history("SYNC_MASTER")
    send(h, "m0")
    send(h, "m1")
    deliver(h, "m0")
    deliver(h, "m1")
    h.replicas["broker-a"] = ["m0"]
    verdict = check_history(h)
    assert [(a.property, a.keys) for a in verdict.anomalies] == [("sync-master-replicated", ("m1",))]
    h.replicas["broker-a"] = ["m0", "m1"]
    assert check_history(h).ok


@pytest.mark.spec("CHAOS-12", "CHAOS-14")
def test_after_the_master_is_lost_a_sync_master_message_is_owed_and_nothing_excuses_it():
    h = ha_history("SYNC_MASTER")
    send(h, "m0")
    lose_master(h, behind=0)
    h.replicas["broker-a"] = ["m0"]  # on the slave, but no group consumed it from there
    verdict = check_history(h)
    assert [(a.property, a.keys) for a in verdict.anomalies] == [("acked-delivered", ("m0",))]
    assert "SYNC_MASTER ASYNC_FLUSH" in verdict.anomalies[0].detail
    h.replicas["broker-a"] = []  # neither on the slave nor consumed: both promises broken, no classification
    verdict = check_history(h)
    assert [a.property for a in verdict.anomalies] == ["sync-master-replicated", "acked-delivered"]
    assert not verdict.classified["async-master-loss"] and not verdict.classified["async-flush-loss"]


@pytest.mark.spec("CHAOS-14")
def test_an_async_master_losing_unreplicated_messages_is_classified_with_the_bytes_behind():
    h = ha_history("ASYNC_MASTER")
    send(h, "m0")
    send(h, "m1")
    send(h, "m2")
    deliver(h, "m1")  # consumed from the master before the loss: still lost from the slave's copy
    lose_master(h, behind=370)
    h.replicas["broker-a"] = ["m2"]
    verdict = check_history(h)
    assert [(a.property, a.keys) for a in verdict.anomalies] == [("acked-delivered", ("m2",))]  # the slave has it
    deliver(h, "m2")
    verdict = check_history(h)
    assert verdict.ok and verdict.classified["async-master-loss"] == 2
    assert verdict.notes == [
        "broker-a (ASYNC_MASTER) lost its machine with its slave 370 bytes behind: "
        "2 acknowledged messages not on the slave (m0, m1)"
    ]
    assert "note: broker-a (ASYNC_MASTER) lost its machine" in verdict.report()
    h.faults_applied.clear()  # without the loss, a missing message is a broken promise again
    assert [a.property for a in check_history(h).anomalies] == ["acked-delivered"]


def fault(h, kind, target, action="start", time_ms=0):
    h.faults_applied.append(FaultRecord(h.next_seq(), time_ms, kind, action, target))


@pytest.mark.spec("CHAOS-16")
def test_a_message_on_the_slave_of_a_lost_master_is_excused_only_when_the_route_is_gone_for_a_known_cause():
    h = ha_history("SYNC_MASTER")
    h.slaves = {"broker-a": "broker-a-s1"}
    h.routed = ["broker-a"]
    send(h, "m0")
    send(h, "m1")
    deliver(h, "m0")
    lose_master(h, behind=0)
    fault(h, "slave-crash", "broker-a-s1", time_ms=2716)
    h.replicas["broker-a"] = ["m0", "m1"]
    # The name server still routes broker-a (to the slave): nothing excuses m1.
    assert [(a.property, a.keys) for a in check_history(h).anomalies] == [("acked-delivered", ("m1",))]
    h.routed = []
    verdict = check_history(h)
    assert verdict.ok and verdict.classified["unroutable-on-slave"] == 1
    assert verdict.notes[-1] == (
        "broker-a lost its machine and 2716 ms later its slave went down: the name server routes the topic to no "
        "queue of broker-a (queue data comes only from a master's registration), 1 messages on the slave "
        "unreachable (m1)"
    )
    h.replicas["broker-a"] = ["m0"]  # not on the slave: a broken SYNC_MASTER promise, never excused
    assert [a.property for a in check_history(h).anomalies] == ["sync-master-replicated", "acked-delivered"]


@pytest.mark.spec("CHAOS-16")
def test_a_missing_route_without_a_cause_after_the_loss_is_not_excused():
    def history(*faults):
        h = ha_history("SYNC_MASTER")
        h.slaves = {"broker-a": "broker-a-s1"}
        h.replicas["broker-a"] = ["m0"]
        for kind, target in faults:
            fault(h, kind, target)
        send(h, "m0")
        lose_master(h, behind=0)
        return h

    bare = history()  # no route and no reason for it: the checker must not invent one
    assert [a.property for a in check_history(bare).anomalies] == ["acked-delivered"]
    # The slave went down and came back before the loss: the master's registration had restored the queues.
    before = history(("slave-crash", "broker-a-s1"), ("slave-crash", "broker-a-s1"))
    before.faults_applied[1] = FaultRecord(2, 0, "slave-crash", "stop", "broker-a-s1")
    assert [a.property for a in check_history(before).anomalies] == ["acked-delivered"]
    down = history(("slave-crash", "broker-a-s1"))  # still down at the loss: nothing left to route to
    verdict = check_history(down)
    assert verdict.ok and "its slave was already down" in verdict.notes[-1]
    other = history()
    fault(other, "slave-crash", "broker-b-s1")  # another pair's slave explains nothing about broker-a
    assert [a.property for a in check_history(other).anomalies] == ["acked-delivered"]
    unrouted = history()  # the name server had restarted and the master had not registered again before the loss
    unrouted.unrouted_at_loss = ["broker-a"]
    verdict = check_history(unrouted)
    assert verdict.ok and "the name server had no queue of it at that moment" in verdict.notes[-1]
    unrouted.routed = ["broker-a"]  # yet routed at the end: then nothing excuses the missing delivery
    assert [a.property for a in check_history(unrouted).anomalies] == ["acked-delivered"]
    restarted = history()
    fault(restarted, "namesrv-loss", "namesrv")  # a new, empty name server: only a master's registration adds queues
    verdict = check_history(restarted)
    assert verdict.ok and verdict.classified["unroutable-on-slave"] == 1
    assert "the name server restarted" in verdict.notes[-1]


@pytest.mark.spec("CHAOS-14")
def test_an_async_master_answer_reaching_the_producer_after_the_loss_is_still_an_async_master_loss():
    h = ha_history("ASYNC_MASTER")
    lose_master(h, behind=187)
    send(h, "m16")  # stored and answered before the machine died; the answer was on the wire and arrived after
    verdict = check_history(h)
    assert verdict.ok and verdict.classified["async-master-loss"] == 1
    assert verdict.notes == [
        "broker-a (ASYNC_MASTER) lost its machine with its slave 187 bytes behind: 1 acknowledged messages not on "
        "the slave (m16)"
    ]
    h.roles["broker-a"] = "SYNC_MASTER"  # the same for a SYNC_MASTER: its SEND_OK promised the slave had it
    assert [a.property for a in check_history(h).anomalies] == ["sync-master-replicated", "acked-delivered"]


@pytest.mark.spec("CHAOS-13")
def test_replica_statuses_are_classified_and_the_message_is_owed_unless_the_master_was_lost():
    h = ha_history("SYNC_MASTER")
    send_status(h, "m0", "FLUSH_SLAVE_TIMEOUT")
    send_status(h, "m1", "SLAVE_NOT_AVAILABLE")
    deliver(h, "m0")
    verdict = check_history(h)
    assert verdict.classified["flush-slave-timeout"] == 1 and verdict.classified["slave-not-available"] == 1
    assert [(a.property, a.keys) for a in verdict.anomalies] == [("acked-delivered", ("m1",))]  # stored on master
    lose_master(h, behind=185)
    verdict = check_history(h)
    assert verdict.ok and verdict.classified["slave-not-available"] == 1

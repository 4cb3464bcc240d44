"""The ``transactions`` chaos workload: a transactional producer under a full disk, graded by the checker."""

from __future__ import annotations

import pytest

from mqlab.chaos.campaign import Task, run_task
from mqlab.chaos.workload import WORKLOADS, run_seed

pytestmark = pytest.mark.timeout(300)


@pytest.mark.spec("CHAOS-17")
@pytest.mark.parametrize("seed", [0, 1])
def test_transactions_under_disk_full_complete_and_every_decided_commit_is_consumed(seed):
    history, verdict = run_seed(seed, "transactions", "disk")
    assert verdict.ok, verdict.report()
    assert any(f.fault == "disk-full" for f in history.faults_applied)
    modes = {s.mode for s in history.sends}
    assert {"transaction-commit_message", "transaction-rollback_message", "transaction-unknow"} <= modes
    delivered = {d.key for d in history.deliveries}
    rolled_back = {s.key for s in history.sends if s.mode == "transaction-rollback_message"}
    assert rolled_back and not rolled_back & delivered  # a rollback is never consumed
    checked = {s.key for s in history.sends if s.mode == "transaction-check"}
    assert checked and checked <= delivered  # UNKNOW ones were committed by the check and consumed


@pytest.mark.spec("CHAOS-17")
def test_the_campaign_runs_and_grades_the_transactions_workload():
    assert WORKLOADS["transactions"].transactions
    row = run_task(Task(2, "transactions", "disk"))
    assert row["ok"] and row["acked"] > 0, row

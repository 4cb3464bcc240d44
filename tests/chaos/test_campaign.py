"""The CI campaign, determinism of one run, and the ``mqlab chaos`` command line."""

import json

import pytest

from mqlab.chaos.campaign import Task, parse_seeds, run_local
from mqlab.chaos.nemesis import PROFILES
from mqlab.chaos.workload import WORKLOADS, run_seed
from mqlab.cli import main

PROFILES_IN_CI = [name for name in PROFILES if name != "none"]
CI_SEEDS = 200
# The campaign's cost, counted in simulated events so the check does not depend on the machine's load: 16.6 million
# events took 104 s with two processes on an otherwise idle 2-core machine (and 234 s on a busy one).
CI_EVENT_BUDGET = 20_000_000


def ci_tasks():
    workloads = list(WORKLOADS)
    return [
        Task(s, workloads[s % len(workloads)], PROFILES_IN_CI[s // len(workloads) % len(PROFILES_IN_CI)])
        for s in range(CI_SEEDS)
    ]


@pytest.mark.spec("CHAOS-10", "CHAOS-3", "CHAOS-4", "CHAOS-5", "CHAOS-6", "CHAOS-7", "CHAOS-8")
def test_the_ci_campaign_breaks_no_guarantee():
    result = run_local(ci_tasks(), jobs=2)
    assert len(result.rows) == CI_SEEDS
    assert not result.failures, result.summary()
    assert {row["workload"] for row in result.rows} == set(WORKLOADS)
    assert sum(row["fault_count"] > 0 for row in result.rows) > CI_SEEDS // 2  # most runs did suffer faults
    events = sum(row["events"] for row in result.rows)
    assert events < CI_EVENT_BUDGET, f"the CI campaign grew to {events} simulated events ({result.wall_s:.0f} s)"


@pytest.mark.spec("CHAOS-1")
def test_a_seed_replays_to_the_same_history_and_verdict():
    first, verdict = run_seed(11, "clustering", "all")
    second, again = run_seed(11, "clustering", "all")
    assert first.to_dict() == second.to_dict()
    assert verdict.line() == again.line()
    other, _ = run_seed(12, "clustering", "all")
    assert other.to_dict() != first.to_dict()


@pytest.mark.spec("CHAOS-11")
def test_seed_ranges_parse_and_bad_ones_are_refused():
    assert parse_seeds("0..3") == [0, 1, 2, 3]
    assert parse_seeds("7") == [7]
    assert parse_seeds("1,5,9") == [1, 5, 9]
    with pytest.raises(ValueError, match="seeds must look like"):
        parse_seeds("a..b")


@pytest.mark.spec("CHAOS-11")
def test_chaos_run_writes_rows_and_a_summary(tmp_path, capsys):
    code = main(["chaos", "run", "--workload", "orderly", "--faults", "crash", "--seeds", "0..1", "--no-progress",
                 "--out", str(tmp_path)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("2 runs, 0 with a broken guarantee")
    rows = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    seen = [(r["seed"], r["workload"], r["faults"], r["ok"]) for r in rows]
    assert seen == [(0, "orderly", "crash", True), (1, "orderly", "crash", True)]
    assert (tmp_path / "summary.txt").read_text().startswith("2 runs")
    assert main(["chaos", "run", "--workload", "nope", "--seeds", "0"]) == 2


@pytest.mark.spec("CHAOS-11", "CHAOS-1")
def test_chaos_replay_prints_the_timeline_the_verdict_and_the_trace_of_an_anomaly(capsys):
    code = main(["chaos", "replay", "--seed", "0", "--workload", "slow-consumer", "--faults", "none",
                 "--broken", "commit-before-consume", "--limit", "4"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    assert "fault schedule (ms after the first send): none" in out
    assert "SEND    m0 sync ok broker-a:1@0 SEND_OK" in out
    assert "commit-after-consume: m0" in out
    assert "reproduce: mqlab chaos replay --seed 0 --workload slow-consumer --faults none" in out
    assert "trace around commit-after-consume" in out
    assert main(["chaos", "replay", "--seed", "1", "--workload", "orderly", "--faults", "crash", "--limit", "3"]) == 0

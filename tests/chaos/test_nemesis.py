"""The fault schedule: drawn from the seed, one window of a kind at a time, inside the send phase."""

import itertools

import pytest

from mqlab.chaos.nemesis import PROFILES, plan_faults

NODES = dict(brokers=["broker-a", "broker-b"], consumers=["G-1", "G-2"], nodes=["namesrv", "broker-a", "G-1"])


@pytest.mark.spec("CHAOS-2")
def test_the_schedule_is_a_function_of_the_seed_and_windows_of_a_kind_never_overlap():
    for seed in range(200):
        windows = plan_faults(seed, "all", duration_ms=12_000, max_faults=5, **NODES)
        assert windows == plan_faults(seed, "all", duration_ms=12_000, max_faults=5, **NODES)
        assert all(500 <= w.start_ms < 12_000 and 500 <= w.duration_ms < 6000 for w in windows)
        for kind in {w.kind for w in windows}:
            same = sorted((w.start_ms, w.start_ms + w.duration_ms) for w in windows if w.kind == kind)
            assert all(end <= next_start for (_, end), (next_start, _) in itertools.pairwise(same))
    kinds = {w.kind for seed in range(200) for w in plan_faults(seed, "all", duration_ms=12_000, **NODES)}
    assert kinds == set(PROFILES["all"])


@pytest.mark.spec("CHAOS-2")
def test_targets_fit_the_kind_and_unknown_profiles_are_refused():
    for seed in range(50):
        for w in plan_faults(seed, "all", duration_ms=12_000, max_faults=5, **NODES):
            if w.kind in ("broker-crash", "power-loss"):
                assert w.target in NODES["brokers"]
            elif w.kind.startswith("consumer-"):
                assert w.target in NODES["consumers"]
            elif w.kind == "partition":
                a, b = w.target.split("|")
                assert a != b and {a, b} <= set(NODES["nodes"])
    assert plan_faults(3, "none", duration_ms=12_000, **NODES) == []
    with pytest.raises(ValueError, match="unknown fault profile"):
        plan_faults(3, "meteor", duration_ms=12_000, **NODES)


@pytest.mark.spec("CHAOS-2", "CHAOS-15")
def test_replication_kinds_target_the_pairs_and_need_one():
    pairs = [("broker-a", "broker-a-s1")]
    seen = set()
    for seed in range(60):
        for w in plan_faults(seed, "replication", duration_ms=12_000, max_faults=5, pairs=pairs, **NODES):
            seen.add(w.kind)
            expected = {"slave-crash": "broker-a-s1", "master-slave-partition": "broker-a|broker-a-s1"}
            assert w.target == expected.get(w.kind, "broker-a")
    assert seen == set(PROFILES["replication"])
    assert all(plan_faults(seed, "replication", duration_ms=12_000, **NODES) == [] for seed in range(20))
    assert not set(PROFILES["replication"]) & set(PROFILES["all"])  # "all" keeps its schedules

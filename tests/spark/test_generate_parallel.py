"""Independent brokers: one world per broker, the same bytes serially and in worker processes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from mqlab.cli import main
from mqlab.spark.generate import ScenarioError, generate_store, load_scenario, parse_scenario

FLEET = """
name = "fleet"
seed = 5
duration_s = 3
drain_s = 4
brokers = 3
independent_brokers = true
[store]
commit_log_file_size = 65536
[faults]
crashes = [{ broker = "broker-b", at_s = 2.0, kind = "power", restart_after_s = 1.0 }]
[[topics]]
name = "TopicT"
queues = 2
[[producers]]
group = "PG_T"
topic = "TopicT"
rate = 60.0
sync = 0.5
batch = 0.5
[[consumers]]
group = "CG_T"
topic = "TopicT"
failure_rate = 0.1
"""


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.spec("SPARK-15")
def test_workers_write_the_bytes_one_process_writes(tmp_path):
    scenario = parse_scenario(FLEET)
    serial = generate_store(scenario, tmp_path / "serial")
    generate_store(scenario, tmp_path / "parallel", workers=2)
    first, second = _files(tmp_path / "serial"), _files(tmp_path / "parallel")
    assert sorted(first) == sorted(second)
    assert {name.split("/")[0] for name in first} == {"broker-a", "broker-b", "broker-c", "manifest.json"}
    for name, data in first.items():
        assert data == second[name], name
    # Each world has its own producer instance, on its own address: no UNIQ_KEY is handed out twice.
    rows = serial["producers"]["PG_T"]["messages"]
    keys = Counter(m["uniq_key"] for m in rows)
    assert keys.most_common(1)[0][1] == 1
    assert {m["broker"] for m in rows if m["broker"]} == {"broker-a", "broker-b", "broker-c"}
    assert [c["broker"] for c in serial["crashes"]] == ["broker-b"]
    assert sorted(serial["worlds"]) == ["broker-a", "broker-b", "broker-c"]


@pytest.mark.spec("SPARK-15")
def test_workers_are_refused_for_brokers_that_share_clients(tmp_path, capsys):
    with pytest.raises(ScenarioError, match="share producers and consumers"):
        generate_store(load_scenario("small"), tmp_path / "out", workers=2)
    assert load_scenario("large").independent_brokers
    assert main(["gen-store", "small", "--out", str(tmp_path / "cli"), "--workers", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "independent_brokers = true" in err

"""A campaign as Spark tasks: the same verdicts as the local run, written as Parquet with a summary table."""

import pytest

from mqlab.chaos.campaign import run_local, run_spark, tasks_for


@pytest.mark.spark
@pytest.mark.spec("CHAOS-11")
def test_spark_campaign_matches_the_local_one_and_writes_parquet(tmp_path):
    tasks = tasks_for(range(4), ["orderly", "slow-consumer"], ["crash"])
    result = run_spark(tasks, master="local[2]", out=tmp_path)
    reference = run_local(tasks)

    def key(row):
        return (row["seed"], row["workload"], row["faults"], row["ok"], row["events"], row["deliveries"])

    assert sorted(map(key, result.rows)) == sorted(map(key, reference.rows))
    pq = pytest.importorskip("pyarrow.parquet")
    runs = pq.read_table(tmp_path / "runs").to_pylist()
    assert sorted(map(key, runs)) == sorted(map(key, reference.rows))
    summary = pq.read_table(tmp_path / "summary").to_pylist()
    assert sorted((r["workload"], r["runs"], r["failed"]) for r in summary) == [("orderly", 4, 0),
                                                                                ("slow-consumer", 4, 0)]  # fmt: skip

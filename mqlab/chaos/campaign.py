"""Run a campaign: many seeds of some workloads under some fault profiles, locally or as Spark tasks.

Java: none (teaching helper). Each seed is independent, so a campaign parallelises perfectly: locally across a
process pool (a tqdm progress bar counts the seeds), or as one Spark task per seed on ``local[*]`` or a cluster
master, the verdicts written as a Parquet dataset plus a summary table. A seed's row carries its reproducer command.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqlab.chaos.checker import CLASSIFIED
from mqlab.runtime.clock import wall_seconds


@dataclass(frozen=True, slots=True)
class Task:
    """One seed of one workload under one fault profile."""

    seed: int
    workload: str
    faults: str
    broken: str | None = None
    max_faults: int = 3


def parse_seeds(text: str) -> list[int]:
    """``"0..999"`` (inclusive), ``"7"`` or ``"1,5,9"`` as a list of seeds.

    Raises:
        ValueError: anything else.
    """
    try:
        if ".." in text:
            low, high = text.split("..", 1)
            return list(range(int(low), int(high) + 1))
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise ValueError(f"seeds must look like 0..999, 7 or 1,5,9, not {text!r}") from exc


def tasks_for(
    seeds: Iterable[int],
    workloads: Sequence[str],
    faults: Sequence[str],
    *,
    broken: str | None = None,
    max_faults: int = 3,
) -> list[Task]:
    """Every (seed, workload, profile) combination, seed-major."""
    return [Task(s, w, f, broken, max_faults) for s in seeds for w in workloads for f in faults]


def run_task(task: Task) -> dict[str, Any]:
    """Run one task and return its verdict row (plain data, so it crosses process and Spark boundaries)."""
    from mqlab.chaos.checker import Anomaly, Verdict
    from mqlab.chaos.workload import run_seed

    started = wall_seconds()
    try:
        _history, verdict = run_seed(
            task.seed, task.workload, task.faults, broken=task.broken, max_faults=task.max_faults
        )
    except Exception as exc:  # a run the simulation could not finish is itself a finding, with its reproducer
        verdict = Verdict(task.seed, task.workload, task.faults, task.broken)
        verdict.anomalies.append(Anomaly("run-completed", (), f"{type(exc).__name__}: {exc}"))
        verdict.stats = {
            "sends": 0,
            "acked": 0,
            "deliveries": 0,
            "commits": 0,
            "slave_commits": 0,
            "fault_count": 0,
            "events": 0,
        }
    row = verdict.to_row()
    row["broken"] = task.broken
    row["wall_s"] = round(wall_seconds() - started, 3)
    return row


@dataclass
class CampaignResult:
    """The rows of a campaign and what they add up to."""

    rows: list[dict[str, Any]]
    wall_s: float
    classified: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        for row in self.rows:
            self.classified.update(row["classified"])

    @property
    def failures(self) -> list[dict[str, Any]]:
        """Rows with a broken guarantee."""
        return [row for row in self.rows if not row["ok"]]

    def summary(self) -> str:
        """Runs, failures with their reproducers, classified behaviours, events and time."""
        events = sum(row["events"] for row in self.rows)
        lines = [
            f"{len(self.rows)} runs, {len(self.failures)} with a broken guarantee, {events} simulated events, "
            f"{self.wall_s:.1f} s"
        ]
        kinds = [f"{k}={self.classified[k]}" for k in CLASSIFIED if self.classified[k]]
        lines.append("classified (allowed by RocketMQ): " + (" ".join(kinds) if kinds else "none"))
        for row in self.failures:
            lines.append(f"FAIL seed={row['seed']} {row['workload']}/{row['faults']}: {row['anomalies'][0]}")
            lines.append(f"  reproduce: {row['reproducer']}")
        return "\n".join(lines)


def run_local(tasks: list[Task], *, jobs: int = 1, progress: bool = False) -> CampaignResult:
    """Run ``tasks`` on a pool of ``jobs`` processes (1: in this process), in order of the task list."""
    started = wall_seconds()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(tasks), unit="seed")
    rows: list[dict[str, Any]] = []
    if jobs <= 1:
        for task in tasks:
            rows.append(run_task(task))
            if bar is not None:
                bar.update()
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for row in pool.map(run_task, tasks, chunksize=1):
                rows.append(row)
                if bar is not None:
                    bar.update()
    if bar is not None:
        bar.close()
    return CampaignResult(rows, wall_seconds() - started)


def _spark_schema() -> Any:
    from pyspark.sql.types import (
        ArrayType,
        BooleanType,
        DoubleType,
        LongType,
        MapType,
        StringType,
        StructField,
        StructType,
    )

    return StructType(
        [
            StructField("seed", LongType(), False),
            StructField("workload", StringType(), False),
            StructField("faults", StringType(), False),
            StructField("broken", StringType(), True),
            StructField("ok", BooleanType(), False),
            StructField("anomalies", ArrayType(StringType()), False),
            StructField("classified", MapType(StringType(), LongType()), False),
            StructField("sends", LongType(), False),
            StructField("acked", LongType(), False),
            StructField("deliveries", LongType(), False),
            StructField("commits", LongType(), False),
            StructField("slave_commits", LongType(), False),
            StructField("fault_count", LongType(), False),
            StructField("events", LongType(), False),
            StructField("windows", ArrayType(StringType()), False),
            StructField("notes", ArrayType(StringType()), False),
            StructField("reproducer", StringType(), False),
            StructField("wall_s", DoubleType(), False),
        ]
    )


def spark_session(master: str = "local[*]") -> Any:
    """The campaign's Spark session (an existing one is reused), workers pointed at this interpreter and checkout.

    Before the JVM starts, workers are pointed at this interpreter and this checkout of ``mqlab`` (as
    ``mqlab.spark.datasources.spark_session`` does); on a cluster master the workers need ``mqlab`` installed.
    """
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    package_root = str(Path(__file__).resolve().parents[2])
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if package_root not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([package_root, *paths])
    spark = (
        SparkSession.builder.master(master)
        .appName("mqlab-chaos")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def run_spark(tasks: list[Task], *, master: str = "local[*]", out: Path | None = None) -> CampaignResult:
    """One Spark task per seed; with ``out``, the rows go to ``out/runs`` (Parquet) and ``out/summary`` (Parquet).

    The session comes from ``spark_session(master)`` (a session already started is used) and is stopped at the end.
    """
    from pyspark.sql import functions as F  # noqa: N812 (PySpark's customary alias)

    started = wall_seconds()
    spark = spark_session(master)
    try:
        rdd = spark.sparkContext.parallelize(tasks, numSlices=max(len(tasks), 1)).map(run_task)
        names = _spark_schema().fieldNames()
        rows = [{name: row.get(name) for name in names} for row in rdd.collect()]
        frame = spark.createDataFrame(rows, schema=_spark_schema())
        summary = frame.groupBy("workload", "faults").agg(
            F.count("*").alias("runs"),
            F.sum(F.when(F.col("ok"), 0).otherwise(1)).alias("failed"),
            F.sum("events").alias("events"),
            F.round(F.sum("wall_s"), 1).alias("task_seconds"),
        )
        if out is not None:
            frame.write.mode("overwrite").parquet(str(out / "runs"))
            summary.write.mode("overwrite").parquet(str(out / "summary"))
        summary.orderBy("workload", "faults").show(truncate=False)
    finally:
        spark.stop()
    return CampaignResult(rows, wall_seconds() - started)


def write_local(result: CampaignResult, out: Path) -> None:
    """``out/runs.jsonl`` (one verdict row a line) and ``out/summary.txt``."""
    out.mkdir(parents=True, exist_ok=True)
    with (out / "runs.jsonl").open("w") as file:
        for row in result.rows:
            file.write(json.dumps(row, sort_keys=True) + "\n")
    (out / "summary.txt").write_text(result.summary() + "\n")

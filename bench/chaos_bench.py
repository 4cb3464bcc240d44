"""``make bench`` (chaos): simulated events per second and seeds per minute, on one process and on Spark ``local[2]``.

Java: none (teaching helper). Run ``python -m bench.chaos_bench`` (``--quick`` for a smoke run). The standard
workload is ``clustering`` under the ``all`` fault profile: two brokers, three consumer instances, every kind of
fault. The same seeds run first in this process, one after the other, then as Spark tasks on ``local[2]``, one task
per seed as ``mqlab chaos run --spark`` runs them (the session is started first and timed on its own line, and the
campaign's Parquet and summary tables are left out, so the ratio compares running the seeds, not starting a JVM);
the ratios of the two figures, measured in the same run, are what the second core buys once Spark's per-task
overhead is paid (target: at least 1.7x). Last, one seed runs under cProfile and the report says where the
simulation's time goes: own time grouped by package (time in Python's standard library and built-ins is charged to
the mqlab package that called it), then the functions with the most cumulative time.

Every figure is wall-clock time: on a machine running other work it is noisy, the ratio most of all.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import summary
from mqlab.chaos.campaign import CampaignResult, Task, run_local, run_task, spark_session, tasks_for
from mqlab.chaos.workload import run_seed

WORKLOAD, FAULTS = "clustering", "all"
SPARK_MASTER = "local[2]"
TARGET_RATIO = 1.7
PROFILE_SEED = 3
_PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "mqlab"

# (cProfile's key: file, line, function) -> stats tuple
FunctionKey = tuple[str, int, str]


def package_of(filename: str) -> str | None:
    """``mqlab.store.ha`` for a module of mqlab (its package, dotted), ``None`` for anything else."""
    try:
        relative = Path(filename).resolve().relative_to(_PACKAGE_ROOT)
    except ValueError:
        return None
    parts = relative.parts[:-1]
    if relative.parts[0] == "runtime":
        # The runtime's modules are the scheduler, the simulated network, the disk...: one line each.
        parts = ("runtime", relative.stem)
    return ".".join(("mqlab", *parts))


def run_on_spark(spark: Any, tasks: list[Task]) -> CampaignResult:
    """One Spark task per seed (``mqlab chaos run --spark``'s job without its tables); the rows in seed order."""
    started = time.perf_counter()
    rows = spark.sparkContext.parallelize(tasks, numSlices=len(tasks)).map(run_task).collect()
    return CampaignResult(rows, time.perf_counter() - started)


def module_of(filename: str) -> str:
    """``commit_log`` for mqlab/store/commit_log.py."""
    return Path(filename).stem


def own_time_by_package(stats: dict[FunctionKey, tuple], *, depth: int = 6) -> dict[str, float]:
    """Own (exclusive) time per mqlab package; a non-mqlab function's time goes to its mqlab callers.

    A standard-library or built-in function's own time is split between its callers in proportion to the time
    each call site spent in it (cProfile records that per caller), following non-mqlab callers up to ``depth``
    levels; what is left is charged to ``python``.
    """
    totals: dict[str, float] = defaultdict(float)

    def charge(key: FunctionKey, seconds: float, level: int) -> None:
        package = package_of(key[0])
        if package is not None:
            totals[package] += seconds
            return
        callers = stats[key][4] if key in stats else {}
        spent = sum(value[3] for value in callers.values())
        if level >= depth or not callers or spent <= 0:
            totals["python"] += seconds
            return
        for caller, value in callers.items():
            charge(caller, seconds * value[3] / spent, level + 1)

    for key, (_cc, _nc, tt, _ct, _callers) in stats.items():
        charge(key, tt, 0)
    return dict(totals)


def profile_report(seed: int, top: int = 12, per_package_of: int = 6, per_package: int = 3) -> list[str]:
    """Run one seed of the standard workload under cProfile; the report lines."""
    profile = cProfile.Profile()
    profile.enable()
    _history, verdict = run_seed(seed, WORKLOAD, FAULTS)
    profile.disable()
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    total = sum(row[2] for row in stats.values()) or 1.0
    events = verdict.stats["events"]
    lines = [
        f"where the time goes: seed {seed} of {WORKLOAD}/{FAULTS} under cProfile, {events} simulated events, "
        f"{total:.2f} s profiled (cProfile slows Python unevenly: read the shares)",
        "  own time by package (standard library and built-ins charged to their mqlab callers):",
    ]
    by_package = sorted(own_time_by_package(stats).items(), key=lambda item: -item[1])
    for package, seconds in by_package[:top]:
        lines.append(f"  {seconds:7.2f} s {100 * seconds / total:5.1f}%  {package}")
    rest = sum(seconds for _package, seconds in by_package[top:])
    if rest:
        lines.append(f"  {rest:7.2f} s {100 * rest / total:5.1f}%  ({len(by_package) - top} more packages)")
    lines.append("  per package, its functions with the most cumulative time (callees included):")
    by_function: dict[str, list[tuple[float, int, str]]] = defaultdict(list)
    for (filename, line, function), (_cc, nc, _tt, ct, _callers) in stats.items():
        package = package_of(filename)
        if package is not None and not function.startswith("<"):
            by_function[package].append((ct, nc, f"{module_of(filename)}.{function} (line {line})"))
    for package, _seconds in by_package[:per_package_of]:
        lines.append(f"  {package}:")
        for ct, nc, where in sorted(by_function.get(package, []), reverse=True)[:per_package]:
            lines.append(f"    {ct:7.2f} s {100 * ct / total:5.1f}% {nc:>9} calls  {where}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print one line per mode, the ratios, and the profile."""
    parser = argparse.ArgumentParser(prog="python -m bench.chaos_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="4 seeds instead of 16")
    parser.add_argument("--smoke", action="store_true", help="2 seeds: proves every mode runs; no target judged")
    parser.add_argument("--no-spark", action="store_true", help="only the one-process figure")
    parser.add_argument("--no-profile", action="store_true", help="skip the cProfile report")
    args = parser.parse_args(argv)
    tasks = tasks_for(range(2 if args.smoke else 4 if args.quick else 16), [WORKLOAD], [FAULTS])
    seeds_per_min: dict[str, float] = {}
    events_per_s: dict[str, float] = {}

    def measure(label: str, run: Callable[[], CampaignResult]) -> None:
        started = time.perf_counter()
        result = run()
        elapsed = time.perf_counter() - started
        events = sum(row["events"] for row in result.rows)
        seeds_per_min[label] = len(tasks) / elapsed * 60
        events_per_s[label] = events / elapsed
        print(
            f"chaos {WORKLOAD}/{FAULTS} {label:<15} {len(tasks)} seeds in {elapsed:6.1f} s: "
            f"{events_per_s[label]:>9,.0f} simulated events/s, {seeds_per_min[label]:5.1f} seeds/min, "
            f"{len(result.failures)} failed",
            flush=True,
        )

    measure("one process", lambda: run_local(tasks))
    if not args.no_spark:
        started = time.perf_counter()
        session = spark_session(SPARK_MASTER)
        print(f"Spark {SPARK_MASTER} session started in {time.perf_counter() - started:.1f} s (not counted below)")
        try:
            measure(f"Spark {SPARK_MASTER}", lambda: run_on_spark(session, tasks))
        finally:
            session.stop()
        spark, one = f"Spark {SPARK_MASTER}", "one process"
        ratio = seeds_per_min[spark] / seeds_per_min[one]
        verdict = "met" if ratio >= TARGET_RATIO else "not met"
        if args.smoke:
            verdict = f"not judged on {len(tasks)} seeds"
        print(
            f"{spark} / {one}: {ratio:.2f}x seeds/min, {events_per_s[spark] / events_per_s[one]:.2f}x simulated "
            f"events/s (target >= {TARGET_RATIO}x: {verdict}; wall-clock figures, noisy on a busy machine)"
        )
    if not args.no_profile:
        for line in profile_report(PROFILE_SEED):
            print(line)
    summary.record(summary_rows(seeds_per_min, judged=not args.smoke))
    return 0


def summary_rows(seeds_per_min: dict[str, float], *, judged: bool) -> list[summary.SummaryRow]:
    """Seeds per minute in one process, and on Spark with its ratio to one process, for ``make bench``'s summary."""
    one = seeds_per_min["one process"]
    rows = [summary.SummaryRow("chaos", f"{WORKLOAD}/{FAULTS}, one process", one, "seeds/min")]
    for label, figure in seeds_per_min.items():
        if label != "one process":
            ratio = figure / one
            met = ratio >= TARGET_RATIO if judged else None
            target = f">= {TARGET_RATIO}x"
            rows.append(
                summary.SummaryRow(
                    "chaos", f"{WORKLOAD}/{FAULTS}, {label}", figure, "seeds/min", ratio, "one process", target, met
                )
            )
    return rows


if __name__ == "__main__":
    raise SystemExit(main())

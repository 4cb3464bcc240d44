"""``make bench``: how fast ``mqlab gen-store`` writes a store, against the store's own put rate in the same run.

Java: none (teaching helper). Run ``python -m bench.generate_bench`` (the ``large`` scenario: four independent
brokers, about 1 GiB of CommitLog) or ``--quick`` (the same scenario cut to 20 virtual seconds). The generator runs
the whole message life cycle in the simulator (producers, name server, brokers with their stores, push consumers),
so it is much slower than a bare ``put_message`` loop; the ratio says by how much. The put figure is
``bench.cases.put`` (``bench/store_bench.py``'s case 1: one thread, a started store) over records of the generated
messages' mean body size, so both sides write records of about the same length. Figures are wall-clock on the
machine at hand; with other processes running they are pessimistic (the table shows the CPU share).

Then ``mqlab analyze`` runs its pipeline over the generated stores (``--master``, ``local[2]`` by default), so the
last lines give the end-to-end figure the Spark track asks for: generate, then analyse, seconds and MB/s of CommitLog.
"""

from __future__ import annotations

import argparse
import dataclasses
import mmap
import os
import struct
import sys
import tempfile
import time
from pathlib import Path

from bench import cases, summary, workload
from bench.cases import Measurement, Stopwatch
from bench.store_bench import Row, format_table, progress
from mqlab.common.message.message_record_layout import BLANK_MAGIC_CODE
from mqlab.runtime import ThreadedRuntime
from mqlab.spark.generate import generate_store, load_scenario
from mqlab.spark.segment_reader import find_commitlog_segments

MIB = 1024 * 1024
QUICK_DURATION_S = 20.0
SMOKE_DURATION_S = 2.0
PUT_RATIO_TARGET = 0.3  # gen-store's CommitLog MB/s over the store's own put rate (docs/performance.md)
PIPELINE_TARGET_MB = 40.0  # mqlab analyze, MB/s of CommitLog read on local[2]
_HEAD = struct.Struct(">ii")  # TOTALSIZE, MAGICCODE


def commit_log_end(store: Path) -> int:
    """Where a store's CommitLog ends: the last segment's start plus its written bytes (hopping by TOTALSIZE)."""
    segments = find_commitlog_segments(store)
    if not segments:
        return 0
    last = segments[-1]
    with open(last.path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        pos = 0
        while pos + _HEAD.size <= len(buf):
            size, magic = _HEAD.unpack_from(buf, pos)
            if size <= 0:
                break
            pos += size
            if magic == BLANK_MAGIC_CODE:
                break
    return last.start_offset + pos


def generate(out: Path, *, duration_s: float | None, workers: int) -> tuple[Measurement, float, str]:
    """Generate the scenario; the measurement (messages sent, CommitLog bytes), the mean body size, its name.

    ``duration_s`` cuts the large scenario to that many virtual seconds (``None``: the whole of it).
    """
    scenario = load_scenario("large")
    if duration_s is not None:
        name = f"large-{duration_s:g}s"
        scenario = dataclasses.replace(scenario, name=name, duration_s=duration_s, drain_s=min(5.0, duration_s))
    progress(f"generating {scenario.name} ({scenario.brokers} brokers) with {workers} worker(s)")
    with Stopwatch() as watch:
        manifest = generate_store(scenario, out, progress=False, workers=workers)
    messages = [m for p in manifest["producers"].values() for m in p["messages"]]
    written = sum(commit_log_end(out / broker / "store") for broker in manifest["brokers"])
    mean_body = sum(m["body_size"] for m in messages) / len(messages)
    return Measurement.of(len(messages), written, watch), mean_body, scenario.name


def analyze(gen: Path, out: Path, master: str) -> tuple[Measurement, float]:
    """``mqlab analyze`` over the generated directory: the pipeline's measurement and the session start seconds.

    The measurement counts the CommitLog bytes the pipeline read and the seconds from the first table to the last
    (the Spark session's start is timed apart: it does not depend on the store).
    """
    from mqlab.spark.pipeline import analysis_session, find_stores, run_pipeline

    inputs = find_stores([gen])
    written = sum(commit_log_end(b.store) for b in inputs.brokers)
    progress(f"mqlab analyze on {master}: {len(inputs.brokers)} store(s), {written / MIB:.0f} MiB of CommitLog")
    with Stopwatch() as start:
        spark = analysis_session(master, out / ".spark-tmp", app_name="mqlab-genbench")
    try:
        with Stopwatch() as watch:
            result = run_pipeline(spark, inputs, out)
        tables = len(result.rows)
    finally:
        spark.stop()
    return Measurement.of(tables, written, watch), start.seconds


def store_put(work: Path, body_size: int, count: int) -> Measurement:
    """``bench.cases.put``: ``count`` records of ``body_size`` bytes into a started store from one thread."""
    runtime = ThreadedRuntime.create("bench")
    runtime.trace.enabled = False
    try:
        pool = workload.build(body_size, runtime.now_ms())
        progress(f"put {count:,} records of a {body_size} B body through DefaultMessageStore")
        measurement, _end = cases.put(runtime, work / "put", pool, count, 64 * MIB)
        return measurement
    finally:
        runtime.scheduler.close()
        cases.remove_tree(work / "put")


def main(argv: list[str] | None = None) -> int:
    """Generate, measure the store's put, print the table (exit status 0)."""
    parser = argparse.ArgumentParser(prog="python -m bench.generate_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"the large scenario cut to {QUICK_DURATION_S:g} s")
    parser.add_argument(
        "--smoke", action="store_true", help=f"cut to {SMOKE_DURATION_S:g} s, one worker, no pipeline: proves it runs"
    )
    parser.add_argument(
        "--workers", type=int, default=min(4, os.cpu_count() or 1), help="generator processes (default: cores, max 4)"
    )
    parser.add_argument("--master", default="local[2]", help="Spark master for the pipeline step (local[2])")
    parser.add_argument("--no-pipeline", action="store_true", help="generate only, skip mqlab analyze")
    parser.add_argument("--dir", help="parent directory for the temporary stores (default: the system temp dir)")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    duration = SMOKE_DURATION_S if args.smoke else QUICK_DURATION_S if args.quick else None
    workers = 1 if args.smoke else args.workers
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mqlab-genbench-", dir=args.dir) as tmp:
        work = Path(tmp)
        generated, mean_body, name = generate(work / "gen", duration_s=duration, workers=workers)
        # The pipeline has its own tests (tests/spark/test_pipeline.py): a smoke run skips its Spark session.
        skip = args.no_pipeline or args.smoke
        analyzed = None if skip else analyze(work / "gen", work / "analysis", args.master)
        cases.remove_tree(work / "gen")
        put = store_put(work, round(mean_body), 2_000 if args.smoke else 20_000 if args.quick else 100_000)
    ratio = generated.mb_per_second / put.mb_per_second if put.mb_per_second else 0.0
    rows = [
        Row(f"gen-store {name}, {workers} worker(s)", generated, ratio, "(CommitLog MB/s)"),
        Row(f"put_message {round(mean_body)} B body", put, 1.0, "(same run)"),
    ]
    if analyzed is not None:
        pipeline, session_s = analyzed
        rows.append(
            Row(f"mqlab analyze ({args.master}), {pipeline.count} tables", pipeline, None, "(CommitLog MB/s read)")
        )
    print()
    for line in format_table(rows):
        print(line)
    print(
        f"note: 'vs base' is against the store's own put rate here; generation seconds {generated.seconds:.1f}, "
        f"CommitLog written {generated.nbytes / 1e6:.1f} MB ({generated.mb_per_second:.2f} MB/s)"
    )
    if analyzed is not None:
        total = generated.seconds + pipeline.seconds
        print(
            f"end to end (generate, then the pipeline): {total:.1f} s, {generated.nbytes / 1e6 / total:.2f} MB/s of "
            f"CommitLog; the pipeline alone {pipeline.seconds:.1f} s ({pipeline.mb_per_second:.2f} MB/s), "
            f"its Spark session started in {session_s:.1f} s (not counted)"
        )
    judged = duration is None  # a cut scenario is dominated by start-up costs: only the whole one is judged
    headline = [
        summary.SummaryRow(
            "generate",
            f"gen-store {name}, {workers} worker(s)",
            generated.mb_per_second,
            "MB/s",
            ratio,
            "store put_message",
            f">= {PUT_RATIO_TARGET}x",
            ratio >= PUT_RATIO_TARGET if judged else None,
        ),
        summary.SummaryRow("generate", f"put_message {round(mean_body)} B body", put.mb_per_second, "MB/s", 1.0),
    ]
    if analyzed is not None:
        headline.append(
            summary.SummaryRow(
                "generate",
                f"mqlab analyze ({args.master})",
                pipeline.mb_per_second,
                "MB/s",
                None,
                "",
                f">= {PIPELINE_TARGET_MB:g} MB/s",
                pipeline.mb_per_second >= PIPELINE_TARGET_MB if judged and args.master == "local[2]" else None,
            )
        )
    summary.record(headline)
    load = os.getloadavg()
    print(
        f"load average at end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; total {time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

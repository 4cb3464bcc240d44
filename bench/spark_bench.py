"""Spark bench: CommitLog decode through ``mqlab_commitlog`` against Spark's own ``binaryFile``, and local[2] vs [1].

Java: none (teaching helper). Run ``python -m bench.spark_bench`` (``--quick`` for a smoke run). It writes a sample
store (``mqlab.spark.sample_store``; full run: 340,000 messages, about 260 MiB in 64 MiB segments read as 16 MiB
ranges; ``--quick``/``--smoke``: 4 MiB segments, one range each) in a temporary directory, then for ``local[1]`` and
``local[2]`` (each in its own process, since a JVM's master is fixed at start) times two queries over the same
CommitLog files: ``binaryFile`` reading every byte (``sum(length(content))``), the least Spark can do with them, and
``mqlab_commitlog`` decoding every record into rows (``count(*)``, ``sum(length(body))``; Python data sources build
every column). Both are reported in MB/s of segment bytes, best of a few runs after a warm-up, and as ratios:

- decode ratio = mqlab_commitlog MB/s / binaryFile MB/s under local[2] (target >= 1.0);
- scaling = mqlab_commitlog MB/s under local[2] / under local[1] (target >= 1.7; needs two idle cores).

Figures are wall-clock times on the machine at hand: on a loaded machine the ratios say more than the MB/s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import summary as bench_summary

MIB = 1024 * 1024
DECODE_TARGET = 1.0
SCALING_TARGET = 1.7
# The full run: at least 256 MiB of CommitLog in 64 MiB segments, each read as four ranges of 16 MiB, so local[2]
# can only scale by splitting inside segments. Each Python data source task costs a Python worker's start-up
# (seconds on a loaded machine), so the small runs keep one range per 4 MiB segment.
SEGMENT_BYTES = 64 * MIB
RANGE_BYTES = 16 * MIB
SMALL_SEGMENT_BYTES = 4 * MIB
FULL_MESSAGES = 340_000  # about 800 B per record in the sample store: 340,000 records fill 4 segments (256 MiB)


def _best(action, runs: int) -> float:
    action()  # warm-up: Python workers start, files enter the page cache
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(store: str, master: str, runs: int, range_bytes: int = RANGE_BYTES) -> dict:
    """Seconds for each query on ``master`` (run in a child process)."""
    from mqlab.spark.datasources import register, spark_session

    with tempfile.TemporaryDirectory(prefix="spark-bench-") as tmp:
        spark = spark_session("mqlab-spark-bench", tmp, master=master)
        register(spark)
        commitlog = str(Path(store) / "commitlog")
        raw = spark.read.format("binaryFile").load(commitlog)
        decoded = spark.read.format("mqlab_commitlog").option("maxPartitionBytes", str(range_bytes)).load(store)
        result = {
            "binary_s": _best(lambda: raw.selectExpr("sum(length(content))").collect(), runs),
            "decode_s": _best(lambda: decoded.selectExpr("count(*)", "sum(length(body))").collect(), runs),
            "rows": decoded.count(),
            "partitions": decoded.rdd.getNumPartitions(),
        }
        spark.stop()
    return result


def _child(store: str, master: str, runs: int, range_bytes: int) -> dict:
    env = {**os.environ, "PYSPARK_PYTHON": os.environ.get("PYSPARK_PYTHON", sys.executable)}
    env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    command = [sys.executable, "-m", "bench.spark_bench", "--child", master, "--store", store]
    command += ["--runs", str(runs), "--range-bytes", str(range_bytes)]
    out = subprocess.run(
        command,
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """Generate the store, measure both masters, print MB/s and the two ratios."""
    parser = argparse.ArgumentParser(prog="python -m bench.spark_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smaller store and fewer runs")
    parser.add_argument("--smoke", action="store_true", help="a tiny store, one run: proves it runs; no target judged")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=3, help=argparse.SUPPRESS)
    parser.add_argument("--range-bytes", type=int, default=RANGE_BYTES, help=argparse.SUPPRESS)
    parser.add_argument("--messages", type=int, help="messages in the sample store (340,000; --quick 4,000)")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.store, args.child, args.runs, args.range_bytes)))
        return 0
    from mqlab.spark.sample_store import generate_sample_store

    messages, runs = (400, 1) if args.smoke else (4_000, 2) if args.quick else (FULL_MESSAGES, 3)
    messages = args.messages or messages
    full = not (args.smoke or args.quick)
    segment_size, range_bytes = (SEGMENT_BYTES, RANGE_BYTES) if full else (SMALL_SEGMENT_BYTES, SMALL_SEGMENT_BYTES)
    with tempfile.TemporaryDirectory(prefix="spark-bench-store-") as tmp:
        store = str(Path(tmp) / "store")
        summary = generate_sample_store(store, messages=messages, commit_log_file_size=segment_size)
        segment_bytes = sum(s.file_size for s in summary.segments)
        mb = segment_bytes / MIB
        print(f"store: {summary.messages} messages, {len(summary.segments)} segments, {mb:.1f} MiB of segment files")
        results = {master: _child(store, master, runs, range_bytes) for master in ("local[1]", "local[2]")}
    for master, r in results.items():
        print(
            f"{master}: binaryFile {mb / r['binary_s']:8.1f} MB/s   mqlab_commitlog {mb / r['decode_s']:8.1f} MB/s"
            f"   ({r['rows']} rows, {r['partitions']} partitions)"
        )
    two, one = results["local[2]"], results["local[1]"]
    decode_ratio = two["binary_s"] / two["decode_s"]
    scaling = one["decode_s"] / two["decode_s"]
    print(f"decode ratio mqlab_commitlog / binaryFile (local[2]): {decode_ratio:.2f}x (target >= {DECODE_TARGET}x)")
    print(f"scaling local[2] / local[1] (mqlab_commitlog): {scaling:.2f}x (target >= {SCALING_TARGET}x)")
    judged = not args.smoke
    bench_summary.record(
        [
            bench_summary.SummaryRow("spark", "binaryFile, local[2]", mb / two["binary_s"], "MB/s", 1.0, "binaryFile"),
            bench_summary.SummaryRow(
                "spark",
                "mqlab_commitlog decode, local[2]",
                mb / two["decode_s"],
                "MB/s",
                decode_ratio,
                "binaryFile",
                f">= {DECODE_TARGET}x",
                decode_ratio >= DECODE_TARGET if judged else None,
            ),
            bench_summary.SummaryRow(
                "spark", "mqlab_commitlog decode, local[1]", mb / one["decode_s"], "MB/s", 1 / scaling, "local[2]"
            ),
            bench_summary.SummaryRow(
                "spark",
                "mqlab_commitlog scaling local[2]/local[1]",
                None,
                "",
                scaling,
                "local[1]",
                f">= {SCALING_TARGET}x",
                scaling >= SCALING_TARGET if judged else None,
            ),
        ]
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

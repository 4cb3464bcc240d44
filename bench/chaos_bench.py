"""``make bench`` (chaos): simulated events per second and seeds per minute, on one process and on Spark ``local[2]``.

Java: none (teaching helper). Run ``python -m bench.chaos_bench`` (``--quick`` for a smoke run). The standard
workload is ``clustering`` under the ``all`` fault profile: two brokers, three consumer instances, every kind of
fault. The same seeds run first in this process, one after the other, then as Spark tasks on ``local[2]``; the
ratio of the two seeds-per-minute figures is what the second core (and Spark's overhead) buys.
"""

from __future__ import annotations

import argparse
import time

from mqlab.chaos.campaign import run_local, run_spark, tasks_for

WORKLOAD, FAULTS = "clustering", "all"


def main(argv: list[str] | None = None) -> int:
    """Print one line per mode and the ratio."""
    parser = argparse.ArgumentParser(prog="python -m bench.chaos_bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="4 seeds instead of 16")
    parser.add_argument("--no-spark", action="store_true", help="only the one-process figure")
    args = parser.parse_args(argv)
    tasks = tasks_for(range(4 if args.quick else 16), [WORKLOAD], [FAULTS])
    figures = {}
    modes = [("one process", lambda: run_local(tasks))]
    if not args.no_spark:
        modes.append(("Spark local[2]", lambda: run_spark(tasks, master="local[2]")))
    for label, run in modes:
        started = time.perf_counter()
        result = run()
        elapsed = time.perf_counter() - started
        events = sum(row["events"] for row in result.rows)
        figures[label] = len(tasks) / elapsed * 60
        print(
            f"chaos {WORKLOAD}/{FAULTS} {label:<15} {len(tasks)} seeds in {elapsed:6.1f} s: "
            f"{events / elapsed:>9,.0f} simulated events/s, {figures[label]:5.1f} seeds/min, "
            f"{len(result.failures)} failed"
        )
    if len(figures) == 2:
        print(f"Spark local[2] / one process: {figures['Spark local[2]'] / figures['one process']:.2f}x seeds/min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

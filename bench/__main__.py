"""``make bench``: every benchmark module in turn, then one summary table of all their headline cases.

Java: none (teaching helper). ``python -m bench [--quick | --smoke] [--only NAME,...]`` runs each module as its own
process (``python -m bench.<module>``, passing the size flag on), so one that crashes cannot take the others with it,
and each starts with a fresh heap and its own JVMs. The modules append their headline rows to a shared file
(``bench.summary``); the table at the end lists them, plus a ``FAILED`` row for every module that exited non-zero.
The exit status is 1 when a module failed and 0 otherwise: a target that is not met is a figure to read, not an error.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import summary

# In the order ``make bench`` runs them: the store, the clients against real servers, the transport under a stalled
# reader, chaos campaigns, then the Spark cases.
MODULES = (
    "store_bench",
    "client_bench",
    "slow_reader_bench",
    "chaos_bench",
    "spark_bench",
    "streaming_bench",
    "generate_bench",
)


def run_module(module: str, size_flags: list[str], summary_file: Path) -> tuple[int, float]:
    """Run ``python -m bench.<module>`` with the size flags; its exit status and wall seconds."""
    env = {**os.environ, summary.SUMMARY_ENV: str(summary_file)}
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    started = time.perf_counter()
    print(f"== bench.{module} {' '.join(size_flags)}".rstrip(), flush=True)
    status = subprocess.run([sys.executable, "-m", f"bench.{module}", *size_flags], env=env, check=False).returncode
    return status, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    """Run the modules, print the summary table; exit 1 if any module failed."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="each module's short run")
    size.add_argument("--smoke", action="store_true", help="each module at tiny sizes: proves it runs; no target")
    parser.add_argument("--only", help=f"comma-separated subset of {','.join(MODULES)}")
    args = parser.parse_args(argv)
    modules = list(MODULES)
    if args.only:
        modules = [m.strip() for m in args.only.split(",") if m.strip()]
        unknown = sorted(set(modules) - set(MODULES))
        if unknown:
            parser.error(f"unknown module(s) {unknown}; choose from {list(MODULES)}")
    size_flags = ["--smoke"] if args.smoke else ["--quick"] if args.quick else []
    failed: list[summary.SummaryRow] = []
    with tempfile.TemporaryDirectory(prefix="mqlab-bench-summary-") as tmp:
        summary_file = Path(tmp) / "summary.jsonl"
        for module in modules:
            status, seconds = run_module(module, size_flags, summary_file)
            if status != 0:
                case = f"bench.{module} exited {status} after {seconds:.0f} s"
                failed.append(
                    summary.SummaryRow(module.removesuffix("_bench"), case, None, "", target="runs", met=False)
                )
        rows = summary.load(summary_file) + failed
    print()
    print(f"summary of make bench ({'smoke' if args.smoke else 'quick' if args.quick else 'full'} run):")
    for line in summary.format_summary(rows):
        print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Every benchmark module at tiny sizes: a change that breaks one fails the test suite, so ``make bench`` keeps running.

The smoke run judges no target (the figures of a few hundred messages say nothing); it proves that each module runs
to its end, records its headline rows, and that ``python -m bench`` ends with the summary table.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import MODULES

pytestmark = [pytest.mark.spark, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]


def test_every_benchmark_module_runs_at_smoke_size_and_the_summary_lists_it():
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    env.pop("MQLAB_BENCH_SUMMARY", None)
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke"], cwd=REPO, env=env, capture_output=True, text=True, timeout=900
    )
    out = done.stdout
    assert done.returncode == 0, f"python -m bench --smoke failed:\n{out[-4000:]}\n{done.stderr[-4000:]}"
    table = out[out.index("summary of make bench (smoke run):") :]
    for module in MODULES:
        assert f"== bench.{module} --smoke" in out
        assert f"\n{module.removesuffix('_bench'):<10} " in table, f"{module} recorded no summary row"
    assert "FAILED" not in table and "NOT MET" not in table
    assert "targets met: 0 of 0 judged" in table  # nothing is judged at smoke size

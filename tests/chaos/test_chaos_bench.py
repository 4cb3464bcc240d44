"""The chaos benchmark's profile summary: which package a function belongs to, and who pays for the standard library."""

import json
from pathlib import Path

import pytest

from bench.chaos_bench import own_time_by_package, package_of

ROOT = Path(__file__).resolve().parents[2] / "mqlab"
STORE = str(ROOT / "store" / "commit_log.py")
HA = str(ROOT / "store" / "ha" / "ha_connection.py")
SCHEDULER = str(ROOT / "runtime" / "simulated.py")
JSON = json.__file__


def test_package_of_names_mqlab_packages_and_each_runtime_module():
    assert package_of(STORE) == "mqlab.store"
    assert package_of(HA) == "mqlab.store.ha"
    assert package_of(SCHEDULER) == "mqlab.runtime.simulated"
    assert package_of(JSON) is None
    assert package_of("~") is None


def test_standard_library_time_is_charged_to_its_mqlab_callers_in_proportion():
    put, reput, dumps, encoder = (STORE, 1, "put"), (HA, 2, "transfer"), (JSON, 3, "dumps"), ("~", 0, "<encode>")
    # cProfile's shape: key -> (primitive calls, calls, own s, cumulative s, {caller: (pc, nc, own s, cum s)})
    stats = {
        put: (1, 1, 1.0, 3.0, {}),
        reput: (1, 1, 0.5, 1.5, {}),
        dumps: (2, 2, 1.0, 3.0, {put: (1, 1, 0.5, 2.0), reput: (1, 1, 0.5, 1.0)}),
        encoder: (2, 2, 2.0, 2.0, {dumps: (2, 2, 2.0, 2.0)}),  # a built-in called only by json
    }
    totals = own_time_by_package(stats)
    # dumps + its built-in: 3 s, split 2:1 by the cumulative time each caller spent in dumps
    assert totals == pytest.approx({"mqlab.store": 1.0 + 2.0, "mqlab.store.ha": 0.5 + 1.0})
    assert sum(totals.values()) == pytest.approx(sum(row[2] for row in stats.values()))
    orphan = {(JSON, 9, "loads"): (1, 1, 0.25, 0.25, {})}
    assert own_time_by_package(orphan) == {"python": 0.25}

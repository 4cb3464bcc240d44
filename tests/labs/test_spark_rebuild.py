"""The spark/09 checkers: the reference answers pass, plausible wrong answers fail with a line saying why."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from mqlab.labs.spark import broker_store
from mqlab.labs.spark import rebuild as rb
from mqlab.spark.generate import generate_store, load_scenario
from mqlab.spark.generate_faults import read_units


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "faults"
    generate_store(load_scenario("faults"), out)
    return out


def test_the_references_pass(root, capsys):
    assert rb.check_rebuilt_units(rb.rebuilt_units(root), root)
    assert rb.check_undispatched(rb.undispatched(root), root)
    assert rb.check_queue_gaps(rb.queue_gaps(root), root)
    assert capsys.readouterr().out.count("✓") == 3


def test_the_references_agree_with_the_files(root):
    units = read_units(broker_store(root, "broker-a"))
    rebuilt = rb.rebuilt_units(root)
    missing = [u for u in rebuilt if (u["topic"], u["queue_id"], u["queue_offset"]) not in units]
    assert [u["commit_log_offset"] for u in missing] == [r["physical_offset"] for r in rb.undispatched(root)]
    gaps = rb.queue_gaps(root)
    assert sum(g["missing"] for g in gaps) == len(missing) > 0


def test_rebuilding_only_the_producers_topic_fails(root, capsys):
    answer = [u for u in rb.rebuilt_units(root) if u["topic"] == "TopicOrders"]
    assert not rb.check_rebuilt_units(answer, root)
    assert "✗ rebuilt ConsumeQueue units" in capsys.readouterr().out


def test_counting_rows_instead_of_max_offsets_fails(root, capsys):
    units = Counter((t, q) for (t, q, _) in read_units(broker_store(root, "broker-a")))
    records = Counter((u["topic"], u["queue_id"]) for u in rb.rebuilt_units(root))
    answer = [
        {"topic": t, "queue_id": q, "cq_max_offset": units[(t, q)], "cl_max_offset": n, "missing": n - units[(t, q)]}
        for (t, q), n in records.items()
    ]
    assert not rb.check_queue_gaps(answer, root)
    assert "✗ queue gaps" in capsys.readouterr().out


def test_taking_the_records_past_the_last_unit_fails(root, capsys):
    last = max(read_units(broker_store(root, "broker-a")).values())
    answer = [
        {**{k: u[k] for k in ("topic", "queue_id", "queue_offset")}, "physical_offset": u["commit_log_offset"]}
        for u in rb.rebuilt_units(root)
        if u["commit_log_offset"] > last
    ]
    keys = {r["physical_offset"]: r["uniq_key"] for r in rb.undispatched(root)}
    for row in answer:
        row["uniq_key"] = keys.get(row["physical_offset"])
    assert not rb.check_undispatched(answer, root)
    assert "✗ undispatched records" in capsys.readouterr().out

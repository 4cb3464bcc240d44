"""The scenario generator's store faults: crashes with abnormal recovery, and expiry by the cleaning services."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mqlab.cluster import DEFAULT_STORE_SETTINGS
from mqlab.spark.generate import MANIFEST, ScenarioError, generate_store, load_scenario, parse_scenario
from mqlab.spark.generate_faults import read_commit_log, read_units, undispatched_and_dangling
from mqlab.spark.segment_reader import find_commitlog_segments
from mqlab.store.store_verifier import verify_store

TINY = """
name = "tiny"
seed = 3
duration_s = 2
drain_s = 5
brokers = 1
[store]
commit_log_file_size = 65536
[[topics]]
name = "TopicT"
[[producers]]
group = "PG_T"
topic = "TopicT"
rate = 20.0
"""


@pytest.fixture(scope="module")
def faults(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("gen") / "faults"
    generate_store(load_scenario("faults"), out)
    return out, json.loads((out / MANIFEST).read_text())


def _crash(manifest: dict, broker: str, kind: str) -> dict:
    return next(c for c in manifest["crashes"] if c["broker"] == broker and c["kind"] == kind)


def _acked(manifest: dict) -> dict[str, dict]:
    return {m["uniq_key"]: m for p in manifest["producers"].values() for m in p["messages"] if m["status"] == "SEND_OK"}


@pytest.mark.spec("SPARK-9")
def test_each_crash_is_accounted_for_and_a_power_loss_loses_acknowledged_messages(faults):
    out, manifest = faults
    assert [(c["broker"], c["kind"]) for c in manifest["crashes"]] == [
        ("broker-a", "process"),
        ("broker-b", "power"),
        ("broker-a", "power"),
    ]
    process = _crash(manifest, "broker-a", "process")
    assert process["erased"] == {"bytes": 0, "records": []}  # the page cache survives a process crash
    final = _crash(manifest, "broker-a", "power")
    erased = final["erased"]["records"]
    assert erased and final["erased"]["bytes"] == sum(r["size"] for r in erased)
    # What a power loss erases is what was written after the last flush.
    assert all(r["offset"] >= final["flushed_where"] for r in erased)
    assert final["commit_log_end_before"] > final["flushed_where"]
    acked = _acked(manifest)
    assert final["acknowledged_lost"]
    for key in final["acknowledged_lost"]:
        assert acked[key]["broker"] == "broker-a"
        assert key in {r["uniq_key"] for r in erased}
    # The erased records are really gone from the store the run ended with.
    on_disk = {r.offset for r in read_commit_log(out / "broker-a" / "store")[0]}
    assert not on_disk & {r["offset"] for r in erased}


@pytest.mark.spec("SPARK-10")
def test_abnormal_recovery_redispatches_exactly_what_the_crash_left_undispatched(faults):
    out, manifest = faults
    for crash in manifest["crashes"]:
        if crash["recovery"] is None:
            continue
        recovery = crash["recovery"]
        assert recovery["mode"] == "abnormal"
        left = crash["left_on_disk"]["undispatched"]
        survived = [r for r in left if r["offset"] < recovery["commit_log_end"]]
        redispatched = {
            (u["topic"], u["queue_id"], u["queue_offset"]): u["commit_log_offset"]
            for u in recovery["redispatched_units"]
        }
        assert redispatched == {(r["topic"], r["queue_id"], r["queue_offset"]): r["offset"] for r in survived}
    assert _crash(manifest, "broker-b", "power")["recovery"]["redispatched_units"]
    # The recovered broker ran on and shut down cleanly: its store passes the verifier.
    report = verify_store(out / "broker-b" / "store", max_hash_slot_num=DEFAULT_STORE_SETTINGS["max_hash_slot_num"])
    assert report.problems == []


@pytest.mark.spec("SPARK-11")
def test_a_final_crash_leaves_the_store_exactly_as_the_crash_left_it(faults):
    out, manifest = faults
    store = out / "broker-a" / "store"
    assert (store / "abort").exists()  # no recovery ran and no clean shutdown removed it
    records, _ = read_commit_log(store)
    first = find_commitlog_segments(store)[0].start_offset
    undispatched, dangling = undispatched_and_dangling(records, read_units(store), first)
    final = _crash(manifest, "broker-a", "power")
    assert final["recovery"] is None and final["restarted_at_ms"] is None
    assert undispatched == final["left_on_disk"]["undispatched"] and undispatched
    assert dangling == final["left_on_disk"]["dangling_units"]
    assert not (out / "broker-b" / "store" / "abort").exists()  # broker-b ended with a clean shutdown


@pytest.mark.spec("SPARK-12")
def test_duplicates_a_crash_causes_downstream_are_listed(faults):
    _, manifest = faults
    for crash in manifest["crashes"]:
        if crash["recovery"] is None:
            continue
        rolled = {(r["group"], r["topic"], r["queue_id"]) for r in crash["offset_rollbacks"]}
        assert all(r["to"] < r["from"] for r in crash["offset_rollbacks"])
        for d in crash["redelivered"]:
            assert (d["group"], d["topic"], d["queue_id"]) in rolled  # a re-delivery needs a rolled-back offset
            attempts = manifest["consumers"][d["group"]]["attempts"]
            same = [
                a
                for a in attempts
                if (a["broker"], a["topic"], a["queue_id"], a["queue_offset"])
                == (crash["broker"], d["topic"], d["queue_id"], d["queue_offset"])
            ]
            assert any(a["consumed_at"] <= crash["at_ms"] for a in same)
            assert any(a["consumed_at"] >= crash["restarted_at_ms"] for a in same)
        if crash["delay_redelivered"]:
            assert crash["delay_offset_rollbacks"]
    process = _crash(manifest, "broker-a", "process")
    assert process["offset_rollbacks"] and process["redelivered"]


@pytest.mark.spec("SPARK-13")
def test_expired_segments_are_gone_and_their_messages_named(faults):
    out, manifest = faults
    hour_ms = 3_600_000 * load_scenario("faults").file_reserved_time_h
    for broker, deleted in manifest["expiry"]["brokers"].items():
        assert deleted, broker
        on_disk = find_commitlog_segments(out / broker / "store")
        keys_on_disk = {r.uniq_key for r in read_commit_log(out / broker / "store")[0]}
        for seg in deleted:
            assert seg["file"] not in {s.name for s in on_disk}
            assert seg["first_offset"] < on_disk[0].start_offset
            assert seg["store_timestamp_max"] + hour_ms <= seg["deleted_at_ms"]  # older than fileReservedTime
            assert seg["records"] >= len(seg["uniq_keys"]) > 0
        lost = set(manifest["expiry"]["lost_uniq_keys"][broker])
        assert lost and not lost & keys_on_disk
        assert lost <= {k for seg in deleted for k in seg["uniq_keys"]}
    never = manifest["expiry"]["never_consumed"]
    assert len(never["CG_REPORTS"]) > len(never["CG_BILLING"])  # the slow group loses most
    expired = {k for d in manifest["expiry"]["brokers"].values() for s in d for k in s["uniq_keys"]}
    for group, keys in never.items():
        assert set(keys) <= expired
        assert not set(keys) & set(manifest["consumers"][group]["consumed"])


@pytest.mark.spec("SPARK-14")
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('[faults]\ncrashes = [{ broker = "broker-z", at_s = 1.0 }]', "broker must be one of broker-a"),
        ('[faults]\ncrashes = [{ broker = "broker-a", at_s = 1.0, kind = "meteor" }]', "kind must be one of"),
        ('[faults]\ncrashes = [{ broker = "broker-a", at_s = 99.0 }]', "at_s must be inside the run"),
        ('[faults]\ncrashes = [{ broker = "broker-a", at_s = 1.0, when = 2 }]', "faults.crashes[0]: unknown field"),
        (
            '[faults]\ncrashes = [{ broker = "broker-a", at_s = 1.0 }, { broker = "broker-a", at_s = 2.0 }]',
            "still down from an earlier crash",
        ),
        ("[faults]\nquake = 1", "[faults]: unknown field 'quake'"),
    ],
)
def test_a_bad_crash_is_rejected_with_the_field_named(extra, message):
    with pytest.raises(ScenarioError) as info:
        parse_scenario(TINY + extra)
    assert message in str(info.value)


@pytest.mark.spec("SPARK-14")
@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("file_reserved_time_h = 0", "file_reserved_time_h must be positive"),
        ('delete_when = "25"', "delete_when must be hours 00-23"),
        ('sync_flush_brokers = ["broker-q"]', "sync_flush_brokers names 'broker-q'"),
        ("reserve = 3", "[store]: unknown field 'reserve'"),
    ],
)
def test_a_bad_store_setting_is_rejected(field, message):
    with pytest.raises(ScenarioError) as info:
        parse_scenario(TINY.replace("[store]\n", f"[store]\n{field}\n"))
    assert message in str(info.value)


@pytest.mark.slow
@pytest.mark.spec("SPARK-1")
def test_the_faults_scenario_is_byte_identical_too(faults, tmp_path):
    out, _ = faults
    again = tmp_path / "again"
    env = {**os.environ, "PYTHONHASHSEED": "777"}
    command = [sys.executable, "-m", "mqlab", "gen-store", "faults", "--out", str(again), "--no-progress"]
    subprocess.run(command, check=True, env=env, capture_output=True, timeout=300)
    first = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    second = {str(p.relative_to(again)): p.read_bytes() for p in sorted(again.rglob("*")) if p.is_file()}
    assert sorted(first) == sorted(second)
    assert any("quarantine" in name or "abort" in name for name in first)
    for name, data in first.items():
        assert data == second[name], name

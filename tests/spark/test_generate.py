"""The scenario generator: byte-identical stores, a manifest that matches the store, scenario errors, the CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from mqlab.cli import main
from mqlab.cluster import DEFAULT_STORE_SETTINGS
from mqlab.common.message.message_decoder import string2message_properties
from mqlab.spark.generate import MANIFEST, ScenarioError, generate_store, load_scenario, parse_scenario
from mqlab.spark.segment_reader import find_commitlog_segments, iter_segment_records
from mqlab.store.store_verifier import verify_store

# Delay levels 1..5 of messageDelayLevel "1s 5s 10s 30s 1m" (MessageStoreConfig), in ms.
DELAY_MS = {1: 1000, 2: 5000, 3: 10000, 4: 30000, 5: 60000}

TINY = """
name = "tiny"
seed = 3
duration_s = 2
drain_s = 15
brokers = 1
[store]
commit_log_file_size = 65536
consume_queue_units = 50
[[topics]]
name = "TopicT"
queues = 2
[[producers]]
group = "PG_T"
topic = "TopicT"
rate = 20.0
tags = { TagA = 1 }
keys = 5
[[consumers]]
group = "CG_T"
topic = "TopicT"
failure_rate = 0.2
max_reconsume_times = 1
"""


@pytest.fixture(scope="module")
def small(small_scenario) -> Path:
    return small_scenario


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _records(store: Path):
    """(topic, queue id, queue offset, properties, store timestamp) of every record of one broker's CommitLog."""
    for segment in find_commitlog_segments(store):
        for r in iter_segment_records(segment):
            props = string2message_properties(r.properties.decode("utf-8")) if r.properties else {}
            yield r.topic.decode("utf-8"), r.queue_id, r.queue_offset, props, r.store_timestamp


@pytest.mark.slow
@pytest.mark.spec("SPARK-1")
def test_same_scenario_and_seed_give_byte_identical_stores(small, tmp_path):
    # Another process with another hash seed: nothing may depend on the process, set order or an earlier run.
    again = tmp_path / "again"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    command = [sys.executable, "-m", "mqlab", "gen-store", "small", "--out", str(again), "--no-progress"]
    subprocess.run(command, check=True, env=env, capture_output=True, timeout=300)
    first, second = _files(small), _files(again)
    assert sorted(first) == sorted(second)
    assert any(name.startswith("broker-b/store/commitlog/") for name in first)
    for name, data in first.items():
        assert data == second[name], name


@pytest.mark.spec("SPARK-1")
def test_another_seed_gives_another_store(tmp_path):
    a = generate_store(parse_scenario(TINY), tmp_path / "a")
    b = generate_store(parse_scenario(TINY, seed=4), tmp_path / "b")
    assert b["seed"] == 4
    keys_a = [m["uniq_key"] for m in a["producers"]["PG_T"]["messages"]]
    keys_b = [m["uniq_key"] for m in b["producers"]["PG_T"]["messages"]]
    assert keys_a != keys_b


@pytest.mark.slow
@pytest.mark.spec("SPARK-2")
def test_generated_stores_pass_the_store_verifier(small):
    for broker in json.loads((small / MANIFEST).read_text())["brokers"]:
        report = verify_store(small / broker / "store", max_hash_slot_num=DEFAULT_STORE_SETTINGS["max_hash_slot_num"])
        assert report.problems == [], broker


@pytest.mark.slow
@pytest.mark.spec("SPARK-2")
def test_every_acknowledged_message_is_in_the_store_where_the_manifest_says(small):
    manifest = json.loads((small / MANIFEST).read_text())
    stored = {}
    for broker in manifest["brokers"]:
        for topic, queue_id, queue_offset, props, _ in _records(small / broker / "store"):
            stored[(broker, topic, queue_id, queue_offset)] = props.get("UNIQ_KEY")
    modes = set()
    acked = 0
    for group, producer in manifest["producers"].items():
        for m in producer["messages"]:
            modes.add(m["mode"])
            if m["status"] != "SEND_OK" or m["delay_level"]:
                continue  # a delayed message's queue offset is in SCHEDULE_TOPIC_XXXX, checked below
            acked += 1
            assert stored[(m["broker"], producer["topic"], m["queue_id"], m["queue_offset"])] == m["uniq_key"], group
    assert acked > 1500
    assert modes == {"sync", "async", "oneway", "batch"}


@pytest.mark.slow
@pytest.mark.spec("SPARK-3")
def test_retry_and_dlq_topics_hold_exactly_the_messages_the_manifest_says(small):
    manifest = json.loads((small / MANIFEST).read_text())
    billing = manifest["consumers"]["CG_BILLING"]
    in_topic: dict[str, set[str]] = {"%RETRY%CG_BILLING": set(), "%DLQ%CG_BILLING": set()}
    for broker in manifest["brokers"]:
        for topic, _, _, props, _ in _records(small / broker / "store"):
            if topic in in_topic:
                in_topic[topic].add(props["UNIQ_KEY"])
            elif topic == "SCHEDULE_TOPIC_XXXX" and props.get("REAL_TOPIC") == "%RETRY%CG_BILLING":
                in_topic["%RETRY%CG_BILLING"].add(props["UNIQ_KEY"])
    assert billing["dead_lettered"] and billing["retried"]
    assert in_topic["%DLQ%CG_BILLING"] == set(billing["dead_lettered"])
    assert in_topic["%RETRY%CG_BILLING"] == set(billing["retried"])
    # Every message sent to TopicOrders ended consumed or dead-lettered by the clustering group.
    sent = {m["uniq_key"] for m in manifest["producers"]["PG_ORDERS"]["messages"]}
    assert set(billing["consumed"]) | set(billing["dead_lettered"]) == sent


@pytest.mark.slow
@pytest.mark.spec("SPARK-4")
def test_slow_and_stopped_groups_leave_real_lag(small):
    manifest = json.loads((small / MANIFEST).read_text())
    orders = manifest["producers"]["PG_ORDERS"]["messages"]
    paid_or_shipped = {m["uniq_key"] for m in orders if m["tags"] in ("TagPaid", "TagShipped")}
    analytics = manifest["consumers"]["CG_ANALYTICS"]
    assert set(analytics["consumed"]) < paid_or_shipped  # behind, and only its tags
    for broker in manifest["brokers"]:
        store = small / broker / "store"
        max_offset: dict[int, int] = {}
        for topic, queue_id, queue_offset, _, _ in _records(store):
            if topic == "TopicOrders":
                max_offset[queue_id] = max(max_offset.get(queue_id, 0), queue_offset + 1)
        text = (store / "config" / "consumerOffset.json").read_text()
        billing, slow = _committed(text, "TopicOrders@CG_BILLING"), _committed(text, "TopicOrders@CG_ANALYTICS")
        assert billing == max_offset  # the healthy group caught up on every queue
        assert all(slow[q] <= max_offset[q] for q in slow) and sum(slow.values()) < sum(max_offset.values())
    audit = manifest["consumers"]["CG_AUDIT"]
    payments = manifest["producers"]["PG_PAYMENTS"]["messages"]
    stop_ms = manifest["run_start_ms"] + 12_000
    assert {a["instance"] for a in audit["attempts"]} == {"instance-1", "instance-2"}  # broadcasting: both get all
    # The generator stops a group between sends; a sync send waiting out a lost answer (3 s) can delay that.
    assert max(a["consumed_at"] for a in audit["attempts"]) in range(stop_ms - 1000, stop_ms + 4000)
    assert len(set(audit["consumed"])) < len(payments)


def _committed(text: str, key: str) -> dict[int, int]:
    """One ``topic@group`` entry of consumerOffset.json (fastjson writes its integer map keys unquoted)."""
    entry = re.search(re.escape(f'"{key}":') + r"\{([^}]*)\}", text)
    assert entry is not None, key
    return {int(q): int(o) for q, o in re.findall(r"(\d+):(\d+)", entry.group(1))}


@pytest.mark.slow
@pytest.mark.spec("SPARK-5")
def test_delayed_messages_are_delivered_after_their_level(small):
    manifest = json.loads((small / MANIFEST).read_text())
    delayed = {m["uniq_key"]: m for m in manifest["producers"]["PG_ORDERS"]["messages"] if m["delay_level"]}
    assert len(delayed) >= 10
    first_seen = {}
    for a in manifest["consumers"]["CG_BILLING"]["attempts"]:
        if a["uniq_key"] in delayed and a["reconsume_times"] == 0:
            first_seen.setdefault(a["uniq_key"], a["consumed_at"])
    # Acknowledged ones surely arrived; oneway ones (no acknowledgement) arrived too unless lost.
    assert {k for k, m in delayed.items() if m["status"] == "SEND_OK"} <= set(first_seen) <= set(delayed)
    for key, at in first_seen.items():
        assert at - delayed[key]["sent_at"] >= DELAY_MS[delayed[key]["delay_level"]]


@pytest.mark.slow
@pytest.mark.spec("SPARK-8")
def test_lost_responses_and_application_retries_leave_duplicate_uniq_keys(small):
    manifest = json.loads((small / MANIFEST).read_text())
    lost = Counter(k for keys in manifest["lost_responses"].values() for k in keys)
    assert sum(lost.values()) >= 3
    copies: Counter[str] = Counter()
    for broker in manifest["brokers"]:
        for topic, _, _, props, _ in _records(small / broker / "store"):
            if topic in ("TopicOrders", "TopicPayments"):
                copies[props["UNIQ_KEY"]] += 1
    retried_by_app = 0
    for producer in manifest["producers"].values():
        for m in producer["messages"]:
            acknowledged = m["status"] == "SEND_OK" or m["mode"] == "oneway"
            # Stored once per lost answer, plus once for the send that was acknowledged.
            assert copies[m["uniq_key"]] == lost[m["uniq_key"]] + acknowledged, m
            retried_by_app += bool(m.get("failed_attempts"))
    assert retried_by_app >= 1
    assert len([k for k, n in copies.items() if n > 1]) >= 1


@pytest.mark.spec("SPARK-6")
@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("rate = 20.0", "rate = 20.0\nspeed = 3"), "producers[0]: unknown field 'speed'"),
        (('topic = "TopicT"\nrate', 'topic = "TopicX"\nrate'), "topic 'TopicX' is not among the topics"),
        (("failure_rate = 0.2", "failure_rate = 1.5"), "failure_rate must be in [0, 1)"),
        (('name = "tiny"\n', ""), "missing field 'name'"),
        (("[store]", "[store"), "not valid TOML"),
        (("[store]", "[faults]\nlost_response_share = 1.0\n[store]"), "lost_response_share must be in [0, 1)"),
        (('group = "CG_T"', 'group = "CG_T"\nmodel = "FANOUT"'), "model must be CLUSTERING or BROADCASTING"),
    ],
)
def test_a_bad_scenario_is_rejected_with_the_field_named(change, message):
    with pytest.raises(ScenarioError, match=None) as info:
        parse_scenario(TINY.replace(*change, 1))
    assert message in str(info.value)


@pytest.mark.spec("SPARK-6")
def test_shipped_scenarios_parse():
    for name in ("small", "faults", "week", "large"):
        assert load_scenario(name).name == name


@pytest.mark.spec("SPARK-7")
def test_gen_store_command_writes_stores_and_manifest(tmp_path, capsys):
    scenario = tmp_path / "tiny.toml"
    scenario.write_text(TINY)
    out = tmp_path / "out"
    assert main(["gen-store", str(scenario), "--out", str(out), "--seed", "5", "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "scenario tiny (seed 5)" in said and str(tmp_path) not in said
    manifest = json.loads((out / MANIFEST).read_text())
    assert manifest["seed"] == 5 and manifest["brokers"] == ["broker-a"]
    assert (out / "broker-a" / "store" / "commitlog").is_dir()
    # An existing output is refused unless --replace.
    assert main(["gen-store", str(scenario), "--out", str(out), "--no-progress"]) == 2
    assert "is not empty" in capsys.readouterr().err
    assert main(["gen-store", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "o2")]) == 2
    # --replace starts afresh; without --no-progress a progress bar over virtual time goes to stderr.
    assert main(["gen-store", str(scenario), "--out", str(out), "--seed", "5", "--replace"]) == 0
    assert "scenario tiny" in capsys.readouterr().err
    assert json.loads((out / MANIFEST).read_text()) == manifest

"""Spark exercise notebooks 06-08: each reference is right, and plausible wrong answers fail their checker.

The references of ``mqlab.labs.spark.delay``, ``expiry`` and ``latency`` are plain Python over a generated ``small``
store; where mqlab itself can decide (a restart of the store, a cleaning pass), the reference is compared with what
mqlab does. No Spark here: the checkers accept lists of dicts as they accept DataFrames.
"""

from __future__ import annotations

import itertools
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from mqlab.cluster import DEFAULT_STORE_SETTINGS
from mqlab.common.message.message import Message
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.topic.topic_validator import RMQ_SYS_SCHEDULE_TOPIC
from mqlab.labs.spark import delay, expiry, latency
from mqlab.runtime import SimulatedWorld
from mqlab.spark.generate import load_scenario
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.crash import simulate_crash
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.teaching import check, inner_message

HOUR_MS = 3_600_000
RESERVED_MS = 71 * HOUR_MS


@pytest.fixture(scope="module")
def small(small_scenario) -> Path:
    return small_scenario


@pytest.fixture(scope="module")
def records(small) -> list[delay.StoredRecord]:
    return delay.stored_records(small)


def _open_store(root: Path, start_ms: int, **settings) -> tuple[SimulatedWorld, DefaultMessageStore]:
    scenario = load_scenario("small")
    world = SimulatedWorld(seed=3, start_ms=start_ms)
    config = MessageStoreConfig.under(  # the generator's settings: the index layout depends on them
        root,
        **{
            **DEFAULT_STORE_SETTINGS,
            "mapped_file_size_commit_log": scenario.commit_log_file_size,
            "mapped_file_size_consume_queue": 20 * scenario.consume_queue_units,
            **settings,
        },
    )
    store = DefaultMessageStore(config, world.runtime("broker-a", ip="10.0.1.1"))
    store.load()
    return world, store


def _verdict(capsys) -> str:
    return capsys.readouterr().out.strip()


# -- notebook 06: delayed messages -----------------------------------------------------------------------------
def _lateness_from(pairs: list[tuple[int, int, int]]) -> list[dict]:
    """(level, due or parked time, delivered time) → the exercise's table, as a reader would aggregate it."""
    rows: dict[int, dict] = {}
    for level, delay_ms, late in pairs:
        row = rows.setdefault(level, {"delay_level": level, "messages": 0, "delay_ms": delay_ms, "late": []})
        row["messages"] += 1
        row["late"].append(late)
    return [
        {k: v for k, v in row.items() if k != "late"}
        | {"min_late_ms": min(row["late"]), "max_late_ms": max(row["late"])}
        for _, row in sorted(rows.items())
    ]


def _parked_and_copies(small, records):
    manifest = delay.load_manifest(small)
    topics = {p["topic"] for p in manifest["producers"].values()}
    due = {}
    for broker in manifest["brokers"]:
        due[broker] = delay._due_times(delay.store_dir(small, broker))
    parked = [r for r in records if r.topic == RMQ_SYS_SCHEDULE_TOPIC and r.properties.get(delay.REAL_TOPIC) in topics]
    copies = [r for r in records if delay._is_delivery(r)]
    return parked, copies, due


@pytest.mark.spec("SPEX-30")
def test_lateness_reference_passes_and_is_never_early(small, capsys):
    reference = delay.delivery_lateness(small)
    assert delay.check_delivery_lateness(reference, small), _verdict(capsys)
    assert [r["delay_level"] for r in reference] == [1, 2, 3]
    assert [r["delay_ms"] for r in reference] == [1000, 5000, 10000]  # messageDelayLevel 1s 5s 10s
    assert all(r["min_late_ms"] >= 0 for r in reference)
    delayed = [m for p in delay.load_manifest(small)["producers"].values() for m in p["messages"] if m["delay_level"]]
    assert sum(r["messages"] for r in reference) == len(delayed)
    assert delay.check_delivery_lateness(None, small) is False
    assert "not answered yet" in _verdict(capsys)


@pytest.mark.spec("SPEX-30")
def test_lateness_rejects_the_schedule_record_as_delivery_time(small, records, capsys):
    parked, _, due = _parked_and_copies(small, records)
    wrong = _lateness_from(
        [
            (
                int(r.properties["DELAY"]),
                due[r.broker][r.physical_offset] - r.store_timestamp,
                r.store_timestamp - due[r.broker][r.physical_offset],
            )
            for r in parked
        ]
    )
    assert not delay.check_delivery_lateness(wrong, small)
    assert "wrong value" in _verdict(capsys)


@pytest.mark.spec("SPEX-30")
def test_lateness_rejects_matching_copies_by_uniq_key_alone(small, records, capsys):
    parked, copies, due = _parked_and_copies(small, records)
    last_copy = {}
    for c in copies:  # a retried message's later copies in %RETRY% overwrite the real delivery
        last_copy[(c.broker, c.uniq_key)] = c.store_timestamp
    wrong = _lateness_from(
        [
            (
                int(r.properties["DELAY"]),
                due[r.broker][r.physical_offset] - r.store_timestamp,
                last_copy[(r.broker, r.uniq_key)] - due[r.broker][r.physical_offset],
            )
            for r in parked
        ]
    )
    assert not delay.check_delivery_lateness(wrong, small)
    assert "wrong value" in _verdict(capsys)


@pytest.mark.spec("SPEX-30")
def test_lateness_rejects_counting_the_retries_too(small, records, capsys):
    _, copies, _ = _parked_and_copies(small, records)
    per_level = Counter(int(c.properties["DELAY"]) for c in copies)
    wrong = [dict(row, messages=per_level[row["delay_level"]]) for row in delay.delivery_lateness(small)]
    assert not delay.check_delivery_lateness(wrong, small)
    assert "'messages'" in _verdict(capsys)


@pytest.mark.spec("SPEX-31")
def test_restart_redeliveries_are_what_a_restart_delivers_again(small, tmp_path):
    reference = delay.restart_redeliveries(small)
    manifest = delay.load_manifest(small)
    for broker in manifest["brokers"]:
        copy = tmp_path / broker
        shutil.copytree(delay.store_dir(small, broker), copy)
        before = delay.delivered_by_level(copy)
        world, store = _open_store(copy, manifest["end_ms"] + 60_000)
        store.start()
        world.run_for(3000)  # every level's first timer runs 1 s after start; nothing new is due
        store.shutdown()
        after = delay.delivered_by_level(copy)
        again = {level: after[level] - before.get(level, 0) for level in after}
        expected = {r["delay_level"]: r["redelivered"] for r in reference if r["broker"] == broker}
        assert {level: again.get(level, 0) for level in expected} == expected
    assert sum(r["redelivered"] for r in reference) > 0  # 4.9.3's lagging offset shows in the small scenario


@pytest.mark.spec("SPEX-31")
def test_restart_redeliveries_reject_trusting_the_file_and_off_by_one(small, capsys):
    reference = delay.restart_redeliveries(small)
    assert delay.check_restart_redeliveries(reference, small), _verdict(capsys)
    trusted = [dict(r, redelivered=0) for r in reference]
    assert not delay.check_restart_redeliveries(trusted, small)
    assert "'redelivered'" in _verdict(capsys)
    after_recorded = [dict(r, redelivered=max(0, r["delivered"] - r["recorded_offset"] - 1)) for r in reference]
    assert not delay.check_restart_redeliveries(after_recorded, small)
    assert "'redelivered'" in _verdict(capsys)


def _crash_between_persists(root: Path) -> tuple[int, int, int]:
    """Level-1 messages every 250 ms, crash at +24.5 s: (delivered before the crash, recorded offset, repeats)."""
    world = SimulatedWorld(seed=6)
    broker, producer = world.runtime("broker-a", ip="192.168.1.10"), world.runtime("producer", ip="192.168.1.100")
    ids, t0 = MessageClientIDSetter.for_runtime(producer), world.start_ms

    def open_store() -> DefaultMessageStore:
        config = MessageStoreConfig.under(
            root,
            mapped_file_size_commit_log=256 * 1024,
            mapped_file_size_consume_queue=400,
            flush_disk_type=FlushDiskType.SYNC_FLUSH,
        )
        store = DefaultMessageStore(config, broker)
        store.load()
        store.start()
        return store

    store = open_store()
    for i in range(96):
        world.run_for(t0 + 250 * i + 50 - world.now_ms())
        msg = Message("TopicTest", "TagA", f"order-{i}", b"x")
        msg.set_delay_time_level(1)
        ids.set_uniq_id(msg)
        store.put_message(inner_message(msg, producer.now_ms(), queue_id=i % 4))
    world.run_for(t0 + 24_500 - world.now_ms())
    simulate_crash(store)
    delivered = delay.delivered_by_level(root).get(1, 0)
    recorded = delay.read_delay_offsets(root)[1]
    store = open_store()
    world.run_for(3000)
    store.shutdown()
    return delivered, recorded, delay.redelivered_copies(root, "TopicTest")


@pytest.mark.spec("SPEX-32")
def test_a_crash_delivers_again_what_was_delivered_since_the_last_persist(tmp_path, capsys):
    delivered, recorded, repeats = _crash_between_persists(tmp_path / "crash")
    assert recorded == 76  # persisted at +20 s: the messages sent by +19 s (one every 250 ms, from +50 ms)
    assert repeats == delivered - recorded > 0
    assert check(delivered - recorded, repeats, name="re-delivered")
    assert not check(0, repeats, name="re-delivered")  # exactly once: what 4.9.3 does not promise
    assert not check(delivered, repeats, name="re-delivered")  # everything since the start
    assert _verdict(capsys).splitlines()[0].startswith("✓")


# -- notebook 07: expiry -----------------------------------------------------------------------------------------
CUTOFFS_S = (5, 24, 29.6, 60, 7 * 24 * 3600)  # seconds after the start: none, some, near an edge, most, all


@pytest.mark.spec("SPEX-33")
@pytest.mark.parametrize("cutoff_s", CUTOFFS_S)
def test_expired_segments_are_what_the_store_deletes(small, tmp_path, cutoff_s):
    start = delay.load_manifest(small)["start_ms"]
    now = start + int(cutoff_s * 1000) + RESERVED_MS
    reference = expiry.expired_segments(small, now_ms=now, file_reserved_time_ms=RESERVED_MS)
    for broker in delay.load_manifest(small)["brokers"]:
        copy = tmp_path / broker
        shutil.copytree(delay.store_dir(small, broker), copy)  # copy2 keeps the modification times
        _, store = _open_store(copy, now)
        queue = store.commit_log.mapped_file_queue
        names = [m.file.name for m in queue.mapped_files]
        deleted = queue.delete_expired_file_by_time(RESERVED_MS, 100, 120_000, False)
        store.shutdown()
        assert [r["segment"] for r in reference if r["broker"] == broker] == names[:deleted]


@pytest.mark.spec("SPEX-33")
def test_segment_age_counts_from_the_last_write(small):
    rows = expiry.segment_table(small)
    for here, after in itertools.pairwise(rows):
        if here["broker"] == after["broker"]:  # the blank record was written with the next segment's first message
            assert here["last_modified_ms"] == after["first_store_ms"] >= here["last_store_ms"]


@pytest.mark.spec("SPEX-33")
def test_expired_segments_reject_first_timestamps_and_the_last_segment(small, capsys):
    start = delay.load_manifest(small)["start_ms"]
    rows = expiry.segment_table(small)
    now = start + 24_000 + RESERVED_MS
    assert expiry.check_expired_segments(
        expiry.expired_segments(small, now_ms=now, file_reserved_time_ms=RESERVED_MS),
        small,
        now_ms=now,
        file_reserved_time_ms=RESERVED_MS,
    ), _verdict(capsys)
    last = {r["broker"]: r["segment"] for r in rows}  # rows come in offset order
    by_first = [r for r in rows if r["first_store_ms"] + RESERVED_MS <= now and r["segment"] != last[r["broker"]]]
    assert not expiry.check_expired_segments(by_first, small, now_ms=now, file_reserved_time_ms=RESERVED_MS)
    assert "unexpected row" in _verdict(capsys)
    week = start + 7 * 24 * HOUR_MS + RESERVED_MS
    everything = [{"broker": r["broker"], "segment": r["segment"]} for r in rows]
    assert not expiry.check_expired_segments(everything, small, now_ms=week, file_reserved_time_ms=RESERVED_MS)
    assert "unexpected row" in _verdict(capsys)


def _losses(records, deleted, offsets, subscriptions, *, tags: bool, committed: bool) -> list[dict]:
    gone = {(d["broker"], d["segment"]) for d in deleted}
    lost: Counter = Counter()
    for group, table in offsets.items():
        wanted = expiry.subscribed_tags(subscriptions.get(group, "*"), "")
        for r in records:
            where = (r.broker, r.topic, r.queue_id)
            if where not in table or (r.broker, r.segment) not in gone:
                continue
            if committed and r.queue_offset < table[where]:
                continue
            if tags and wanted is not None and not r.topic.startswith("%RETRY%") and r.tags not in wanted:
                continue
            lost[(group, *where)] += 1
    return [{"group": g, "broker": b, "topic": t, "queue_id": q, "lost": n} for (g, b, t, q), n in lost.items()]


@pytest.mark.spec("SPEX-34")
def test_group_losses_reference_and_wrong_answers(small, records, capsys):
    subscriptions = {c.group: c.subscription for c in load_scenario("small").consumers}
    now = delay.load_manifest(small)["start_ms"] + 24_000 + RESERVED_MS
    deleted = expiry.expired_segments(small, now_ms=now, file_reserved_time_ms=RESERVED_MS)
    offsets = expiry.committed_offsets(small)
    kwargs = {"now_ms": now, "file_reserved_time_ms": RESERVED_MS}
    reference = expiry.group_losses(small, subscriptions, **kwargs)
    assert reference and {r["group"] for r in reference} == {"CG_ANALYTICS"}  # the slow, filtered group
    assert expiry.check_group_losses(reference, small, subscriptions, **kwargs), _verdict(capsys)
    mine = _losses(records, deleted, offsets, subscriptions, tags=True, committed=True)
    assert expiry.check_group_losses(mine, small, subscriptions, **kwargs), _verdict(capsys)
    no_filter = _losses(records, deleted, offsets, subscriptions, tags=False, committed=True)
    assert not expiry.check_group_losses(no_filter, small, subscriptions, **kwargs)
    assert "'lost'" in _verdict(capsys)
    no_offsets = _losses(records, deleted, offsets, subscriptions, tags=True, committed=False)
    assert not expiry.check_group_losses(no_offsets, small, subscriptions, **kwargs)
    assert "unexpected row" in _verdict(capsys)  # CG_BILLING lost nothing beyond its offsets


@pytest.mark.spec("SPEX-34")
def test_a_broadcasting_instance_loses_from_its_own_offsets(small, records):
    now = delay.load_manifest(small)["start_ms"] + 24_000 + RESERVED_MS
    losses = expiry.instance_losses(small, "CG_AUDIT", "*", now_ms=now, file_reserved_time_ms=RESERVED_MS)
    assert len(losses) == 2 and all(n > 0 for n in losses.values())  # two instances, both stopped at 12 s
    deleted = expiry.expired_segments(small, now_ms=now, file_reserved_time_ms=RESERVED_MS)
    gone = {(d["broker"], d["segment"]) for d in deleted}
    all_in_deleted = sum(1 for r in records if r.topic == "TopicPayments" and (r.broker, r.segment) in gone)
    assert all(n < all_in_deleted for n in losses.values())  # what it read before stopping is not lost
    assert not check(all_in_deleted, next(iter(losses.values())), name="instance loss")


# -- notebook 08: latency and throughput -----------------------------------------------------------------------
def test_percentile_is_sparks_linear_interpolation():
    assert latency.percentile([1, 2, 3, 4], 0.5) == 2.5
    assert latency.percentile([5], 0.99) == 5.0
    assert latency.percentile([1, 2, 3, 4, 5], 0.99) == pytest.approx(4.96)
    with pytest.raises(ValueError, match="no values"):
        latency.percentile([], 0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        latency.percentile([1], 1.5)


def _latency_table(pairs: list[tuple[str, int]]) -> list[dict]:
    groups: dict[str, list[int]] = defaultdict(list)
    for group, value in pairs:
        groups[group].append(value)
    return [
        {
            "group": g,
            "messages": len(v),
            "min_ms": min(v),
            "p50_ms": latency.percentile(v, 0.5),
            "p99_ms": latency.percentile(v, 0.99),
            "max_ms": max(v),
        }
        for g, v in groups.items()
    ]


@pytest.mark.spec("SPEX-35")
def test_store_latency_reference_and_wrong_answers(small, records, capsys):
    reference = latency.store_latency(small)
    assert latency.check_store_latency(reference, small), _verdict(capsys)
    assert all(r["min_ms"] >= 0 for r in reference)
    sends = latency.producer_sends(small)
    reversed_sign = _latency_table([(g, r.born_timestamp - r.store_timestamp) for g, r in sends])
    assert not latency.check_store_latency(reversed_sign, small)
    assert "wrong value" in _verdict(capsys)
    owner = {m["uniq_key"]: g for g, p in delay.load_manifest(small)["producers"].items() for m in p["messages"]}
    every_copy = _latency_table(
        [(owner[r.uniq_key], r.store_timestamp - r.born_timestamp) for r in records if r.uniq_key in owner]
    )
    assert not latency.check_store_latency(every_copy, small)
    assert "'messages'" in _verdict(capsys)


@pytest.mark.spec("SPEX-36")
def test_throughput_reference_and_wrong_answers(small, records, capsys):
    reference = latency.throughput(small)
    assert latency.check_throughput(reference, small), _verdict(capsys)
    assert sum(r["messages"] for r in reference) == sum(r.topic in ("TopicOrders", "TopicPayments") for r in records)
    topics = {"TopicOrders", "TopicPayments"}
    by_born = Counter((r.topic, r.born_timestamp // 1000 * 1000) for r in records if r.topic in topics)
    wrong = [{"topic": t, "second_ms": s, "messages": n} for (t, s), n in by_born.items()]
    assert not latency.check_throughput(wrong, small)
    _verdict(capsys)
    per_broker = Counter((r.broker, r.topic, r.store_timestamp // 1000 * 1000) for r in records if r.topic in topics)
    wrong = [{"topic": t, "second_ms": s, "messages": n} for (_, t, s), n in per_broker.items()]
    assert not latency.check_throughput(wrong, small)
    assert "more than one row" in _verdict(capsys)


@pytest.mark.spec("SPEX-36")
def test_quiet_seconds_are_the_seconds_without_a_row(small):
    quiet = latency.silent_seconds(small, "TopicPayments")
    assert quiet > 0  # sync sends blocked by lost answers leave holes
    rows = latency.throughput(small, ["TopicPayments"])
    assert not check(sum(r["messages"] == 0 for r in rows), quiet, name="quiet seconds")  # no row has 0 messages
    with pytest.raises(ValueError, match="no record of topic"):
        latency.silent_seconds(small, "NoSuchTopic")

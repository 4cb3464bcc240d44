"""Spark notebooks 03-05: each checker passes its reference, agrees with the store, and rejects plausible wrong answers.

The answers here are pandas DataFrames and lists built in plain Python the way a reader's Spark query would build
them (right or wrong), so no Spark session is needed; the notebooks themselves run the Spark versions under nbval.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from mqlab.labs.spark import (
    GeneratedDirError,
    duplicates,
    funnel,
    lag,
    load_manifest,
    queue_max_offsets,
    stored_records,
)
from mqlab.spark.generate import generate_store, load_scenario

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = {
    "03": (ROOT / "spark" / "03-consumer-lag.ipynb", "lag."),
    "04": (ROOT / "spark" / "04-duplicates.ipynb", "duplicates."),
    "05": (ROOT / "spark" / "05-retry-dlq-funnel.ipynb", "funnel."),
}


@pytest.fixture(scope="module")
def gen(small_scenario) -> Path:
    return small_scenario


@pytest.fixture(scope="module")
def records(gen) -> pd.DataFrame:
    """The CommitLog records of both brokers, as a reader's ``mqlab_commitlog`` query would see them."""
    rows = [
        {
            "broker": r.broker,
            "topic": r.topic,
            "queue_id": r.queue_id,
            "queue_offset": r.queue_offset,
            "reconsume_times": r.reconsume_times,
            "store_timestamp": r.store_timestamp,
            "msg_id": r.msg_id,
            "uniq_key": r.uniq_key,
            "tags": r.properties.get("TAGS"),
            "real_topic": r.properties.get("REAL_TOPIC"),
            "retry_topic": r.properties.get("RETRY_TOPIC"),
            "delay": int(r.properties["DELAY"]) if "DELAY" in r.properties else None,
        }
        for r in stored_records(gen)
    ]
    return pd.DataFrame(rows)


def verdict(capsys, ok: bool) -> str:
    out = capsys.readouterr().out
    assert out.count("\n") == 1, out
    assert out.startswith("✓" if ok else "✗"), out
    return out.strip()


def producer_topics(gen: Path) -> list[str]:
    return sorted({p["topic"] for p in load_manifest(gen)["producers"].values()})


# --- notebook 03: consumer lag ---------------------------------------------------------------------------------


def broker_offsets_from(records: pd.DataFrame, how: str) -> pd.DataFrame:
    grouped = records.groupby(["broker", "topic", "queue_id"])["queue_offset"]
    values = {"max+1": grouped.max() + 1, "max": grouped.max(), "count": grouped.count()}[how]
    return values.rename("brokerOffset").reset_index().rename(columns={"queue_id": "queueId"})


def parse_fastjson(text: str) -> dict:
    """consumerOffset.json with its bare integer keys quoted, then standard JSON."""
    return json.loads(re.sub(r"([{,]\s*)(\d+):", r'\1"\2":', text))


def committed_from(gen: Path, *, name: str = "consumerOffset.json", swap: bool = False) -> list[dict]:
    rows = []
    for broker in load_manifest(gen)["brokers"]:
        table = parse_fastjson((gen / broker / "store" / "config" / name).read_text())["offsetTable"]
        for topic_group, offsets in table.items():
            topic, group = topic_group.split("@")
            if swap:
                topic, group = group, topic
            rows += [
                {"broker": broker, "topic": topic, "group": group, "queueId": int(q), "consumerOffset": o}
                for q, o in offsets.items()
            ]
    return rows


def progress_from(committed: list[dict], offsets: pd.DataFrame, how: str = "left") -> pd.DataFrame:
    table = pd.DataFrame(committed).merge(offsets, on=["broker", "topic", "queueId"], how=how)
    table["brokerOffset"] = table["brokerOffset"].fillna(0).astype(int)
    table["diff"] = table["brokerOffset"] - table["consumerOffset"]
    return table[["group", "broker", "topic", "queueId", "brokerOffset", "consumerOffset", "diff"]]


@pytest.mark.spec("SPEX-10", "SPEX-6")
def test_broker_offsets_are_the_queue_ends_the_commitlog_shows(capsys, gen, records):
    assert lag.check_broker_offsets(broker_offsets_from(records, "max+1"), gen) is True
    verdict(capsys, True)
    manifest = load_manifest(gen)
    ends = queue_max_offsets(gen)
    for producer in manifest["producers"].values():
        for row in producer["messages"]:
            if row.get("queue_offset") is not None and row["delay_level"] == 0:  # SPARK-2: undelayed ones
                assert ends[row["broker"], producer["topic"], row["queue_id"]] > row["queue_offset"]


@pytest.mark.spec("SPEX-10", "SPEX-7")
def test_the_last_offset_instead_of_the_next_one_fails(capsys, gen, records):
    assert lag.check_broker_offsets(broker_offsets_from(records, "max"), gen) is False
    line = verdict(capsys, False)
    assert "wrong values (first: 'brokerOffset' at broker='broker-a'" in line and "one past" in line


@pytest.mark.spec("SPEX-10", "SPEX-7")
def test_counting_units_fails_once_the_oldest_consume_queue_file_is_gone(capsys, gen, tmp_path):
    cleaned = tmp_path / "cleaned"
    shutil.copytree(gen, cleaned)
    queue_dir = cleaned / "broker-a" / "store" / "consumequeue" / "TopicOrders" / "0"
    files = sorted(queue_dir.iterdir())
    assert len(files) >= 2, "the small scenario's queues span more than one ConsumeQueue file"
    files[0].unlink()  # what CleanConsumeQueueService does once the CommitLog below it expired
    before = {(r["broker"], r["topic"], r["queueId"]): r["brokerOffset"] for r in lag.expected_broker_offsets(gen)}
    after = {(r["broker"], r["topic"], r["queueId"]): r["brokerOffset"] for r in lag.expected_broker_offsets(cleaned)}
    assert after == before  # the max offset does not move
    counted = [
        {"broker": b, "topic": t, "queueId": q, "brokerOffset": n}
        for (b, t, q), n in Counter((qf.broker, qf.topic, qf.queue_id) for qf, _ in _units(cleaned)).items()
    ]
    assert lag.check_broker_offsets(counted, cleaned) is False
    assert "'brokerOffset' at broker='broker-a', topic='TopicOrders', queueId=0" in verdict(capsys, False)


def _units(root: Path):
    from mqlab.spark.segment_reader import find_consume_queue_files, iter_consume_queue_units

    for broker in load_manifest(root)["brokers"]:
        for queue_file in find_consume_queue_files(root / broker / "store", broker):
            for unit in iter_consume_queue_units(queue_file):
                yield queue_file, unit


@pytest.mark.spec("SPEX-11", "SPEX-6")
def test_committed_offsets_are_the_files_and_a_broadcasting_group_has_none(capsys, gen):
    assert lag.check_consumer_offsets(committed_from(gen), gen) is True
    verdict(capsys, True)
    groups = {r["group"] for r in lag.expected_consumer_offsets(gen)}
    models = {g: c["model"] for g, c in load_manifest(gen)["consumers"].items()}
    assert groups == {g for g, model in models.items() if model == "CLUSTERING"}


@pytest.mark.spec("SPEX-11", "SPEX-7")
def test_the_backup_file_or_a_swapped_key_fails(capsys, gen):
    assert lag.check_consumer_offsets(committed_from(gen, name="consumerOffset.json.bak"), gen) is False
    assert "wrong value" in verdict(capsys, False)
    assert lag.check_consumer_offsets(committed_from(gen, swap=True), gen) is False
    assert "expected rows missing" in verdict(capsys, False)


@pytest.mark.spec("SPEX-12", "SPEX-6")
def test_consumer_progress_joins_every_committed_queue(capsys, gen, records):
    offsets = broker_offsets_from(records, "max+1")
    assert lag.check_consumer_progress(progress_from(committed_from(gen), offsets), gen) is True
    verdict(capsys, True)
    expected = lag.expected_consumer_progress(gen)
    assert all(r["diff"] == 0 for r in expected if r["group"] == "CG_BILLING")  # SPARK-4: a healthy group
    assert sum(r["diff"] for r in expected if r["group"] == "CG_ANALYTICS") > 0  # and a slow one


@pytest.mark.spec("SPEX-12", "SPEX-7")
def test_an_inner_join_or_a_reversed_diff_fails(capsys, gen, records):
    offsets = broker_offsets_from(records, "max+1")
    assert lag.check_consumer_progress(progress_from(committed_from(gen), offsets, how="inner"), gen) is False
    assert "expected rows missing (first: group='CG_ANALYTICS'" in verdict(capsys, False)
    reversed_diff = progress_from(committed_from(gen), offsets)
    reversed_diff["diff"] = -reversed_diff["diff"]
    assert lag.check_consumer_progress(reversed_diff, gen) is False
    assert "'diff' at group='CG_ANALYTICS'" in verdict(capsys, False)


def matching_from(gen: Path, records: pd.DataFrame, *, strict: bool = False, every_tag: bool = False) -> pd.DataFrame:
    progress = pd.DataFrame(lag.expected_consumer_progress(gen))
    progress = progress[(progress["group"] == "CG_ANALYTICS") & (progress["topic"] == "TopicOrders")]
    joined = records.merge(
        progress.rename(columns={"queueId": "queue_id"}), on=["broker", "topic", "queue_id"], how="inner"
    )
    behind = joined[
        joined["queue_offset"] > joined["consumerOffset"]
        if strict
        else joined["queue_offset"] >= joined["consumerOffset"]
    ]
    wanted = behind["tags"].isin(["TagPaid", "TagShipped"]) | every_tag
    behind = behind.assign(matching=wanted.astype(int))
    table = behind.groupby(["broker", "queue_id", "diff"], as_index=False)["matching"].sum()
    return table.rename(columns={"queue_id": "queueId"})


@pytest.mark.spec("SPEX-13", "SPEX-6")
def test_the_matching_backlog_counts_the_subscribed_tags_from_the_committed_offset(capsys, gen, records):
    assert lag.check_matching_backlog(matching_from(gen, records), gen) is True
    verdict(capsys, True)
    expected = lag.expected_matching_backlog(gen, "CG_ANALYTICS")
    assert all(0 < r["matching"] < r["diff"] for r in expected)
    with pytest.raises(GeneratedDirError, match="no consumer group 'CG_NOBODY'"):
        lag.expected_matching_backlog(gen, "CG_NOBODY")


@pytest.mark.spec("SPEX-13", "SPEX-7")
def test_every_tag_or_starting_after_the_committed_offset_fails(capsys, gen, records):
    assert lag.check_matching_backlog(matching_from(gen, records, every_tag=True), gen) is False
    assert "'matching'" in verdict(capsys, False)
    assert lag.check_matching_backlog(matching_from(gen, records, strict=True), gen) is False
    assert "'matching'" in verdict(capsys, False)


# --- notebook 04: duplicates ------------------------------------------------------------------------------------


def duplicate_keys_from(records: pd.DataFrame, topics: list[str] | None, by: str = "uniq_key") -> pd.DataFrame:
    chosen = records if topics is None else records[records["topic"].isin(topics)]
    table = chosen.groupby([by, "topic"], as_index=False).size().rename(columns={"size": "copies"})
    table = table[table["copies"] > 1]
    return table.rename(columns={by: "uniq_key"}) if by != "uniq_key" else table


@pytest.mark.spec("SPEX-16", "SPEX-6")
def test_duplicate_keys_from_the_manifest_are_the_keys_stored_twice(capsys, gen, records):
    answer = duplicate_keys_from(records, producer_topics(gen))
    assert len(answer) > 0
    assert duplicates.check_duplicate_keys(answer, gen) is True
    verdict(capsys, True)
    topics = set(producer_topics(gen))  # read the manifest once, not once per record
    in_store = Counter(r.uniq_key for r in stored_records(gen) if r.topic in topics)
    assert {k: (t, n) for k, (t, n) in duplicates.stored_copies(gen).items()} == {
        k: (t, in_store[k]) for k, (t, _) in duplicates.stored_copies(gen).items()
    }  # SPARK-8: the manifest's count of copies is the store's, key by key


@pytest.mark.spec("SPEX-16", "SPEX-7")
def test_duplicates_by_offset_id_or_over_every_topic_fail(capsys, gen, records):
    assert (
        duplicates.check_duplicate_keys(duplicate_keys_from(records, producer_topics(gen), by="msg_id"), gen) is False
    )
    assert "expected rows missing" in verdict(capsys, False)
    over_all = records.groupby("uniq_key", as_index=False).agg(topic=("topic", "first"), copies=("topic", "size"))
    assert duplicates.check_duplicate_keys(over_all[over_all["copies"] > 1], gen) is False
    assert "unexpected rows" in verdict(capsys, False)


def copies_from(gen: Path, records: pd.DataFrame) -> pd.DataFrame:
    keys = {r["uniq_key"] for r in duplicates.expected_duplicate_keys(gen)}
    copies = records[records["uniq_key"].isin(keys) & records["topic"].isin(producer_topics(gen))].copy()
    acked = {
        row["offset_msg_id"]
        for p in load_manifest(gen)["producers"].values()
        for row in p["messages"]
        if row.get("offset_msg_id")
    }
    copies["answered"] = copies["msg_id"].isin(acked)
    return copies[["uniq_key", "msg_id", "broker", "answered", "store_timestamp"]]


@pytest.mark.spec("SPEX-17", "SPEX-6")
def test_the_unanswered_copies_are_the_lost_responses(capsys, gen, records):
    answer = copies_from(gen, records)
    assert duplicates.check_copies(answer, gen) is True  # a store time beside the graded columns is allowed
    verdict(capsys, True)
    lost = Counter((broker, key) for broker, keys in load_manifest(gen)["lost_responses"].items() for key in keys)
    unanswered = Counter((r["broker"], r["uniq_key"]) for r in duplicates.expected_copies(gen) if not r["answered"])
    assert unanswered == lost
    first = answer.sort_values("store_timestamp").groupby("uniq_key").head(1)
    assert not first["answered"].any()  # the answer of the first copy was the one lost


@pytest.mark.spec("SPEX-17", "SPEX-7")
def test_matching_answers_by_key_or_taking_the_first_copy_fails(capsys, gen, records):
    by_key = copies_from(gen, records).assign(answered=True)
    assert duplicates.check_copies(by_key, gen) is False
    assert "'answered'" in verdict(capsys, False)
    first_copy = copies_from(gen, records).sort_values("store_timestamp")
    first_copy["answered"] = ~first_copy.duplicated("uniq_key")
    assert duplicates.check_copies(first_copy, gen) is False
    assert "'answered'" in verdict(capsys, False)


def attempts_frame(gen: Path) -> pd.DataFrame:
    return pd.DataFrame([{"group": g, **a} for g, c in load_manifest(gen)["consumers"].items() for a in c["attempts"]])


@pytest.mark.spec("SPEX-18", "SPEX-6")
def test_a_broadcasting_group_receives_each_copy_once_per_instance(capsys, gen):
    keys = {r["uniq_key"]: r["copies"] for r in duplicates.expected_duplicate_keys(gen)}
    attempts = attempts_frame(gen)
    first = attempts[attempts["uniq_key"].isin(keys) & (attempts["reconsume_times"] == 0)]
    answer = first.groupby(["group", "uniq_key"], as_index=False).size().rename(columns={"size": "deliveries"})
    assert duplicates.check_deliveries(answer, gen) is True
    verdict(capsys, True)
    instances = {c.group: c.instances for c in load_scenario("small").consumers}
    models = {g: c["model"] for g, c in load_manifest(gen)["consumers"].items()}
    rows = duplicates.expected_deliveries(gen)
    assert any(models[r["group"]] == "BROADCASTING" for r in rows)
    for r in rows:
        per_copy = instances[r["group"]] if models[r["group"]] == "BROADCASTING" else 1
        assert r["deliveries"] == keys[r["uniq_key"]] * per_copy


@pytest.mark.spec("SPEX-18", "SPEX-7")
def test_counting_instances_or_copies_instead_of_deliveries_fails(capsys, gen):
    keys = {r["uniq_key"]: r["copies"] for r in duplicates.expected_duplicate_keys(gen)}
    attempts = attempts_frame(gen)
    first = attempts[attempts["uniq_key"].isin(keys) & (attempts["reconsume_times"] == 0)]
    instances = first.groupby(["group", "uniq_key"], as_index=False)["instance"].nunique()
    assert duplicates.check_deliveries(instances.rename(columns={"instance": "deliveries"}), gen) is False
    assert "'deliveries'" in verdict(capsys, False)
    copies = first[["group", "uniq_key"]].drop_duplicates().assign(deliveries=lambda t: t["uniq_key"].map(keys))
    assert duplicates.check_deliveries(copies, gen) is False
    assert "'deliveries' at group='CG_AUDIT'" in verdict(capsys, False)


# --- notebook 05: the retry and dead-letter funnel -----------------------------------------------------------------


def sent_back(records: pd.DataFrame) -> pd.DataFrame:
    parts = records["topic"].str.extract(r"^%(?P<kind>RETRY|DLQ)%(?P<group>.+)$")
    return records.join(parts).dropna(subset=["kind"])


@pytest.mark.spec("SPEX-23", "SPEX-6")
def test_retried_and_dead_lettered_are_the_distinct_keys_of_the_group_topics(capsys, gen, records):
    table = sent_back(records)
    answer = [
        {
            "group": group,
            "retried": rows.loc[rows["kind"] == "RETRY", "uniq_key"].nunique(),
            "dead_lettered": rows.loc[rows["kind"] == "DLQ", "uniq_key"].nunique(),
        }
        for group, rows in table.groupby("group")
    ]
    assert funnel.check_group_funnel(answer, gen) is True  # SPARK-3: the store's keys are the manifest's sets
    verdict(capsys, True)


@pytest.mark.spec("SPEX-23", "SPEX-7")
def test_counting_records_or_looking_at_the_original_topic_fails(capsys, gen, records):
    table = sent_back(records)
    counted = [
        {
            "group": g,
            "retried": int((rows["kind"] == "RETRY").sum()),
            "dead_lettered": int((rows["kind"] == "DLQ").sum()),
        }
        for g, rows in table.groupby("group")
    ]
    assert funnel.check_group_funnel(counted, gen) is False
    assert "wrong values (first: 'retried' at group='CG_BILLING'" in verdict(capsys, False)
    original = records[records["topic"].isin(producer_topics(gen)) & (records["reconsume_times"] > 0)]
    assert funnel.check_group_funnel(original, gen) is False  # no rows, and not even a group column
    assert "missing columns 'group', 'retried', 'dead_lettered'" in verdict(capsys, False)


def ladder_from(records: pd.DataFrame, *, shift: int = 0, dlq: bool = True) -> pd.DataFrame:
    pattern = r"^%(?:RETRY|DLQ)%" if dlq else r"^%RETRY%"
    chosen = records[records["topic"].str.contains(pattern)]
    table = chosen.groupby(["topic", "reconsume_times"], as_index=False).size().rename(columns={"size": "records"})
    return table.assign(reconsume_times=table["reconsume_times"] + shift)


@pytest.mark.spec("SPEX-24", "SPEX-6")
def test_each_failed_attempt_is_one_record_one_rung_up(capsys, gen, records):
    assert funnel.check_retry_records(ladder_from(records), gen) is True
    verdict(capsys, True)
    rows = funnel.expected_retry_records(gen)
    max_times = load_manifest(gen)["consumers"]["CG_BILLING"]["max_reconsume_times"]
    assert {r["reconsume_times"] for r in rows if r["topic"].startswith("%DLQ%")} == {max_times + 1}


@pytest.mark.spec("SPEX-24", "SPEX-7")
def test_the_attempts_own_count_or_a_ladder_without_its_dead_letters_fails(capsys, gen, records):
    assert funnel.check_retry_records(ladder_from(records, shift=-1), gen) is False
    assert "expected rows missing" in verdict(capsys, False)
    assert funnel.check_retry_records(ladder_from(records, dlq=False), gen) is False
    assert "1 of 3 expected rows missing (first: topic='%DLQ%CG_BILLING'" in verdict(capsys, False)


def parked_from(records: pd.DataFrame, destination: str = "real_topic", level: str = "delay") -> pd.DataFrame:
    chosen = records[records["topic"] == "SCHEDULE_TOPIC_XXXX"]
    table = chosen.groupby([destination, level], as_index=False).size()
    return table.rename(columns={destination: "real_topic", level: "delay_level", "size": "records"})


@pytest.mark.spec("SPEX-25", "SPEX-6")
def test_the_schedule_topic_holds_delayed_messages_and_retries_at_their_levels(capsys, gen, records):
    assert funnel.check_schedule_records(parked_from(records), gen) is True
    verdict(capsys, True)
    levels = {(r["real_topic"], r["delay_level"]) for r in funnel.expected_schedule_records(gen)}
    assert {lvl for topic, lvl in levels if topic.startswith("%RETRY%")} == {3, 4}  # 3 + reconsume_times


@pytest.mark.spec("SPEX-25", "SPEX-7")
def test_the_queue_id_as_level_or_the_origin_as_destination_fails(capsys, gen, records):
    assert funnel.check_schedule_records(parked_from(records, level="queue_id"), gen) is False
    verdict(capsys, False)
    assert funnel.check_schedule_records(parked_from(records, destination="retry_topic"), gen) is False
    verdict(capsys, False)


@pytest.mark.spec("SPEX-6")
def test_references_follow_the_generated_directory_not_a_stored_answer(gen, tmp_path):
    other = tmp_path / "seed8"
    generate_store(load_scenario("small", seed=8), other)
    for reference in (
        lag.expected_consumer_progress,
        duplicates.expected_duplicate_keys,
        funnel.expected_retry_records,
        funnel.expected_schedule_records,
    ):
        assert reference(other) != reference(gen), reference.__name__
    with pytest.raises(GeneratedDirError, match=r"manifest\.json not found"):
        lag.expected_consumer_progress(tmp_path / "nothing")


# --- the notebooks ------------------------------------------------------------------------------------------------


@pytest.mark.spec("SPEX-8")
@pytest.mark.parametrize("number", sorted(NOTEBOOKS))
def test_each_notebook_asks_graded_questions_with_folded_solutions(number):
    path, checker = NOTEBOOKS[number]
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells]
    assert 'load_scenario("small")' in sources[1]
    ignored = [i for i, s in enumerate(sources) if "NBVAL_IGNORE_OUTPUT" in s]
    assert len(ignored) == 1 and "spark_session(" in sources[ignored[0]]
    questions = [
        i
        for i, c in enumerate(cells)
        if "exercise" in c["metadata"].get("tags", [])
        and f"_ = {checker}check_" in sources[i]
        and "(answer," in sources[i]
    ]
    assert len(questions) >= 3

    def shown(cell):
        return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))

    for i in questions:  # blank answer and its check, the folded explanation, then the solution graded
        assert "answer = ...  # your DataFrame: " in sources[i] and shown(cells[i]).endswith(": not answered yet\n")
        assert cells[i + 1]["cell_type"] == "markdown"
        assert sources[i + 1].startswith("<details><summary>Solution</summary>")
        assert "solution" in cells[i + 2]["metadata"].get("tags", []) and f"_ = {checker}check_" in sources[i + 2]
        assert shown(cells[i + 2]).startswith("✓ ") and ": correct\n" in shown(cells[i + 2]), shown(cells[i + 2])

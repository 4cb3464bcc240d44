"""Notebook ``spark/04``: duplicates by UNIQ_KEY, which copy the producer heard about, and who received them.

Java: none (teaching helper). A message is stored twice under one UNIQ_KEY when a broker stores a send but its answer
is lost: ``DefaultMQProducerImpl#sendDefaultImpl`` gives up once ``sendMsgTimeout`` is spent, and an application
that sends the same ``Message`` again keeps its UNIQ_KEY (``MessageClientIDSetter#setUniqID`` sets it only once). The
ground truth is the manifest: ``lost_responses`` lists each stored but unanswered send per broker, and a producer
row's ``status`` and ``offset_msg_id`` name the copy that was answered (``docs/spec/spark-pipeline.md``, SPARK-8).

Only the producers' topics count: a retried message keeps its UNIQ_KEY in ``%RETRY%``, ``SCHEDULE_TOPIC_XXXX`` and
``%DLQ%`` topics, and a delayed one in ``SCHEDULE_TOPIC_XXXX``, which are not duplicates of the message.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from mqlab.labs.spark import load_manifest, stored_records
from mqlab.labs.spark.grading import grade_table


def _answered(row: dict[str, Any]) -> bool:
    """Whether the producer got a SendResult for this message (a status that is no ``ERROR ...``)."""
    status = row.get("status")
    return status is not None and not str(status).startswith("ERROR")


def stored_copies(root: str | Path) -> dict[str, tuple[str, int]]:
    """UNIQ_KEY → ``(topic, copies)``: how many times the brokers stored each producer message, from the manifest.

    A message is stored once per lost answer (``lost_responses``), plus once if a send of it was answered or it went
    oneway (a oneway send gets no answer, but the broker stores it).
    """
    manifest = load_manifest(root)
    lost = Counter(key for keys in manifest["lost_responses"].values() for key in keys)
    copies: dict[str, tuple[str, int]] = {}
    for producer in manifest["producers"].values():
        for row in producer["messages"]:
            stored = lost[row["uniq_key"]] + (1 if _answered(row) or row["mode"] == "oneway" else 0)
            topic, before = copies.get(row["uniq_key"], (producer["topic"], 0))
            copies[row["uniq_key"]] = (topic, before + stored)
    return copies


def expected_duplicate_keys(root: str | Path) -> list[dict[str, Any]]:
    """The UNIQ_KEYs stored more than once in a producer's topic: ``uniq_key``, ``topic``, ``copies``."""
    return [
        {"uniq_key": key, "topic": topic, "copies": copies}
        for key, (topic, copies) in sorted(stored_copies(root).items())
        if copies > 1
    ]


def expected_copies(root: str | Path) -> list[dict[str, Any]]:
    """Every stored copy of a duplicated key: ``uniq_key``, ``msg_id`` (offset id), ``broker``, ``answered``.

    ``answered`` is whether that copy's offset message id is the one the producer's SendResult named; the others are
    the copies whose answers were lost. The copies are read from the CommitLog files, the answers from the manifest.
    """
    duplicated = {row["uniq_key"]: row["topic"] for row in expected_duplicate_keys(root)}
    answered_ids = {
        row["offset_msg_id"]
        for producer in load_manifest(root)["producers"].values()
        for row in producer["messages"]
        if row["uniq_key"] in duplicated and _answered(row)
    }
    return [
        {"uniq_key": r.uniq_key, "msg_id": r.msg_id, "broker": r.broker, "answered": r.msg_id in answered_ids}
        for r in stored_records(root)
        if r.uniq_key in duplicated and r.topic == duplicated[r.uniq_key]
    ]


def expected_deliveries(root: str | Path) -> list[dict[str, Any]]:
    """How often each group's listeners got a duplicated key for the first time (``reconsume_times`` 0).

    Columns ``group``, ``uniq_key``, ``deliveries``; only groups and keys with at least one such delivery. A
    CLUSTERING group receives each stored copy once (in its queue); a BROADCASTING group receives it once per instance.
    """
    duplicated = {row["uniq_key"] for row in expected_duplicate_keys(root)}
    counts: Counter[tuple[str, str]] = Counter()
    for group, consumer in load_manifest(root)["consumers"].items():
        for attempt in consumer["attempts"]:
            if attempt["uniq_key"] in duplicated and attempt["reconsume_times"] == 0:
                counts[group, attempt["uniq_key"]] += 1
    return [{"group": g, "uniq_key": k, "deliveries": n} for (g, k), n in sorted(counts.items())]


def check_duplicate_keys(answer: Any, root: str | Path) -> bool:
    """Grade the UNIQ_KEYs stored more than once (key ``uniq_key``; columns ``topic``, ``copies``)."""
    return grade_table(
        answer,
        expected_duplicate_keys(root),
        name="duplicate keys",
        key="uniq_key",
        hint="group the producers' topics by uniq_key (the producer's id; msg_id differs for every stored record) "
        "and keep the keys stored more than once; %RETRY%, %DLQ% and SCHEDULE_TOPIC_XXXX copies are not duplicates",
    )


def check_copies(answer: Any, root: str | Path) -> bool:
    """Grade every stored copy of a duplicated key (key ``uniq_key``, ``msg_id``; columns ``broker``, ``answered``).

    Other columns (a store time to order the copies by) may stay in the answer.
    """
    return grade_table(
        answer,
        expected_copies(root),
        name="copies and answers",
        key=("uniq_key", "msg_id"),
        columns=("broker", "answered"),
        hint="the producer's log names the answered copy by its offset_msg_id; match it with each copy's msg_id",
    )


def check_deliveries(answer: Any, root: str | Path) -> bool:
    """Grade first-time deliveries of the duplicated keys (key ``group``, ``uniq_key``; column ``deliveries``)."""
    return grade_table(
        answer,
        expected_deliveries(root),
        name="deliveries of duplicates",
        key=("group", "uniq_key"),
        hint="count the attempts with reconsume_times = 0 (a retry is no new delivery of a copy), per group and key",
    )

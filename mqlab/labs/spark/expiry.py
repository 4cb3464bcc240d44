"""Spark exercises on file expiry (``spark/07-expiry-what-if.ipynb``): which segments a cleaning pass would delete.

Java: none (teaching layer). The rule is ``MappedFileQueue#deleteExpiredFileByTime`` as
``docs/spec/store-cleaning.md`` states it (CLEAN-3, CLEAN-4): a segment is expired when
``now >= lastModified + fileReservedTime``, where ``lastModified`` is the time of the segment's **last write** (the
file's mtime; mqlab stamps the virtual time of the last append on the file when it flushes). The last write of a full
segment is its blank record, written when the next message no longer fitted, at that message's store time: the
first store timestamp of the *next* segment, not the last one of the segment itself. The scan starts at the oldest
segment, never considers the last one, stops at the first segment that is not expired, takes at most 10 per pass
and reads the clock again for each segment (after a 100 ms pause per deletion).

A consumer loses what lies in deleted segments beyond the offset it committed, and only what it would have received
(a tag-filtered group never receives the other tags anyway). The references read the files with plain Python.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mqlab.labs.spark.delay import StoredRecord, broker_records, load_manifest, store_dir
from mqlab.labs.spark.grading import grade_table
from mqlab.remoting.protocol import remoting_serializable
from mqlab.spark.segment_reader import find_commitlog_segments
from mqlab.store.mapped_file_queue import DELETE_FILES_BATCH_MAX

DELETE_PAUSE_MS = 100  # deleteCommitLogFilesInterval: the pause after each deletion but the last candidate's
HOUR_MS = 3_600_000


def segment_table(out_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Per broker and CommitLog segment: records, first and last store timestamps and the file's mtime (epoch ms)."""
    rows = []
    for broker in load_manifest(out_dir)["brokers"]:
        store = store_dir(out_dir, broker)
        stamps: dict[str, list[int]] = {}
        for r in broker_records(store, broker):
            stamps.setdefault(r.segment, []).append(r.store_timestamp)
        for segment in find_commitlog_segments(store):
            times = stamps.get(segment.name, [])
            rows.append(
                {
                    "broker": broker,
                    "segment": segment.name,
                    "records": len(times),
                    "first_store_ms": min(times, default=None),
                    "last_store_ms": max(times, default=None),
                    "last_modified_ms": os.stat(segment.path).st_mtime_ns // 1_000_000,
                }
            )
    return rows


def expired_segments(
    out_dir: str | os.PathLike[str], *, now_ms: int, file_reserved_time_ms: int
) -> list[dict[str, Any]]:
    """The segments one pass of ``deleteExpiredFileByTime`` at ``now_ms`` would delete: rows ``broker``, ``segment``.

    Raises:
        ValueError: a negative ``file_reserved_time_ms``.
    """
    if file_reserved_time_ms < 0:
        raise ValueError(f"file_reserved_time_ms must be >= 0, got {file_reserved_time_ms}")
    by_broker: dict[str, list[dict[str, Any]]] = {}
    for row in segment_table(out_dir):
        by_broker.setdefault(row["broker"], []).append(row)
    deleted = []
    for broker, segments in by_broker.items():
        for count, row in enumerate(segments[:-1], start=1):  # never the last segment, the one being written
            clock = now_ms + (count - 1) * DELETE_PAUSE_MS  # the clock moves on during the pauses
            if clock < row["last_modified_ms"] + file_reserved_time_ms:
                break  # the first young segment ends the scan
            deleted.append({"broker": broker, "segment": row["segment"]})
            if count >= DELETE_FILES_BATCH_MAX:
                break
    return deleted


def check_expired_segments(
    answer: Any, out_dir: str | os.PathLike[str], *, now_ms: int, file_reserved_time_ms: int
) -> bool:
    """Grade exercise 1: the (broker, segment) rows a pass would delete (other columns are allowed)."""
    return grade_table(
        answer,
        expired_segments(out_dir, now_ms=now_ms, file_reserved_time_ms=file_reserved_time_ms),
        name="expired segments",
        key=("broker", "segment"),
        columns=(),
        hint="a segment's age counts from its LAST WRITE (its blank record, written with the next segment's first "
        "message); the scan stops at the first young segment and never takes the last one",
    )


# -- what a consumer group loses -------------------------------------------------------------------------------
def _kept_from(out_dir: str | os.PathLike[str], deleted: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Broker → CommitLog offset below which everything is deleted (the start of the first segment left)."""
    gone = {(d["broker"], d["segment"]) for d in deleted}
    kept: dict[str, int] = {}
    for row in segment_table(out_dir):
        if (row["broker"], row["segment"]) not in gone:
            kept.setdefault(row["broker"], int(row["segment"]))
    return kept


def subscribed_tags(subscription: str, topic: str) -> list[str] | None:
    """The tags a subscription expression (``*`` or ``TagA || TagB``) lets through, ``None`` for all.

    A group's retry topic (``%RETRY%<group>``) is always subscribed with ``*``.
    """
    if subscription.strip() in ("", "*") or topic.startswith("%RETRY%"):
        return None
    return sorted(t.strip() for t in subscription.split("||"))


def _subscribed(record: StoredRecord, subscription: str) -> bool:
    tags = subscribed_tags(subscription, record.topic)
    return tags is None or record.tags in tags


def _losses(
    records: list[StoredRecord], kept: dict[str, int], offsets: dict[tuple[str, str, int], int], subscription: str
) -> Counter[tuple[str, str, int]]:
    lost: Counter[tuple[str, str, int]] = Counter()
    for r in records:
        where = (r.broker, r.topic, r.queue_id)
        beyond = where in offsets and r.queue_offset >= offsets[where]
        if beyond and r.physical_offset < kept.get(r.broker, 0) and _subscribed(r, subscription):
            lost[where] += 1
    return lost


def committed_offsets(out_dir: str | os.PathLike[str]) -> dict[str, dict[tuple[str, str, int], int]]:
    """Clustering group → (broker, topic, queue_id) → committed offset, from each broker's consumerOffset.json."""
    table: dict[str, dict[tuple[str, str, int], int]] = {}
    for broker in load_manifest(out_dir)["brokers"]:
        text = (store_dir(out_dir, broker) / "config" / "consumerOffset.json").read_text(encoding="utf-8")
        for topic_at_group, queues in (remoting_serializable.from_json(text) or {}).get("offsetTable", {}).items():
            topic, _, group = str(topic_at_group).partition("@")
            for queue_id, offset in queues.items():
                table.setdefault(group, {})[(broker, topic, int(queue_id))] = int(offset)
    return table


def group_losses(
    out_dir: str | os.PathLike[str], subscriptions: dict[str, str], *, now_ms: int, file_reserved_time_ms: int
) -> list[dict[str, Any]]:
    """Per clustering group and queue: messages a pass would delete before the group consumed them.

    Only queues that lose at least one message are listed. Rows: ``group``, ``broker``, ``topic``, ``queue_id``,
    ``lost``. ``subscriptions`` maps a group to its subscription expression (its retry topic is always ``*``).
    """
    deleted = expired_segments(out_dir, now_ms=now_ms, file_reserved_time_ms=file_reserved_time_ms)
    kept = _kept_from(out_dir, deleted)
    records = [r for b in load_manifest(out_dir)["brokers"] for r in broker_records(store_dir(out_dir, b), b)]
    rows = []
    for group, offsets in sorted(committed_offsets(out_dir).items()):
        lost = _losses(records, kept, offsets, subscriptions.get(group, "*"))
        rows += [
            {"group": group, "broker": b, "topic": t, "queue_id": q, "lost": n} for (b, t, q), n in sorted(lost.items())
        ]
    return rows


def check_group_losses(
    answer: Any,
    out_dir: str | os.PathLike[str],
    subscriptions: dict[str, str],
    *,
    now_ms: int,
    file_reserved_time_ms: int,
) -> bool:
    """Grade exercise 2: messages lost per clustering group and queue (rows with ``lost`` > 0)."""
    return grade_table(
        answer,
        group_losses(out_dir, subscriptions, now_ms=now_ms, file_reserved_time_ms=file_reserved_time_ms),
        name="messages lost per group and queue",
        key=("group", "broker", "topic", "queue_id"),
        hint="lost = in a deleted segment AND at or after the committed offset AND matching the group's tags",
    )


def broadcasting_offsets(out_dir: str | os.PathLike[str], group: str) -> dict[str, dict[tuple[str, str, int], int]]:
    """Client id → (broker, topic, queue_id) → offset, from each instance's local ``offsets.json``."""
    table: dict[str, dict[tuple[str, str, int], int]] = {}
    for path in sorted((Path(out_dir) / "clients").glob(f"*/{group}/offsets.json")):
        data = remoting_serializable.from_json(path.read_text(encoding="utf-8")) or {}
        for queue, offset in data.get("offsetTable", {}).items():
            mq = dict(queue)
            table.setdefault(path.parent.parent.name, {})[(mq["brokerName"], mq["topic"], mq["queueId"])] = offset
    return table


def instance_losses(
    out_dir: str | os.PathLike[str], group: str, subscription: str, *, now_ms: int, file_reserved_time_ms: int
) -> dict[str, int]:
    """Client id → messages a broadcasting instance would lose (its offsets live in its own file, not the broker)."""
    deleted = expired_segments(out_dir, now_ms=now_ms, file_reserved_time_ms=file_reserved_time_ms)
    kept = _kept_from(out_dir, deleted)
    records = [r for b in load_manifest(out_dir)["brokers"] for r in broker_records(store_dir(out_dir, b), b)]
    return {
        client: sum(_losses(records, kept, offsets, subscription).values())
        for client, offsets in broadcasting_offsets(out_dir, group).items()
    }

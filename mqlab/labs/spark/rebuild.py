"""Notebook ``spark/09``: rebuild a crashed broker's ConsumeQueues from its CommitLog and diff them with its own.

Java: none (teaching helper). What is rebuilt is what ``ReputMessageService`` dispatches and what abnormal recovery
re-dispatches (``CommitLog#recoverAbnormally`` → ``DefaultMessageStore#doDispatch``): one unit per message record,
at ``(topic, queue_id, queue_offset)`` with the record's CommitLog offset and size. The ``faults`` scenario ends
with ``broker-a`` crashed by a power loss and never restarted, so its ConsumeQueue files are what the crash left.

Each ``check_*`` grades a reader's table and prints one line (:func:`mqlab.labs.spark.grading.grade_table`); each
reference is a function of the generated directory: the manifest's crash account, or the store's files read with
plain Python (:mod:`mqlab.spark.segment_reader`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mqlab.labs.spark import GeneratedDirError, broker_store, load_manifest
from mqlab.labs.spark.grading import grade_table
from mqlab.spark.generate_faults import read_commit_log, read_units

CRASHED = "broker-a"  # the faults scenario's broker that the run ends with down


def rebuilt_units(root: str | Path, broker: str = CRASHED) -> list[dict[str, Any]]:
    """One unit per CommitLog record on disk.

    Columns ``topic``, ``queue_id``, ``queue_offset``, ``commit_log_offset``, ``size``.

    Java: CommitLogDispatcherBuildConsumeQueue#dispatch (the unit's fields come from the record's own)
    """
    records, _ = read_commit_log(broker_store(root, broker))
    return [
        {
            "topic": r.topic,
            "queue_id": r.queue_id,
            "queue_offset": r.queue_offset,
            "commit_log_offset": r.offset,
            "size": r.size,
        }
        for r in records
    ]


def final_crash(root: str | Path, broker: str = CRASHED) -> dict[str, Any]:
    """The manifest's account of the crash ``broker`` never recovered from.

    Raises:
        GeneratedDirError: the run did not end with that broker crashed (not the ``faults`` scenario).
    """
    for crash in load_manifest(root).get("crashes", []):
        if crash["broker"] == broker and crash["restarted_at_ms"] is None:
            return crash
    raise GeneratedDirError(f"the run did not end with {broker!r} crashed: generate the faults scenario")


def undispatched(root: str | Path, broker: str = CRASHED) -> list[dict[str, Any]]:
    """Records on disk without a ConsumeQueue unit (the manifest's ``left_on_disk.undispatched``).

    Columns ``topic``, ``queue_id``, ``queue_offset``, ``physical_offset``, ``uniq_key``.
    """
    return [
        {
            "topic": r["topic"],
            "queue_id": r["queue_id"],
            "queue_offset": r["queue_offset"],
            "physical_offset": r["offset"],
            "uniq_key": r["uniq_key"],
        }
        for r in final_crash(root, broker)["left_on_disk"]["undispatched"]
    ]


def queue_gaps(root: str | Path, broker: str = CRASHED) -> list[dict[str, Any]]:
    """Per queue with records on disk, how far the store's ConsumeQueue ends before the CommitLog.

    Columns ``topic``, ``queue_id``, ``cq_max_offset`` (one past the store's last unit, 0 with none),
    ``cl_max_offset`` (one past the last record's queue offset) and ``missing`` (their difference).

    Max offsets, not counts: the cleaning services deleted the oldest CommitLog segments and ConsumeQueue files, and
    did not delete both at the same point, so counting rows compares two different spans of the queue.
    """
    cq_max: dict[tuple[str, int], int] = {}
    for (topic, queue_id, queue_offset), _ in read_units(broker_store(root, broker)).items():
        cq_max[(topic, queue_id)] = max(cq_max.get((topic, queue_id), 0), queue_offset + 1)
    cl_max: dict[tuple[str, int], int] = {}
    for unit in rebuilt_units(root, broker):
        key = (unit["topic"], unit["queue_id"])
        cl_max[key] = max(cl_max.get(key, 0), unit["queue_offset"] + 1)
    return [
        {
            "topic": topic,
            "queue_id": queue_id,
            "cq_max_offset": cq_max.get((topic, queue_id), 0),
            "cl_max_offset": end,
            "missing": end - cq_max.get((topic, queue_id), 0),
        }
        for (topic, queue_id), end in sorted(cl_max.items())
    ]


def check_rebuilt_units(answer: Any, root: str | Path, broker: str = CRASHED) -> bool:
    """Grade the ConsumeQueue units rebuilt from the crashed broker's CommitLog."""
    return grade_table(
        answer,
        rebuilt_units(root, broker),
        name="rebuilt ConsumeQueue units",
        key=("topic", "queue_id", "queue_offset"),
        columns=("commit_log_offset", "size"),
        hint="every message record gives one unit, whatever its topic (retry and schedule topics too); "
        "commit_log_offset is the record's physical_offset and size its total_size",
    )


def check_undispatched(answer: Any, root: str | Path, broker: str = CRASHED) -> bool:
    """Grade the records the crash left without a ConsumeQueue unit."""
    return grade_table(
        answer,
        undispatched(root, broker),
        name="undispatched records",
        key=("topic", "queue_id", "queue_offset"),
        columns=("physical_offset", "uniq_key"),
        hint="a left anti join of the rebuilt units with the store's units on (topic, queue_id, queue_offset); "
        "matching on commit_log_offset alone misses nothing here but would hide a unit pointing at another record",
    )


def check_queue_gaps(answer: Any, root: str | Path, broker: str = CRASHED) -> bool:
    """Grade the per-queue comparison of the store's ConsumeQueue ends with the CommitLog's."""
    return grade_table(
        answer,
        queue_gaps(root, broker),
        name="queue gaps",
        key=("topic", "queue_id"),
        columns=("cq_max_offset", "cl_max_offset", "missing"),
        hint="use max(queue_offset) + 1 on each side, not count(*): expiry removed the queue's oldest units and "
        "records at different points",
    )

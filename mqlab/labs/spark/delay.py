"""Spark exercises on delayed messages (``spark/06-delayed-messages.ipynb``): references and checkers.

Java: none (teaching layer). The facts graded here are those of ``ScheduleMessageService`` in RocketMQ 4.9.3
(``docs/spec/store-delay-messages.md``): a delayed message is stored twice, first *parked* in queue ``level - 1`` of
``SCHEDULE_TOPIC_XXXX`` (its ConsumeQueue unit's tags code is the deliver time), then, when a timer task finds it due,
*delivered* as a new record in the topic named by its ``REAL_TOPIC`` property. The delivered copy keeps the
properties string of the parked record (``DELAY`` included), its UNIQ_KEY and its born timestamp; only the store
timestamp is new. ``config/delayOffset.json`` records, per level, the schedule-queue offset a restart starts from.

Every reference here is computed from a directory written by ``mqlab gen-store`` (or one store) with plain Python
(:mod:`mqlab.spark.segment_reader`), never with Spark, and every checker prints one verdict line.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqlab.common.message.message_const import PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX as UNIQ_KEY
from mqlab.common.message.message_decoder import string2message_properties
from mqlab.common.topic.topic_validator import RMQ_SYS_SCHEDULE_TOPIC
from mqlab.labs.spark.grading import grade_table
from mqlab.spark.segment_reader import (
    find_commitlog_segments,
    find_consume_queue_files,
    iter_consume_queue_units,
    iter_segment_records,
)
from mqlab.store.schedule.delay_offset_serialize_wrapper import DelayOffsetSerializeWrapper

DELAY = "DELAY"
REAL_TOPIC = "REAL_TOPIC"


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """One CommitLog record of a broker's store, as the exercises need it (timestamps in epoch ms)."""

    broker: str
    segment: str
    physical_offset: int
    topic: str
    queue_id: int
    queue_offset: int
    born_timestamp: int
    store_timestamp: int
    properties: Mapping[str, str]

    @property
    def uniq_key(self) -> str | None:
        """The producer's UNIQ_KEY property."""
        return self.properties.get(UNIQ_KEY)

    @property
    def tags(self) -> str | None:
        """The TAGS property."""
        return self.properties.get("TAGS")


def load_manifest(out_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``manifest.json`` that ``mqlab gen-store`` wrote into ``out_dir``.

    Raises:
        FileNotFoundError: ``out_dir`` has no manifest (not a generated directory).
    """
    path = Path(out_dir) / "manifest.json"
    if not path.is_file():
        raise FileNotFoundError(f"no manifest.json in {os.fspath(out_dir)!r}: not a directory written by gen-store")
    return json.loads(path.read_text(encoding="utf-8"))


def store_dir(out_dir: str | os.PathLike[str], broker: str) -> Path:
    """The store root of ``broker`` in a generated directory."""
    return Path(out_dir) / broker / "store"


def broker_records(store: str | os.PathLike[str], broker: str) -> Iterator[StoredRecord]:
    """Every message record of one store, in CommitLog order."""
    for segment in find_commitlog_segments(store):
        for r in iter_segment_records(segment):
            yield StoredRecord(
                broker=broker,
                segment=segment.name,
                physical_offset=r.physical_offset,
                topic=r.topic.decode(),
                queue_id=r.queue_id,
                queue_offset=r.queue_offset,
                born_timestamp=r.born_timestamp,
                store_timestamp=r.store_timestamp,
                properties=string2message_properties(r.properties.decode(), dict),
            )


def stored_records(out_dir: str | os.PathLike[str]) -> list[StoredRecord]:
    """Every record of every broker of a generated directory (brokers in the manifest's order)."""
    return [r for b in load_manifest(out_dir)["brokers"] for r in broker_records(store_dir(out_dir, b), b)]


def _due_times(store: Path) -> dict[int, int]:
    """CommitLog offset → tags code of each ``SCHEDULE_TOPIC_XXXX`` unit: the deliver time the broker computed."""
    return {
        commit_log_offset: tags_code
        for f in find_consume_queue_files(store)
        if f.topic == RMQ_SYS_SCHEDULE_TOPIC
        for _, commit_log_offset, _, tags_code in iter_consume_queue_units(f)
    }


def _is_delivery(r: StoredRecord) -> bool:
    """A copy the timer delivered: outside the schedule topic, with DELAY, in the topic its REAL_TOPIC names.

    (A dead-lettered retry also carries a stale DELAY, but sits in ``%DLQ%<group>``, not in its REAL_TOPIC.)
    """
    return r.topic != RMQ_SYS_SCHEDULE_TOPIC and DELAY in r.properties and r.properties.get(REAL_TOPIC) == r.topic


# -- exercise 1: scheduled against delivered -------------------------------------------------------------------
def _delivery_key(r: StoredRecord) -> tuple[Any, ...]:
    """What a parked record and its delivered copy have in common.

    A retried message comes back with the same UNIQ_KEY and born timestamp, but in ``%RETRY%<group>`` and at another
    level, so REAL_TOPIC and DELAY belong to the key.
    """
    return r.uniq_key, r.born_timestamp, r.properties.get(REAL_TOPIC), r.properties.get(DELAY)


def delivery_lateness(out_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Per delay level, the producers' delayed messages: how late the timer delivered them.

    A producer's delayed message is a parked record whose REAL_TOPIC is a producer's topic (consumer retries are
    parked too, with ``%RETRY%<group>``). Its due time is its unit's tags code (store time + the level's delay),
    its delivery the store time of the copy with the same broker, UNIQ_KEY, born timestamp, REAL_TOPIC and DELAY;
    ``late_ms`` is delivery - due; a parked record without a copy (or without its unit) is left out. Rows:
    ``delay_level``, ``messages``, ``delay_ms`` (due - parked store time), ``min_late_ms``, ``max_late_ms``.
    """
    manifest = load_manifest(out_dir)
    topics = {p["topic"] for p in manifest["producers"].values()}
    rows: dict[int, dict[str, Any]] = {}
    for broker in manifest["brokers"]:
        store = store_dir(out_dir, broker)
        due = _due_times(store)
        records = list(broker_records(store, broker))
        delivered = {_delivery_key(r): r.store_timestamp for r in records if _is_delivery(r)}
        for r in records:
            if r.topic != RMQ_SYS_SCHEDULE_TOPIC or r.properties.get(REAL_TOPIC) not in topics:
                continue
            if r.physical_offset not in due or _delivery_key(r) not in delivered:
                continue  # not delivered (yet), or its unit was lost with a crash: no lateness to measure
            level, deliver_at = int(r.properties[DELAY]), due[r.physical_offset]
            late = delivered[_delivery_key(r)] - deliver_at
            row = rows.setdefault(
                level,
                {"delay_level": level, "messages": 0, "delay_ms": deliver_at - r.store_timestamp},
            )
            row["messages"] += 1
            row["min_late_ms"] = min(row.get("min_late_ms", late), late)
            row["max_late_ms"] = max(row.get("max_late_ms", late), late)
    return [rows[level] for level in sorted(rows)]


def check_delivery_lateness(answer: Any, out_dir: str | os.PathLike[str]) -> bool:
    """Grade the lateness table of exercise 1 (one row per delay level)."""
    return grade_table(
        answer,
        delivery_lateness(out_dir),
        name="delivery lateness per level",
        key="delay_level",
        hint="due = the parked record's store time + the level's delay (its unit's tags code); delivered = the store "
        "time of the copy in the real topic, matched by UNIQ_KEY and born timestamp; only the producers' topics",
    )


# -- exercise 2: what delayOffset.json would deliver again -----------------------------------------------------
def read_delay_offsets(store: str | os.PathLike[str]) -> dict[int, int]:
    """Level → recorded offset from a store's ``config/delayOffset.json`` (fastjson, bare integer keys)."""
    path = Path(store) / "config" / "delayOffset.json"
    wrapper = DelayOffsetSerializeWrapper.from_json(path.read_text(encoding="utf-8"))
    return dict(wrapper.offset_table) if wrapper is not None else {}


def restart_redeliveries(out_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Per broker and level of ``delayOffset.json``: what a restart from the file would deliver a second time.

    A level's timer chain starts again at the recorded offset. Each level's queue is delivered in order, so the
    units ``0 .. delivered - 1`` are done, where ``delivered`` counts the copies delivered from that level; the
    units from the recorded offset up to there go out again. Rows: ``broker``, ``delay_level``,
    ``recorded_offset``, ``delivered``, ``redelivered`` (= max(0, delivered - recorded_offset)).

    The copies are counted in the CommitLog, so this holds for a store that has not deleted expired segments yet
    (the ``small`` scenario never does).
    """
    rows = []
    for broker in load_manifest(out_dir)["brokers"]:
        store = store_dir(out_dir, broker)
        copies = Counter(int(r.properties[DELAY]) for r in broker_records(store, broker) if _is_delivery(r))
        for level, recorded in sorted(read_delay_offsets(store).items()):
            delivered = copies[level]
            rows.append(
                {
                    "broker": broker,
                    "delay_level": level,
                    "recorded_offset": recorded,
                    "delivered": delivered,
                    "redelivered": max(0, delivered - recorded),
                }
            )
    return rows


def check_restart_redeliveries(answer: Any, out_dir: str | os.PathLike[str]) -> bool:
    """Grade exercise 2's table (one row per broker and level of ``delayOffset.json``)."""
    return grade_table(
        answer,
        restart_redeliveries(out_dir),
        name="re-deliveries after a restart",
        key=("broker", "delay_level"),
        hint="a level restarts AT the recorded offset; every unit from there that was already delivered goes again",
    )


# -- exercise 3: a crash between two persists ------------------------------------------------------------------
def redelivered_copies(store: str | os.PathLike[str], topic: str) -> int:
    """How many records of ``topic`` repeat a UNIQ_KEY already stored in it (second and later copies)."""
    counts = Counter(r.uniq_key for r in broker_records(store, "") if r.topic == topic)
    return sum(n - 1 for n in counts.values())


def delivered_by_level(store: str | os.PathLike[str]) -> dict[int, int]:
    """Level → copies delivered so far from that level (records outside the schedule topic that the timer wrote)."""
    counts: defaultdict[int, int] = defaultdict(int)
    for r in broker_records(store, ""):
        if _is_delivery(r):
            counts[int(r.properties[DELAY])] += 1
    return dict(sorted(counts.items()))

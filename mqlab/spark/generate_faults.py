"""The scenario generator's store faults: broker crashes with abnormal recovery, and segments deleted by expiry.

Java: none (teaching helper). Nothing here re-implements a fault. A crash is the chaos harness's own
(``ChaosRun.crash_broker`` and ``ChaosRun.restart_broker`` from ``mqlab.chaos.workload``: the process dies, with
``simulate_crash`` dropping the unflushed pages on a power loss; the new process runs the store's abnormal recovery).
Expiry is the store's own ``CleanCommitLogService`` and ``CleanConsumeQueueService`` on their schedule, configured
through ``fileReservedTime`` and ``deleteWhen``. What this module adds is the bookkeeping: it reads the store files
before and after each step (with ``mqlab.spark.segment_reader``, as an exercise would) and writes down, in the
manifest, what the fault destroyed, what recovery cut, re-dispatched or quarantined, and what consumers saw twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqlab.chaos.workload import ChaosRun
from mqlab.cluster import BrokerNode, Cluster
from mqlab.common.message import message_const
from mqlab.common.message.message_decoder import string2message_properties
from mqlab.common.message.message_errors import MessageFormatError
from mqlab.spark.segment_reader import (
    find_commitlog_segments,
    find_consume_queue_files,
    iter_consume_queue_units,
    iter_segment_records,
)
from mqlab.store.quarantine import quarantine_root

CRASH_KINDS = ("process", "power")
SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX"


@dataclass(frozen=True, slots=True)
class CrashSpec:
    """One broker crash: when, how, and whether (and when) a new broker process starts on the same store."""

    broker: str
    at_s: float
    kind: str = "process"  # "process": the page cache survives; "power": unflushed pages are lost
    restart_after_s: float | None = None  # None: the run ends with the broker down


# -- reading a store's files -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Rec:
    """A CommitLog record as the bookkeeping needs it."""

    offset: int
    size: int
    topic: str
    queue_id: int
    queue_offset: int
    uniq_key: str | None
    store_timestamp: int
    real_topic: str | None  # set on a message the ScheduleMessageService (or a retry) delivered
    reconsume_times: int

    def row(self) -> dict[str, Any]:
        """The manifest's view of the record."""
        return {
            "offset": self.offset,
            "size": self.size,
            "topic": self.topic,
            "queue_id": self.queue_id,
            "queue_offset": self.queue_offset,
            "uniq_key": self.uniq_key,
        }


def _rec(r) -> Rec:
    props = string2message_properties(r.properties.decode("utf-8", "replace")) if r.properties else {}
    return Rec(
        r.physical_offset,
        r.total_size,
        r.topic.decode("utf-8", "replace"),
        r.queue_id,
        r.queue_offset,
        props.get(message_const.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX),
        r.store_timestamp,
        props.get(message_const.PROPERTY_REAL_TOPIC),
        r.reconsume_times,
    )


def read_segment(segment) -> tuple[list[Rec], dict[str, Any] | None]:
    """The records of one CommitLog segment up to its end, and where a damaged record stopped the walk (or None)."""
    records: list[Rec] = []
    try:
        for r in iter_segment_records(segment):
            records.append(_rec(r))
    except MessageFormatError as exc:
        at = segment.start_offset + sum(x.size for x in records)
        return records, {"segment": segment.name, "offset": at, "field": exc.field}
    return records, None


def read_commit_log(store_root: Path) -> tuple[list[Rec], list[dict[str, Any]]]:
    """Every readable record of a store's CommitLog (segment by segment), and the damaged places found."""
    records: list[Rec] = []
    damaged: list[dict[str, Any]] = []
    if not (store_root / "commitlog").is_dir():
        return records, damaged
    for segment in find_commitlog_segments(store_root):
        found, bad = read_segment(segment)
        records += found
        if bad is not None:
            damaged.append(bad)
    return records, damaged


def read_units(store_root: Path) -> dict[tuple[str, int, int], int]:
    """``(topic, queue_id, queue_offset) → CommitLog offset`` of every valid ConsumeQueue unit on disk."""
    units: dict[tuple[str, int, int], int] = {}
    if not (store_root / "consumequeue").is_dir():
        return units
    for queue_file in find_consume_queue_files(store_root):
        for queue_offset, commit_log_offset, _size, _tags in iter_consume_queue_units(queue_file):
            units[(queue_file.topic, queue_file.queue_id, queue_offset)] = commit_log_offset
    return units


def _unit_row(key: tuple[str, int, int], commit_log_offset: int) -> dict[str, Any]:
    return {"topic": key[0], "queue_id": key[1], "queue_offset": key[2], "commit_log_offset": commit_log_offset}


def undispatched_and_dangling(records: list[Rec], units: dict[tuple[str, int, int], int], first_offset: int):
    """Records with no ConsumeQueue unit, and units that point at no record (past the end or into a hole).

    The two things a crash can leave between the CommitLog and its ConsumeQueues, and what abnormal recovery
    repairs (re-dispatch from the CommitLog; truncation of the queues to the CommitLog's end). Units below
    ``first_offset`` (the first remaining segment) point into expired segments: that is expiry, not a crash.
    """
    starts = {r.offset for r in records}
    undispatched = [r.row() for r in records if (r.topic, r.queue_id, r.queue_offset) not in units]
    dangling = [_unit_row(k, off) for k, off in sorted(units.items()) if off >= first_offset and off not in starts]
    return undispatched, dangling


def first_segment_offset(store_root: Path) -> int:
    """The start offset of the first CommitLog segment on disk (0 when there is none)."""
    segments = find_commitlog_segments(store_root) if (store_root / "commitlog").is_dir() else []
    return segments[0].start_offset if segments else 0


# -- crashing and restarting -------------------------------------------------------------------------------------
class BrokerFaults:
    """Crash and restart brokers of a simulated cluster exactly as the chaos harness does.

    Java: none (teaching helper). The two steps are ``ChaosRun.crash_broker`` and ``ChaosRun.restart_broker``
    themselves, bound to this object (they need only the cluster, the world, the set of brokers that are down and a
    hook called on each new broker process before it starts).
    """

    crash_broker = ChaosRun.crash_broker
    restart_broker = ChaosRun.restart_broker
    _node = ChaosRun._node

    def __init__(self, cluster: Cluster, on_new_process) -> None:
        self.cluster = cluster
        self.world = cluster.world
        self._down_brokers: set[str] = set()
        self._lost_machines: set[str] = set()  # ChaosRun's masters lost for good: the generator has none
        self._on_new_process = on_new_process

    def _hook_commits(self, node: BrokerNode) -> None:
        """ChaosRun's hook for a restarted broker: here the generator re-installs its fault wrappers."""
        self._on_new_process(node)

    def is_down(self, name: str) -> bool:
        """Whether the broker is crashed and not yet restarted."""
        return name in self._down_brokers


def _offsets(node: BrokerNode) -> tuple[dict[str, dict[int, int]], dict[int, int]]:
    """The broker's consumer offsets (``topic@group → queue → offset``) and delay-level offsets, in memory."""
    offsets = {key: dict(table) for key, table in node.controller.consumer_offset_manager.offset_table.items()}
    store = node.controller.message_store
    return offsets, dict(store.schedule_message_service.offset_table)


class CrashBook:
    """Applies a scenario's crashes and writes each one's account into the manifest's ``crashes`` list."""

    def __init__(self, cluster: Cluster, specs: tuple[CrashSpec, ...], manifest: dict[str, Any], on_new_process):
        self.cluster = cluster
        self.faults = BrokerFaults(cluster, on_new_process)
        self.entries: list[dict[str, Any]] = []
        manifest["crashes"] = self.entries
        self.pending = sorted(
            [(spec.at_s, 0, i) for i, spec in enumerate(specs)]
            + [
                (spec.at_s + spec.restart_after_s, 1, i)
                for i, spec in enumerate(specs)
                if spec.restart_after_s is not None
            ]
        )
        self.specs = specs
        self._before: dict[int, dict[str, Any]] = {}

    def _node(self, name: str) -> BrokerNode:
        return next(n for n in self.cluster.brokers if n.name == name)

    def due(self, now_s: float) -> None:
        """Apply every crash and restart whose time has come."""
        while self.pending and self.pending[0][0] <= now_s:
            _, restart, index = self.pending.pop(0)
            if restart:
                self.restart(index)
            else:
                self.crash(index)

    def crash(self, index: int) -> None:
        """Kill the broker of crash ``index``; record what the crash erased and what it left on disk."""
        spec = self.specs[index]
        node = self._node(spec.broker)
        root = node.store_root
        before, _ = read_commit_log(root)
        offsets, delay_offsets = _offsets(node)
        world = self.cluster.world
        assert world is not None
        flushed = node.controller.message_store.commit_log.mapped_file_queue.flushed_where
        self.faults.crash_broker(spec.broker, power_loss=spec.kind == "power")
        after, damaged = read_commit_log(root)
        units = read_units(root)
        kept = {r.offset for r in after}
        erased = [r for r in before if r.offset not in kept]
        undispatched, dangling = undispatched_and_dangling(after, units, first_segment_offset(root))
        entry = {
            "broker": spec.broker,
            "kind": spec.kind,
            "at_ms": world.now_ms(),
            "restarted_at_ms": None,
            "flushed_where": flushed,
            "commit_log_end_before": max((r.offset + r.size for r in before), default=0),
            "erased": {"bytes": sum(r.size for r in erased), "records": [r.row() for r in erased]},
            "left_on_disk": {"damaged": damaged, "undispatched": undispatched, "dangling_units": dangling},
            "recovery": None,
            "offset_rollbacks": None,  # known once a new process has loaded the offsets (None: never restarted)
            "delay_offset_rollbacks": None,
            "acknowledged_lost": [],
            "redelivered": [],
            "delay_redelivered": [],
        }
        self.entries.append(entry)
        self._before[index] = {
            "entry": entry,
            "records": after,
            "units": units,
            "offsets": offsets,
            "delay": delay_offsets,
            "lost": erased,
        }

    def restart(self, index: int) -> None:
        """Start a new process for crash ``index``'s broker; record what abnormal recovery did."""
        spec = self.specs[index]
        state = self._before[index]
        entry = state["entry"]
        node = self._node(spec.broker)
        quarantined_before = set(_quarantine_listing(node.store_root))
        self.faults.restart_broker(spec.broker)
        world = self.cluster.world
        assert world is not None
        entry["restarted_at_ms"] = world.now_ms()
        report = node.controller.message_store.recovery_report
        outcome = report.commit_log
        after, _ = read_commit_log(node.store_root)
        units = read_units(node.store_root)
        kept = {r.offset for r in after}
        cut = [r for r in state["records"] if r.offset not in kept]
        state["lost"] = state["lost"] + cut
        entry["recovery"] = {
            "mode": outcome.mode if outcome else None,
            "commit_log_end": outcome.max_offset if outcome else None,
            "stopped_because": outcome.stopped_because if outcome else None,
            "cut": {"bytes": outcome.dropped_bytes if outcome else 0, "records": [r.row() for r in cut]},
            "removed_segments": list(outcome.removed_files) if outcome else [],
            "redispatched_units": [_unit_row(k, v) for k, v in sorted(units.items()) if k not in state["units"]],
            "dropped_units": [_unit_row(k, v) for k, v in sorted(state["units"].items()) if units.get(k) != v],
            "quarantined": [p for p in _quarantine_listing(node.store_root) if p not in quarantined_before],
        }
        restored, restored_delay = _offsets(node)
        entry["offset_rollbacks"] = _rollbacks(state["offsets"], restored)
        entry["delay_offset_rollbacks"] = {
            str(level): [restored_delay.get(level, 0), offset]
            for level, offset in sorted(state["delay"].items())
            if restored_delay.get(level, 0) < offset
        }

    def finish(self, manifest: dict[str, Any], history: dict[str, list[Rec]]) -> None:
        """Fill in what needs the whole run: acknowledged messages lost, and the duplicates each crash caused."""
        acked = {}
        for producer in manifest["producers"].values():
            for m in producer["messages"]:
                if m["status"] == "SEND_OK":
                    acked[(m["broker"], producer["topic"], m["queue_id"], m["queue_offset"])] = m["uniq_key"]
        for _index, state in sorted(self._before.items()):
            entry = state["entry"]
            broker = entry["broker"]
            entry["acknowledged_lost"] = sorted(
                {
                    r.uniq_key
                    for r in state["lost"]
                    if acked.get((broker, r.topic, r.queue_id, r.queue_offset)) == r.uniq_key and r.uniq_key
                }
            )
            if entry["restarted_at_ms"] is None:
                continue
            until = self._next_crash_ms(broker, entry["at_ms"])
            entry["redelivered"] = _redelivered(manifest, entry, until)
            entry["delay_redelivered"] = _delay_redelivered(history.get(broker, []), entry, until)

    def _next_crash_ms(self, broker: str, after_ms: int) -> int | None:
        later = [e["at_ms"] for e in self.entries if e["broker"] == broker and e["at_ms"] > after_ms]
        return min(later) if later else None


def _quarantine_listing(store_root: Path) -> list[str]:
    root = quarantine_root(store_root)
    if not root.is_dir():
        return []
    return sorted(str(p.relative_to(store_root)) for p in root.rglob("*") if p.is_file())


def _rollbacks(before: dict[str, dict[int, int]], after: dict[str, dict[int, int]]) -> list[dict[str, Any]]:
    """Consumer offsets that came back lower than they were when the broker died (commits since the last persist)."""
    out = []
    for key in sorted(before):
        topic, _, group = key.partition("@")
        for queue_id, offset in sorted(before[key].items()):
            restored = after.get(key, {}).get(queue_id, -1)
            if restored < offset:
                out.append({"group": group, "topic": topic, "queue_id": queue_id, "from": offset, "to": restored})
    return out


def _redelivered(manifest: dict[str, Any], entry: dict[str, Any], until: int | None) -> list[dict[str, Any]]:
    """Attempts after the restart of messages a clustering group had already consumed from that broker."""
    out = []
    broker, crashed, restarted = entry["broker"], entry["at_ms"], entry["restarted_at_ms"]
    for group, consumer in sorted(manifest["consumers"].items()):
        if consumer["model"] != "CLUSTERING":
            continue
        seen = {
            (a["topic"], a["queue_id"], a["queue_offset"])
            for a in consumer["attempts"]
            if a["broker"] == broker and a["consumed_at"] <= crashed and a["status"] == "CONSUME_SUCCESS"
        }
        for a in consumer["attempts"]:
            if (
                a["broker"] != broker
                or a["consumed_at"] < restarted
                or (until is not None and a["consumed_at"] >= until)
            ):
                continue
            if (a["topic"], a["queue_id"], a["queue_offset"]) in seen:
                out.append(
                    {
                        "group": group,
                        "uniq_key": a["uniq_key"],
                        "topic": a["topic"],
                        "queue_id": a["queue_id"],
                        "queue_offset": a["queue_offset"],
                    }
                )
    return out


def _delay_redelivered(records: list[Rec], entry: dict[str, Any], until: int | None) -> list[dict[str, Any]]:
    """Messages the ScheduleMessageService delivered again after the restart (its delayOffset.json had rolled back)."""
    crashed, restarted = entry["at_ms"], entry["restarted_at_ms"]
    delivered = {
        (r.topic, r.uniq_key, r.reconsume_times)
        for r in records
        if r.real_topic and r.topic != SCHEDULE_TOPIC and r.store_timestamp <= crashed
    }
    out = []
    for r in records:
        if not r.real_topic or r.topic == SCHEDULE_TOPIC or r.store_timestamp < restarted:
            continue
        if until is not None and r.store_timestamp >= until:
            continue
        if (r.topic, r.uniq_key, r.reconsume_times) in delivered:
            out.append({"uniq_key": r.uniq_key, "topic": r.topic, "offset": r.offset})
    return out


# -- expiry --------------------------------------------------------------------------------------------------------
class SegmentWatch:
    """Keeps a summary of every full CommitLog segment, so a segment the cleaner deletes can still be accounted for.

    A full segment (not the one being written) never changes again unless a crash recovery cuts it; its records
    are read once. A segment that leaves the store's list from the front (below the first remaining one) went
    because ``CleanCommitLogService`` found it older than ``fileReservedTime``.
    """

    def __init__(self, cluster: Cluster, manifest: dict[str, Any], faults: BrokerFaults | None):
        self.cluster = cluster
        self.faults = faults
        self.seen: dict[str, dict[str, list[Rec]]] = {node.name: {} for node in cluster.brokers}
        self.deleted: dict[str, list[dict[str, Any]]] = {node.name: [] for node in cluster.brokers}
        self.expired_records: dict[str, list[Rec]] = {node.name: [] for node in cluster.brokers}
        manifest["expiry"] = {"brokers": self.deleted}

    def forget(self, broker: str) -> None:
        """A crash recovery may cut and rewrite segments: read them again."""
        self.seen[broker] = {}

    def tick(self) -> None:
        """Read newly full segments; account for the ones that were deleted since the last tick."""
        for node in self.cluster.brokers:
            if self.faults is not None and self.faults.is_down(node.name):
                continue
            mapped = node.controller.message_store.commit_log.mapped_file_queue.mapped_files
            present = {m.file.name: m.file_from_offset for m in mapped}
            first = min(present.values(), default=None)
            seen = self.seen[node.name]
            for name in sorted(seen):
                if name not in present and (first is None or int(name) < first):
                    self._deleted(node, name, seen.pop(name))
            for m in list(mapped)[:-1]:
                if m.file.name not in seen:
                    seen[m.file.name] = self._read(node, m.file.name)

    @staticmethod
    def _read(node: BrokerNode, name: str) -> list[Rec]:
        segment = next(s for s in find_commitlog_segments(node.store_root) if s.name == name)
        return read_segment(segment)[0]

    def _deleted(self, node: BrokerNode, name: str, records: list[Rec]) -> None:
        world = self.cluster.world
        assert world is not None
        self.expired_records[node.name] += records
        stamps = [r.store_timestamp for r in records]
        self.deleted[node.name].append(
            {
                "file": name,
                "deleted_at_ms": world.now_ms(),
                "first_offset": int(name),
                "end_offset": max((r.offset + r.size for r in records), default=int(name)),
                "records": len(records),
                "store_timestamp_min": min(stamps, default=None),
                "store_timestamp_max": max(stamps, default=None),
                "uniq_keys": sorted({r.uniq_key for r in records if r.uniq_key}),
            }
        )

    def finish(self, manifest: dict[str, Any]) -> None:
        """Per group, the messages of its topic (and its retry topic) it never consumed because they expired."""
        groups: dict[str, list[str]] = {}
        for group, entry in sorted(manifest["consumers"].items()):
            topics = {entry["topic"], f"%RETRY%{group}"}
            consumed = set(entry["consumed"])
            lost = {
                r.uniq_key
                for records in self.expired_records.values()
                for r in records
                if r.topic in topics and r.uniq_key and r.uniq_key not in consumed
            }
            groups[group] = sorted(lost)
        manifest["expiry"]["never_consumed"] = groups
        # A retry or a duplicate send may keep a copy of an expired message in a later segment: only the UNIQ_KEYs
        # with no copy left on a broker are lost there.
        manifest["expiry"]["lost_uniq_keys"] = {
            node.name: sorted(
                {r.uniq_key for r in self.expired_records[node.name] if r.uniq_key}
                - {r.uniq_key for r in read_commit_log(node.store_root)[0]}
            )
            for node in self.cluster.brokers
        }

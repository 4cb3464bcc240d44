"""Grade a chaos run's history against what RocketMQ 4.9.3 promises.

Java: none (teaching helper, after Jepsen's checkers). Each guarantee is a named property with its conditions
(docs/spec/chaos.md). A property that fails is an **anomaly** with the message keys involved and the command that
replays the run. Behaviours RocketMQ documents as possible (duplicates, losing unflushed messages on an
ASYNC_FLUSH power loss, a failed send that was stored after all) are **classified and counted**, never failed.

Properties (besides ``run-completed``: the simulation finished the run without an exception escaping the engine):

* ``acked-delivered``: a message acknowledged (SEND_OK) is consumed successfully at least once by every clustering
  group, or is in that group's ``%DLQ%``. Excused only when its broker runs ASYNC_FLUSH and lost power after the
  send (classified ``async-flush-loss``), or lost power before the send and the message took a queue offset a lost
  message had held (classified ``offset-reuse-after-power-loss``).
* ``broadcast-each-instance``: every broadcasting instance that ran from the first send to the end consumes every
  acknowledged message (same excuse).
* ``orderly-queue-order``: in an orderly group, a message's delivery starts only after every acknowledged message
  before it in its queue was consumed successfully (or dead-lettered).
* ``dlq-after-max-reconsume``: a message reaches ``%DLQ%<group>`` only after the group's listener failed it
  ``maxReconsumeTimes + 1`` times, or ``maxReconsumeTimes`` times when a send-back fell back to the client's own
  re-send (classified): never fewer.
* ``commit-after-consume``: a committed offset never passes a message the group's listener is still consuming and
  has not consumed before.
* ``sync-master-replicated``: a message a SYNC_MASTER answered SEND_OK is in its slave's store at the end of the
  run, so it survives the loss of the master's machine (and ``acked-delivered`` then requires that it was consumed,
  reading from the slave).

In master/slave workloads, a send answered FLUSH_SLAVE_TIMEOUT or SLAVE_NOT_AVAILABLE is classified and, being
stored on the master, must be consumed like an acknowledged one unless the master's machine was lost; an ASYNC_MASTER
losing its machine before its slave caught up is classified ``async-master-loss``, with the bytes the slave lacked.
A message on the slave of a lost master that no group could pull because the name server no longer routed the topic
to that broker name is classified ``unroutable-on-slave``, with the cause in the notes: 4.9.3 builds a topic's queue
data only from a master's registration, so the route is gone for good once the slave was down at or after the loss,
or the name server restarted after it, or had not heard from the master since it restarted.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from mqlab.chaos.history import DeliveryRecord, History

PROPERTIES = (
    "run-completed",
    "acked-delivered",
    "broadcast-each-instance",
    "orderly-queue-order",
    "dlq-after-max-reconsume",
    "commit-after-consume",
    "sync-master-replicated",
)
CLASSIFIED = (
    "async-flush-loss",
    "offset-reuse-after-power-loss",
    "duplicate-after-send-retry",
    "duplicate-after-consumer-crash",
    "duplicate-after-broker-crash",
    "duplicate-after-rebalance",
    "duplicate-other",
    "failed-send-stored",
    "unacked-send-lost",
    "dead-lettered",
    "dead-lettered-early-after-send-back-fallback",
    "flush-slave-timeout",
    "slave-not-available",
    "async-master-loss",
    "unroutable-on-slave",
)
BROKER_CRASHES = {"broker-crash", "power-loss", "master-crash", "master-loss", "slave-crash"}
REPLICA_STATUSES = {"FLUSH_SLAVE_TIMEOUT": "flush-slave-timeout", "SLAVE_NOT_AVAILABLE": "slave-not-available"}


@dataclass(frozen=True, slots=True)
class Anomaly:
    """A broken promise: the property, the messages, what happened, and where to look in the run."""

    property: str
    keys: tuple[str, ...]
    detail: str
    seq: int = 0

    def format(self) -> str:
        """One line."""
        return f"{self.property}: {', '.join(self.keys)}: {self.detail}"


@dataclass
class Verdict:
    """The checker's grade of one run."""

    seed: int
    workload: str
    faults: str
    broken: str | None = None
    anomalies: list[Anomaly] = field(default_factory=list)
    classified: Counter[str] = field(default_factory=Counter)
    stats: dict[str, int] = field(default_factory=dict)
    windows: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # facts behind classified counts (bytes a slave lacked)
    run: Any = None

    @property
    def ok(self) -> bool:
        """Whether no guarantee was broken."""
        return not self.anomalies

    def reproducer(self) -> str:
        """The command that replays this run event for event."""
        return f"mqlab chaos replay --seed {self.seed} --workload {self.workload} --faults {self.faults}"

    def line(self) -> str:
        """The one-line verdict."""
        status = "PASS" if self.ok else f"FAIL({len(self.anomalies)})"
        stats = " ".join(f"{k}={v}" for k, v in self.stats.items())
        kinds = " ".join(f"{k}={v}" for k, v in sorted(self.classified.items()) if v)
        return f"seed={self.seed} {self.workload}/{self.faults}: {status} {stats}" + (f" | {kinds}" if kinds else "")

    def report(self) -> str:
        """The verdict line, then each anomaly and the reproducer."""
        lines = [self.line()]
        lines += [f"  {a.format()}" for a in self.anomalies]
        lines += [f"  note: {n}" for n in self.notes]
        if self.anomalies:
            lines.append(f"  reproduce: {self.reproducer()}")
        return "\n".join(lines)

    def to_row(self) -> dict[str, Any]:
        """A flat row for the campaign tables."""
        return {
            "seed": self.seed,
            "workload": self.workload,
            "faults": self.faults,
            "ok": self.ok,
            "anomalies": [a.format() for a in self.anomalies],
            "classified": dict(self.classified),
            **self.stats,
            "windows": list(self.windows),
            "notes": list(self.notes),
            "reproducer": self.reproducer(),
        }


def check_history(history: History, *, broken: str | None = None) -> Verdict:
    """Apply every property and classification to ``history``."""
    verdict = Verdict(history.seed, history.workload, history.faults, broken)
    acked = {s.key: s for s in history.sends if s.outcome == "ok"}
    successes: dict[tuple[str, str], list[DeliveryRecord]] = defaultdict(list)
    for d in history.deliveries:
        if d.status == "success":
            successes[(d.group, d.key)].append(d)
    dead = {(r.group, r.key) for r in history.dlq}
    power_losses = [f for f in history.faults_applied if f.fault == "power-loss" and f.action == "start"]
    lost = {f.target: f for f in history.faults_applied if f.action == "lost"}  # masters whose machine was lost
    replicas = {broker: set(keys) for broker, keys in history.replicas.items()}
    unrouted = {b: cause for b, loss in lost.items() if (cause := _unrouted_cause(history, b, loss)) is not None}
    # Stored on the master although not acknowledged as replicated: owed to consumers unless the machine was lost.
    stored = dict(acked)
    for s in history.sends:
        if s.detail in REPLICA_STATUSES and s.broker in history.roles and s.broker not in lost:
            stored.setdefault(s.key, s)

    def excused(key: str) -> str | None:
        """The classified reason an acknowledged message may be missing, or None."""
        send = stored[key]
        if send.broker in history.roles:
            loss = lost.get(send.broker or "")
            if (
                history.roles[send.broker or ""] == "ASYNC_MASTER"
                and loss is not None  # never back, so stored before the loss (an answer may arrive after it)
                and key not in replicas.get(send.broker or "", ())
            ):
                return "async-master-loss"  # counted once per message by _check_replication
            if send.broker in unrouted and key in replicas.get(send.broker or "", ()):
                return "unroutable-on-slave"
            return None
        if history.flush_types.get(send.broker or "") != "ASYNC_FLUSH":
            return None
        losses = [f for f in power_losses if f.target == send.broker]
        if any(f.seq > send.seq for f in losses):
            return "async-flush-loss"
        # Stored after the power loss at a queue offset the lost messages had held: a consumer whose offset was
        # already past it pulls from there on and never sees the new message.
        return "offset-reuse-after-power-loss" if losses else None

    _check_replication(history, verdict, acked, lost, replicas)
    _check_acked_delivered(history, verdict, stored, successes, dead, excused)
    _note_unrouted(history, verdict, unrouted, successes, dead, replicas)
    _check_broadcast(history, verdict, acked, excused)
    _check_orderly(history, verdict, acked, dead)
    _check_dlq(history, verdict)
    _check_commits(history, verdict)
    _classify(history, verdict, acked, successes)
    verdict.stats = {
        "sends": len(history.sends),
        "acked": len(acked),
        "deliveries": len(history.deliveries),
        "commits": len(history.commits),
        "slave_commits": sum(1 for c in history.commits if c.node),
        "fault_count": sum(1 for f in history.faults_applied if f.action == "start"),
        "events": history.events_run,
    }
    return verdict


def _check_acked_delivered(history, verdict, acked, successes, dead, excused) -> None:
    for group, info in history.groups.items():
        if info["broadcasting"]:
            continue
        missing = [k for k in acked if not successes.get((group, k)) and (group, k) not in dead]
        for key in missing:
            reason = excused(key)
            if reason:
                if reason != "async-master-loss":
                    verdict.classified[reason] += 1
            else:
                send = acked[key]
                verdict.anomalies.append(
                    Anomaly(
                        "acked-delivered",
                        (key,),
                        f"{send.detail or 'SEND_OK'} from {send.broker} ({_broker_kind(history, send.broker)}) at seq "
                        f"{send.seq}, never consumed by {group} and not in %DLQ%{group}",
                        send.seq,
                    )
                )


def _broker_kind(history: History, broker: str | None) -> str:
    """``ASYNC_FLUSH``, or ``SYNC_MASTER ASYNC_FLUSH`` for a master with a slave."""
    flush = history.flush_types.get(broker or "", "")
    role = history.roles.get(broker or "")
    return f"{role} {flush}" if role else flush


def _check_replication(history, verdict, acked, lost, replicas) -> None:
    """``sync-master-replicated``; count the replica statuses and ``async-master-loss`` with the bytes behind."""
    for s in history.sends:
        if s.detail in REPLICA_STATUSES:
            verdict.classified[REPLICA_STATUSES[s.detail]] += 1
    for broker, role in sorted(history.roles.items()):
        on_slave = replicas.get(broker, set())
        mine = [send for send in acked.values() if send.broker == broker]
        if role == "SYNC_MASTER":
            for send in mine:
                if send.key not in on_slave:
                    verdict.anomalies.append(
                        Anomaly(
                            "sync-master-replicated",
                            (send.key,),
                            f"SEND_OK from SYNC_MASTER {broker} at seq {send.seq}, not in its slave's store",
                            send.seq,
                        )
                    )
        loss = lost.get(broker)
        if loss is None:
            continue
        # The machine never comes back: whatever it acknowledged it stored before the loss, even when the answer
        # was still on the wire at that moment and reached the producer after it.
        gone = [send.key for send in mine if send.key not in on_slave]
        if role == "ASYNC_MASTER" and gone:
            verdict.classified["async-master-loss"] += len(gone)
        shown = ", ".join(gone[:5]) + (" ..." if len(gone) > 5 else "")
        verdict.notes.append(
            f"{broker} ({role}) lost its machine with its slave {loss.bytes_behind} bytes behind: "
            f"{len(gone)} acknowledged messages not on the slave" + (f" ({shown})" if gone else "")
        )


SLAVE_DOWN_FAULTS = ("slave-crash", "broker-crash", "power-loss")


def _unrouted_cause(history: History, broker: str, loss: Any) -> str | None:
    """Why the name server routes the topic to no queue of ``broker``, whose master was lost; None if it does.

    Once the lost master's channel is gone, the slave's registration keeps the broker name alive but adds no queue
    data (Java: RouteInfoManager#registerBroker takes a topic config only from broker id 0). If the slave's process
    was down at the loss or goes down afterwards, the name server drops the broker name with its queue data
    (RouteInfoManager#onChannelDestroy), and a name server restarted after the loss never had it: the slave's next
    registration brings neither back. The cause is the first such moment; a missing route without one stays
    unexplained (None), so nothing is excused.
    """
    if broker in history.routed:
        return None
    if broker in history.unrouted_at_loss:
        return "the name server had no queue of it at that moment (restarted or down, not yet re-registered)"
    slave = history.slaves.get(broker)
    down = False  # the slave's process at the loss, replayed from the nemesis steps (a start while down is a no-op)
    for f in history.faults_applied:
        if f.seq < loss.seq and f.fault in SLAVE_DOWN_FAULTS and f.target == slave and f.action in ("start", "stop"):
            down = f.action == "start"
    if down:
        return "its slave was already down"
    for f in history.faults_applied:
        if f.seq <= loss.seq or f.action != "start":
            continue
        if f.fault == "namesrv-loss":
            return f"{f.time_ms - loss.time_ms} ms later the name server restarted"
        if f.fault in SLAVE_DOWN_FAULTS and f.target == slave:
            return f"{f.time_ms - loss.time_ms} ms later its slave went down"
    return None


def _note_unrouted(history, verdict, unrouted, successes, dead, replicas) -> None:
    """Say which messages on a slave no group could reach, and why."""
    groups = [g for g, info in history.groups.items() if not info["broadcasting"]]
    for broker, cause in sorted(unrouted.items()):
        stranded = sorted(
            {
                s.key
                for s in history.sends
                if s.broker == broker
                and s.key in replicas.get(broker, ())
                and any(not successes.get((g, s.key)) and (g, s.key) not in dead for g in groups)
            },
            key=lambda k: (len(k), k),
        )
        shown = ", ".join(stranded[:5]) + (" ..." if len(stranded) > 5 else "")
        verdict.notes.append(
            f"{broker} lost its machine and {cause}: the name server routes the topic to no queue of {broker} "
            f"(queue data comes only from a master's registration), {len(stranded)} messages on the slave "
            "unreachable" + (f" ({shown})" if stranded else "")
        )


def _check_broadcast(history, verdict, acked, excused) -> None:
    for group, info in history.groups.items():
        if not info["broadcasting"]:
            continue
        seen: dict[str, set[str]] = defaultdict(set)
        for d in history.deliveries:
            if d.group == group and d.status == "success":
                seen[d.instance].add(d.key)
        instances = sorted({d.instance for d in history.deliveries if d.group == group})
        for instance in instances:
            for key in acked:
                if key not in seen[instance]:
                    reason = excused(key)
                    if reason:
                        if reason != "async-master-loss":
                            verdict.classified[reason] += 1
                    else:
                        verdict.anomalies.append(
                            Anomaly("broadcast-each-instance", (key,), f"{instance} of {group} never consumed it")
                        )


def _check_orderly(history, verdict, acked, dead) -> None:
    by_queue: dict[tuple[str, str, str, int], list[DeliveryRecord]] = defaultdict(list)
    for d in history.deliveries:
        if d.orderly:
            by_queue[(d.group, d.topic, d.broker, d.queue_id)].append(d)
    for (group, _topic, _broker, _queue), deliveries in by_queue.items():
        done_at: dict[tuple[int, str], int] = {}
        for d in deliveries:
            if d.status == "success":
                done_at.setdefault((d.queue_offset, d.key), d.end_seq)
        positions = {(d.queue_offset, d.key) for d in deliveries if d.key in acked and (group, d.key) not in dead}
        for d in deliveries:
            before = [p for p in positions if p[0] < d.queue_offset and done_at.get(p, 1 << 62) > d.seq]
            if before:
                offset, key = min(before)
                verdict.anomalies.append(
                    Anomaly(
                        "orderly-queue-order",
                        (d.key, key),
                        f"{d.instance} started {d.key} (offset {d.queue_offset} of {d.broker}:{d.queue_id}) before "
                        f"{key} (offset {offset}) was consumed",
                        d.seq,
                    )
                )
                return  # the first disorder explains the rest


def _check_dlq(history, verdict) -> None:
    failures = Counter((d.group, d.key) for d in history.deliveries if d.status == "failure")
    for record in history.dlq:
        verdict.classified["dead-lettered"] += 1
        limit = history.groups[record.group]["max_reconsume_times"]
        failed = failures[(record.group, record.key)]
        if failed == limit:
            # The consumer's send-back failed and it re-sent the message itself with RECONSUME_TIME already
            # incremented; the broker dead-letters such a message on arrival (SendMessageProcessor#handleRetryAndDLQ).
            verdict.classified["dead-lettered-early-after-send-back-fallback"] += 1
        elif failed < limit:
            verdict.anomalies.append(
                Anomaly(
                    "dlq-after-max-reconsume",
                    (record.key,),
                    f"in %DLQ%{record.group} after {failed} failed consumptions (maxReconsumeTimes {limit})",
                    record.seq,
                )
            )


def _check_commits(history, verdict) -> None:
    by_queue: dict[tuple[str, str, str, int], list[DeliveryRecord]] = defaultdict(list)
    for d in history.deliveries:
        by_queue[(d.group, d.topic, d.broker, d.queue_id)].append(d)
    for commit in history.commits:
        deliveries = by_queue.get((commit.group, commit.topic, commit.broker, commit.queue_id), ())
        for d in deliveries:
            if not (d.queue_offset < commit.offset and d.seq < commit.seq < d.end_seq):
                continue
            consumed_before = any(
                o.key == d.key and o.queue_offset == d.queue_offset and o.end_seq < commit.seq for o in deliveries
            )
            if not consumed_before:
                verdict.anomalies.append(
                    Anomaly(
                        "commit-after-consume",
                        (d.key,),
                        f"{commit.group} committed offset {commit.offset} of {commit.broker}:{commit.queue_id} while "
                        f"{d.instance} was still consuming offset {d.queue_offset}",
                        commit.seq,
                    )
                )
                return


def _classify(history, verdict, acked, successes) -> None:
    outcome = {}
    for s in history.sends:
        outcome.setdefault(s.key, s.outcome)
    delivered = {d.key for d in history.deliveries}
    for key, result in outcome.items():
        if result == "failed" and key in delivered:
            verdict.classified["failed-send-stored"] += 1
        elif result != "ok" and key not in delivered:
            verdict.classified["unacked-send-lost"] += 1
    faults = [f for f in history.faults_applied if f.action == "start"]
    for (group, _key), records in successes.items():
        if history.groups[group]["broadcasting"]:
            per_instance = Counter(d.instance for d in records)
            extra = sum(n - 1 for n in per_instance.values())
        else:
            extra = len(records) - 1
        if extra <= 0:
            continue
        verdict.classified[_duplicate_cause(records, faults)] += extra


def _duplicate_cause(records: list[DeliveryRecord], faults: list[Any]) -> str:
    positions = {(d.broker, d.queue_id, d.queue_offset) for d in records if not d.topic.startswith("%RETRY%")}
    if len(positions) > 1:
        return "duplicate-after-send-retry"
    first, last = records[0].seq, records[-1].seq
    between = {f.fault for f in faults if first < f.seq < last}
    if "consumer-crash" in between:
        return "duplicate-after-consumer-crash"
    if between & BROKER_CRASHES:
        return "duplicate-after-broker-crash"
    # Two %RETRY% copies of one attempt: the restarted broker's ScheduleMessageService delivered the delayed retry
    # again from its last persisted delay offset (written every 10 s), so the copies sit at two queue positions.
    retry_copies = Counter(d.reconsume_times for d in records if d.topic.startswith("%RETRY%"))
    if any(n > 1 for n in retry_copies.values()) and any(f.fault in BROKER_CRASHES and f.seq < last for f in faults):
        return "duplicate-after-broker-crash"
    if len({d.instance for d in records}) > 1 or between & {"consumer-join", "consumer-leave", "partition"}:
        return "duplicate-after-rebalance"
    return "duplicate-other"

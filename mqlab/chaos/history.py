"""What a chaos run observed: each send with its outcome, each delivery, each offset commit, each fault.

Java: none (teaching helper). Records are appended in the order the simulation produced them; ``seq`` is that
order, which is finer than virtual time (many events share one millisecond). Messages are identified by their body
(``"m17"``), which the workload makes unique per run, so a message keeps its identity through retries, the
``%RETRY%`` and ``%DLQ%`` topics and duplicate stores.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class SendRecord:
    """One producer call and how it ended.

    ``outcome``: ``ok`` (SEND_OK), ``failed`` (the client reported an error), ``unknown`` (a timeout, a status other
    than SEND_OK, or a oneway send: the message may or may not be stored). ``delay_level`` > 0 marks a delayed message.
    """

    seq: int
    time_ms: int
    key: str
    mode: str
    outcome: str
    broker: str | None
    queue_id: int | None
    queue_offset: int | None
    delay_level: int = 0
    detail: str = ""


@dataclass(frozen=True, slots=True)
class DeliveryRecord:
    """One listener call for one message: who got it, from which queue position, and what the listener answered.

    ``topic``/``broker``/``queue_id``/``queue_offset`` are the position the message was pulled from (a ``%RETRY%``
    queue for a retried message). ``status`` is ``success`` or ``failure``; ``end_seq`` orders the listener's return.
    """

    seq: int
    end_seq: int
    time_ms: int
    group: str
    instance: str
    key: str
    topic: str
    broker: str
    queue_id: int
    queue_offset: int
    reconsume_times: int
    status: str
    orderly: bool


@dataclass(frozen=True, slots=True)
class CommitRecord:
    """A consumer offset reaching a broker's ConsumerOffsetManager.

    ``broker`` is the broker name; ``node`` the broker that took it when that is a slave (its master was down).
    """

    seq: int
    time_ms: int
    group: str
    topic: str
    broker: str
    queue_id: int
    offset: int
    node: str = ""


@dataclass(frozen=True, slots=True)
class DlqRecord:
    """A message found in a group's ``%DLQ%`` topic at the end of the run."""

    seq: int
    time_ms: int
    group: str
    key: str
    broker: str
    reconsume_times: int


@dataclass(frozen=True, slots=True)
class FaultRecord:
    """A nemesis step (``start``/``stop`` of a fault, or a one-off such as a crash).

    ``bytes_behind``: when a master's machine is lost, how many CommitLog bytes its slave held fewer than the master
    at that moment (0 otherwise).
    """

    seq: int
    time_ms: int
    fault: str
    action: str
    target: str
    bytes_behind: int = 0


@dataclass
class History:
    """Everything one run observed, plus the facts the checker needs about the configuration."""

    seed: int
    workload: str
    faults: str
    flush_types: dict[str, str] = field(default_factory=dict)  # broker -> SYNC_FLUSH / ASYNC_FLUSH
    roles: dict[str, str] = field(default_factory=dict)  # broker with a slave -> SYNC_MASTER / ASYNC_MASTER
    replicas: dict[str, list[str]] = field(default_factory=dict)  # broker -> keys in its slave's store at the end
    slaves: dict[str, str] = field(default_factory=dict)  # broker name -> its slave's node name
    routed: list[str] = field(default_factory=list)  # broker names the name server routed the topic to at the end
    unrouted_at_loss: list[str] = field(default_factory=list)  # lost masters whose topic queues were already unrouted
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)  # group -> model, orderly, max_reconsume_times
    sends: list[SendRecord] = field(default_factory=list)
    deliveries: list[DeliveryRecord] = field(default_factory=list)
    commits: list[CommitRecord] = field(default_factory=list)
    dlq: list[DlqRecord] = field(default_factory=list)
    faults_applied: list[FaultRecord] = field(default_factory=list)
    events_run: int = 0
    virtual_ms: int = 0
    _seq: Any = field(default_factory=lambda: itertools.count(1), repr=False)

    def next_seq(self) -> int:
        """The next position in the run's order."""
        return next(self._seq)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for JSON, Parquet rows and tests)."""
        return {
            "seed": self.seed,
            "workload": self.workload,
            "faults": self.faults,
            "flush_types": dict(self.flush_types),
            "roles": dict(self.roles),
            "replicas": {b: list(keys) for b, keys in self.replicas.items()},
            "slaves": dict(self.slaves),
            "routed": list(self.routed),
            "unrouted_at_loss": list(self.unrouted_at_loss),
            "groups": {g: dict(v) for g, v in self.groups.items()},
            "sends": [asdict(r) for r in self.sends],
            "deliveries": [asdict(r) for r in self.deliveries],
            "commits": [asdict(r) for r in self.commits],
            "dlq": [asdict(r) for r in self.dlq],
            "faults_applied": [asdict(r) for r in self.faults_applied],
            "events_run": self.events_run,
            "virtual_ms": self.virtual_ms,
        }

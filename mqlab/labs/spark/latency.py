"""Spark exercises on store latency and throughput (``spark/08-latency-throughput.ipynb``): references, checkers.

Java: none (teaching layer). ``born_timestamp`` is the producer's clock when the send request was built
(``DefaultMQProducerImpl#sendKernelImpl``), ``store_timestamp`` the broker's clock inside the put lock
(``CommitLog#asyncPutMessage``): their difference is the store latency of one send. A producer's sends are the
records of its topic that it stored itself, plus, for a delayed message, the parked record in
``SCHEDULE_TOPIC_XXXX`` (the copy the timer delivers later keeps the born timestamp, so its "latency" would be the
delay). Retries of a consumer group keep the UNIQ_KEY and born timestamp too, but live in ``%RETRY%``/``%DLQ%``.

Percentiles are Spark's ``percentile`` (exact, linear interpolation between the two closest ranks), so a reader's
``percentile_approx`` may differ by a rank on a small table. The references read the files with plain Python.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Sequence
from typing import Any

from mqlab.common.topic.topic_validator import RMQ_SYS_SCHEDULE_TOPIC
from mqlab.labs.spark.delay import DELAY, REAL_TOPIC, StoredRecord, load_manifest, stored_records
from mqlab.labs.spark.grading import grade_table


def percentile(values: Sequence[float], p: float) -> float:
    """Spark's exact ``percentile``: linear interpolation at rank ``p * (n - 1)`` of the sorted values.

    Raises:
        ValueError: no values, or ``p`` outside [0, 1].
    """
    if not values:
        raise ValueError("percentile of no values")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"percentile must be in [0, 1], got {p}")
    ordered = sorted(values)
    rank = p * (len(ordered) - 1)
    low, high = math.floor(rank), math.ceil(rank)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (rank - low))


def producer_sends(out_dir: str | os.PathLike[str]) -> list[tuple[str, StoredRecord]]:
    """(producer group, record) for every record a producer's send stored (see the module docstring)."""
    groups = {}
    for group, producer in load_manifest(out_dir)["producers"].items():
        for row in producer["messages"]:
            groups[row["uniq_key"]] = (group, producer["topic"])
    sends = []
    for r in stored_records(out_dir):
        group, topic = groups.get(r.uniq_key, (None, None))
        if group is None:
            continue
        own = r.topic == topic and DELAY not in r.properties
        parked = r.topic == RMQ_SYS_SCHEDULE_TOPIC and r.properties.get(REAL_TOPIC) == topic
        if own or parked:
            sends.append((group, r))
    return sends


def store_latency(out_dir: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Per producer group: ``messages``, ``min_ms``, ``p50_ms``, ``p99_ms``, ``max_ms`` of store - born."""
    by_group: dict[str, list[int]] = {}
    for group, r in producer_sends(out_dir):
        by_group.setdefault(group, []).append(r.store_timestamp - r.born_timestamp)
    return [
        {
            "group": group,
            "messages": len(v),
            "min_ms": min(v),
            "p50_ms": percentile(v, 0.5),
            "p99_ms": percentile(v, 0.99),
            "max_ms": max(v),
        }
        for group, v in sorted(by_group.items())
    ]


def check_store_latency(answer: Any, out_dir: str | os.PathLike[str]) -> bool:
    """Grade exercise 1: store latency per producer group."""
    return grade_table(
        answer,
        store_latency(out_dir),
        name="store latency per producer",
        key="group",
        rel_tol=1e-9,
        hint="latency = store_timestamp - born_timestamp of the records the producer's sends stored (its topic "
        "without DELAY, and the parked record of a delayed send), not the delivered copies nor retries",
    )


def throughput(out_dir: str | os.PathLike[str], topics: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Records stored per topic and whole second of store time, all brokers together.

    Rows: ``topic``, ``second_ms`` (the second's start, epoch ms), ``messages``; only seconds with a record.
    ``topics`` defaults to the producers' topics.
    """
    wanted = set(topics) if topics is not None else {p["topic"] for p in load_manifest(out_dir)["producers"].values()}
    counts = Counter((r.topic, r.store_timestamp // 1000 * 1000) for r in stored_records(out_dir) if r.topic in wanted)
    return [{"topic": t, "second_ms": s, "messages": n} for (t, s), n in sorted(counts.items())]


def check_throughput(answer: Any, out_dir: str | os.PathLike[str]) -> bool:
    """Grade exercise 2: messages stored per topic and second."""
    return grade_table(
        answer,
        throughput(out_dir),
        name="throughput per topic and second",
        key=("topic", "second_ms"),
        hint="count every record of the topic by the whole second of its STORE timestamp (epoch ms, floored to "
        "1000), both brokers together",
    )


def silent_seconds(out_dir: str | os.PathLike[str], topic: str) -> int:
    """Whole seconds, from the first to the last with a record of ``topic``, in which no record of it was stored."""
    seconds = {row["second_ms"] for row in throughput(out_dir, [topic])}
    if not seconds:
        raise ValueError(f"no record of topic {topic!r} in the store")
    return (max(seconds) - min(seconds)) // 1000 + 1 - len(seconds)

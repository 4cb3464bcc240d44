"""Notebook ``spark/05``: the retry and dead-letter funnel of each consumer group, read from the brokers' stores.

Java: none (teaching helper). An attempt a CLUSTERING listener answers ``RECONSUME_LATER`` is sent back
(``ConsumeMessageConcurrentlyService#processConsumeResult``), and the broker
(``SendMessageProcessor#asyncConsumerSendMsgBack``) stores a new record with RECONSUMETIMES one higher than the
attempt's. Below ``maxReconsumeTimes`` it goes first to ``SCHEDULE_TOPIC_XXXX`` at delay level
``3 + reconsume_times`` (queue ``level - 1``, properties REAL_TOPIC ``%RETRY%<group>`` and DELAY), then, when the
delay is over, to ``%RETRY%<group>``; at or past it, to ``%DLQ%<group>``. Every such record keeps the message's
UNIQ_KEY and carries RETRY_TOPIC, the topic it was first sent to. A BROADCASTING group sends nothing back.
Producers' delayed messages go through ``SCHEDULE_TOPIC_XXXX`` too, with their own topic as REAL_TOPIC.

The references come from the manifest's ``attempts`` (each failed attempt is one send-back), its ``retried`` and
``dead_lettered`` sets, and its producers' ``delay_level``s.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from mqlab.common.mix_all import DLQ_GROUP_TOPIC_PREFIX, RETRY_GROUP_TOPIC_PREFIX
from mqlab.labs.spark import load_manifest
from mqlab.labs.spark.duplicates import stored_copies
from mqlab.labs.spark.grading import grade_table

RECONSUME_LATER = "RECONSUME_LATER"
FIRST_RETRY_DELAY_LEVEL = 3  # asyncConsumerSendMsgBack: delayLevel = 3 + reconsumeTimes


def _send_backs(root: str | Path) -> list[tuple[str, int, int]]:
    """``(group, reconsume_times of the failed attempt, max_reconsume_times)`` for every failed CLUSTERING attempt."""
    return [
        (group, attempt["reconsume_times"], consumer["max_reconsume_times"])
        for group, consumer in sorted(load_manifest(root)["consumers"].items())
        if consumer["model"] == "CLUSTERING"
        for attempt in consumer["attempts"]
        if attempt["status"] == RECONSUME_LATER
    ]


def expected_group_funnel(root: str | Path) -> list[dict[str, Any]]:
    """Per group that sent anything back: distinct UNIQ_KEYs ``retried`` and ``dead_lettered``."""
    return [
        {"group": group, "retried": len(set(c["retried"])), "dead_lettered": len(set(c["dead_lettered"]))}
        for group, c in sorted(load_manifest(root)["consumers"].items())
        if c["retried"] or c["dead_lettered"]
    ]


def expected_retry_records(root: str | Path) -> list[dict[str, Any]]:
    """Records of the ``%RETRY%`` and ``%DLQ%`` topics by RECONSUMETIMES: ``topic``, ``reconsume_times``, ``records``.

    One record per failed attempt, with the attempt's ``reconsume_times`` plus one; in ``%DLQ%<group>`` once the
    attempt had reached ``maxReconsumeTimes``.
    """
    counts: Counter[tuple[str, int]] = Counter()
    for group, reconsume_times, max_times in _send_backs(root):
        prefix = DLQ_GROUP_TOPIC_PREFIX if reconsume_times >= max_times else RETRY_GROUP_TOPIC_PREFIX
        counts[prefix + group, reconsume_times + 1] += 1
    return [{"topic": t, "reconsume_times": n, "records": c} for (t, n), c in sorted(counts.items())]


def expected_schedule_records(root: str | Path) -> list[dict[str, Any]]:
    """Records of ``SCHEDULE_TOPIC_XXXX`` by where they go and when: ``real_topic``, ``delay_level``, ``records``.

    A producer's delayed message (each stored copy) waits there at its own level for its own topic; a send-back
    below ``maxReconsumeTimes`` at level ``3 + reconsume_times`` for ``%RETRY%<group>``.
    """
    manifest = load_manifest(root)
    copies = stored_copies(root)
    counts: Counter[tuple[str, int]] = Counter()
    for producer in manifest["producers"].values():
        for row in producer["messages"]:
            if row["delay_level"] > 0:
                counts[producer["topic"], row["delay_level"]] += copies[row["uniq_key"]][1]
    for group, reconsume_times, max_times in _send_backs(root):
        if reconsume_times < max_times:
            counts[RETRY_GROUP_TOPIC_PREFIX + group, FIRST_RETRY_DELAY_LEVEL + reconsume_times] += 1
    return [{"real_topic": t, "delay_level": n, "records": c} for (t, n), c in sorted(counts.items()) if c]


def check_group_funnel(answer: Any, root: str | Path) -> bool:
    """Grade the distinct messages each group retried and dead-lettered (key ``group``)."""
    return grade_table(
        answer,
        expected_group_funnel(root),
        name="retried and dead-lettered per group",
        key="group",
        hint="the group is in the topic name (%RETRY%<group>, %DLQ%<group>); count distinct uniq_keys, since a "
        "message retried twice has two records; the original topic never shows a retry",
    )


def check_retry_records(answer: Any, root: str | Path) -> bool:
    """Grade the ``%RETRY%``/``%DLQ%`` records by RECONSUMETIMES (key ``topic``, ``reconsume_times``)."""
    return grade_table(
        answer,
        expected_retry_records(root),
        name="retry and DLQ records by reconsumeTimes",
        key=("topic", "reconsume_times"),
        hint="read reconsume_times from the stored records themselves: a send-back stores the attempt's count plus "
        "one, and the dead-letter queue is part of the funnel",
    )


def check_schedule_records(answer: Any, root: str | Path) -> bool:
    """Grade ``SCHEDULE_TOPIC_XXXX`` records by REAL_TOPIC and DELAY (key ``real_topic``, ``delay_level``)."""
    return grade_table(
        answer,
        expected_schedule_records(root),
        name="schedule topic by destination and level",
        key=("real_topic", "delay_level"),
        hint="the destination is the REAL_TOPIC property and the level the DELAY property (the queue id is the "
        "level minus one); RETRY_TOPIC is the topic the message was first sent to, not where it goes next",
    )

"""Notebook ``spark/03``: consumer lag per group and queue, as ``mqadmin consumerProgress -g GROUP`` shows it.

Java: none (teaching helper). The references follow ``AdminBrokerProcessor#getConsumeStats``: for every topic a group
has committed offsets for on a broker (``ConsumerOffsetManager#whichTopicByConsumer``) and every read queue of that
topic (``topics.json``), the broker offset is the queue's max offset (``ConsumeQueue#getMaxOffsetInQueue``: one past
its last unit, however many old files were deleted), the consumer offset the committed one (``-1``, none, shows as 0)
and the diff their difference. A BROADCASTING group keeps its offsets in its clients, so the brokers know none.

Each ``check_*`` grades a reader's table and prints one line (:func:`mqlab.labs.spark.grading.grade_table`); each
``expected_*`` is its reference, read from the generated directory with plain Python.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mqlab.labs.spark import GeneratedDirError, load_manifest, queue_max_offsets, read_config, stored_records
from mqlab.labs.spark.grading import grade_table

TOPIC_GROUP_SEPARATOR = "@"


def expected_broker_offsets(root: str | Path) -> list[dict[str, Any]]:
    """One row per ConsumeQueue of every broker: ``broker``, ``topic``, ``queueId``, ``brokerOffset`` (max offset)."""
    return [
        {"broker": broker, "topic": topic, "queueId": queue_id, "brokerOffset": max_offset}
        for (broker, topic, queue_id), max_offset in sorted(queue_max_offsets(root).items())
    ]


def expected_consumer_offsets(root: str | Path) -> list[dict[str, Any]]:
    """One row per committed offset in the brokers' ``config/consumerOffset.json``.

    Columns ``broker``, ``topic``, ``group``, ``queueId``, ``consumerOffset``; the file's key is ``topic@group``.
    """
    rows = []
    for broker in load_manifest(root)["brokers"]:
        table = read_config(root, broker, "consumerOffset.json").get("offsetTable") or {}
        for topic_at_group, offsets in table.items():
            topic, _, group = str(topic_at_group).partition(TOPIC_GROUP_SEPARATOR)
            rows += [
                {"broker": broker, "topic": topic, "group": group, "queueId": int(q), "consumerOffset": int(o)}
                for q, o in (offsets or {}).items()
            ]
    return rows


def expected_consumer_progress(root: str | Path) -> list[dict[str, Any]]:
    """``consumerProgress -g`` for every group the brokers know: one row per group, broker, topic and read queue.

    Columns ``group``, ``broker``, ``topic``, ``queueId``, ``brokerOffset``, ``consumerOffset``, ``diff``.

    Java: AdminBrokerProcessor#getConsumeStats
    """
    max_offsets = queue_max_offsets(root)
    committed = {
        (r["group"], r["broker"], r["topic"], r["queueId"]): r["consumerOffset"]
        for r in expected_consumer_offsets(root)
    }
    rows = []
    for broker in load_manifest(root)["brokers"]:
        topics = read_config(root, broker, "topics.json").get("topicConfigTable") or {}
        pairs = sorted({(group, topic) for group, b, topic, _ in committed if b == broker})
        for group, topic in pairs:
            config = topics.get(topic)
            if config is None:  # Java logs "topic config not exist" and skips the topic
                continue
            for queue_id in range(int(config["readQueueNums"])):
                broker_offset = max(max_offsets.get((broker, topic, queue_id), 0), 0)
                consumer_offset = max(committed.get((group, broker, topic, queue_id), -1), 0)
                rows.append(
                    {
                        "group": group,
                        "broker": broker,
                        "topic": topic,
                        "queueId": queue_id,
                        "brokerOffset": broker_offset,
                        "consumerOffset": consumer_offset,
                        "diff": broker_offset - consumer_offset,
                    }
                )
    return rows


def group_subscription(root: str | Path, group: str) -> tuple[str, str]:
    """``(topic, expression)`` a generated group subscribed with, from the scenario the manifest names.

    Raises:
        GeneratedDirError: the scenario has no such group.
    """
    from mqlab.spark.generate import load_scenario

    scenario = load_scenario(load_manifest(root)["scenario"])
    for consumer in scenario.consumers:
        if consumer.group == group:
            return consumer.topic, consumer.subscription
    raise GeneratedDirError(f"scenario {scenario.name!r} has no consumer group {group!r}")


def expected_matching_backlog(root: str | Path, group: str) -> list[dict[str, Any]]:
    """For each queue of ``group``'s topic: ``diff`` and how many of those messages its subscription accepts.

    Columns ``broker``, ``queueId``, ``diff``, ``matching``: the messages at queue offsets from the committed offset
    to the max offset, all of them (``diff``) and those whose TAGS the subscription names (``matching``, what the
    group will really hand its listener; the others the broker skips when it pulls, ``ExpressionMessageFilter``).
    """
    from mqlab.common.filter.filter_api import build_subscription_data

    topic, expression = group_subscription(root, group)
    subscription = build_subscription_data(topic, expression)
    progress = {
        (r["broker"], r["queueId"]): r
        for r in expected_consumer_progress(root)
        if r["group"] == group and r["topic"] == topic
    }
    matching = dict.fromkeys(progress, 0)
    for record in stored_records(root):
        row = progress.get((record.broker, record.queue_id))
        if record.topic != topic or row is None or record.queue_offset < row["consumerOffset"]:
            continue
        tags = record.properties.get("TAGS")
        if subscription.sub_string == "*" or tags in subscription.tags_set:
            matching[record.broker, record.queue_id] += 1
    return [
        {"broker": broker, "queueId": queue_id, "diff": progress[broker, queue_id]["diff"], "matching": count}
        for (broker, queue_id), count in sorted(matching.items())
    ]


def check_broker_offsets(answer: Any, root: str | Path) -> bool:
    """Grade the max offset of every ConsumeQueue (key ``broker``, ``topic``, ``queueId``)."""
    return grade_table(
        answer,
        expected_broker_offsets(root),
        name="broker offsets",
        key=("broker", "topic", "queueId"),
        hint="the broker offset is the offset the next message will get: one past the last unit's queue_offset, "
        "whatever the first file still on disk holds",
    )


def check_consumer_offsets(answer: Any, root: str | Path) -> bool:
    """Grade the offsets of ``config/consumerOffset.json`` (key ``broker``, ``topic``, ``group``, ``queueId``)."""
    return grade_table(
        answer,
        expected_consumer_offsets(root),
        name="committed offsets",
        key=("broker", "topic", "group", "queueId"),
        hint="read consumerOffset.json (not its .bak) of every broker; its keys are topic@group",
    )


def check_consumer_progress(answer: Any, root: str | Path) -> bool:
    """Grade ``consumerProgress -g`` rows for every group (key ``group``, ``broker``, ``topic``, ``queueId``)."""
    return grade_table(
        answer,
        expected_consumer_progress(root),
        name="consumer progress",
        key=("group", "broker", "topic", "queueId"),
        hint="every queue of every topic a group has committed offsets for, even one that holds no message yet "
        "(its broker offset is 0); diff = brokerOffset - consumerOffset",
    )


def check_matching_backlog(answer: Any, root: str | Path, group: str = "CG_ANALYTICS") -> bool:
    """Grade, for each queue of a filtering group, its diff and the part of it the subscription accepts."""
    return grade_table(
        answer,
        expected_matching_backlog(root, group),
        name=f"{group} backlog it will consume",
        key=("broker", "queueId"),
        hint="count the CommitLog records of each queue from the committed offset on (queue_offset >= "
        "consumerOffset) whose tags the subscription names",
    )

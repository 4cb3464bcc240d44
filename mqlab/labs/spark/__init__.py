"""The Spark exercise track: a notebook asks for a table, a checker compares it with a reference computed without Spark.

Every exercise in ``spark/03-*`` onwards follows one pattern: the reader builds a DataFrame with PySpark from a
store that ``mqlab gen-store`` generated, and a checker function of this package grades it against the ground truth
that the generator wrote into ``manifest.json`` (or a plain-Python read of the store's files). The comparison itself
is :func:`mqlab.labs.spark.grading.grade_table`; the modules beside it hold one family of exercises each (``lag``,
``duplicates``, ``funnel``, ...) with their reference answers as functions of the generated directory.

Importing this package does not import PySpark: the references and the grading work on plain Python values, so
tests and the site check can run them without a Spark session.

Java: none (teaching layer).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST = "manifest.json"


class GeneratedDirError(ValueError):
    """A directory is not what ``mqlab gen-store`` writes (no manifest, or a broker without its store)."""


def load_manifest(root: str | Path) -> dict[str, Any]:
    """The ground truth ``mqlab gen-store`` wrote beside the stores (``<root>/manifest.json``).

    Raises:
        GeneratedDirError: the manifest is missing or is not JSON.
    """
    path = Path(root) / MANIFEST
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GeneratedDirError(f"{path.name} not found in {Path(root).name!r}: run `mqlab gen-store` first") from None
    except json.JSONDecodeError as error:
        raise GeneratedDirError(f"{path.name} in {Path(root).name!r} is not JSON: {error}") from None


def broker_store(root: str | Path, broker: str) -> Path:
    """The store root of one generated broker (``<root>/<broker>/store``).

    Raises:
        GeneratedDirError: that broker has no store there.
    """
    store = Path(root) / broker / "store"
    if not store.is_dir():
        raise GeneratedDirError(f"broker {broker!r} has no store directory {broker}/store")
    return store


def read_config(root: str | Path, broker: str, name: str) -> dict[str, Any]:
    """A broker's ``config/<name>`` as the broker wrote it (fastjson: bare integer map keys come back as ints)."""
    from mqlab.remoting.protocol import remoting_serializable

    path = broker_store(root, broker) / "config" / name
    if not path.is_file():
        return {}
    return remoting_serializable.from_json(path.read_text(encoding="utf-8")) or {}


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """One message record of a generated store, read in plain Python (the references' view of the CommitLog)."""

    broker: str
    topic: str
    queue_id: int
    queue_offset: int
    reconsume_times: int
    store_timestamp: int  # epoch ms, as stored
    msg_id: str  # the offset message id (store host + physical offset)
    properties: dict[str, str]

    @property
    def uniq_key(self) -> str | None:
        """The producer's message id (property UNIQ_KEY)."""
        return self.properties.get("UNIQ_KEY")


def stored_records(root: str | Path) -> Iterator[StoredRecord]:
    """Every message record of every broker of a generated directory, broker by broker in CommitLog order."""
    from mqlab.common.message.message_decoder import create_message_id, string2message_properties
    from mqlab.common.message.message_record_layout import host_from_field
    from mqlab.spark.segment_reader import find_commitlog_segments, iter_segment_records

    for broker in load_manifest(root)["brokers"]:
        for segment in find_commitlog_segments(broker_store(root, broker)):
            for record in iter_segment_records(segment):
                yield StoredRecord(
                    broker=broker,
                    topic=record.topic.decode("utf-8"),
                    queue_id=record.queue_id,
                    queue_offset=record.queue_offset,
                    reconsume_times=record.reconsume_times,
                    store_timestamp=record.store_timestamp,
                    msg_id=create_message_id(host_from_field(record.store_host), record.physical_offset),
                    properties=dict(string2message_properties(record.properties.decode("utf-8"), dict)),
                )


def queue_max_offsets(root: str | Path) -> dict[tuple[str, str, int], int]:
    """``(broker, topic, queue_id)`` → the queue's max offset (one past its last unit), from the ConsumeQueue files.

    Java: ConsumeQueue#getMaxOffsetInQueue (the last valid unit's position / 20, plus one)
    """
    from mqlab.spark.segment_reader import find_consume_queue_files, iter_consume_queue_units

    found: dict[tuple[str, str, int], int] = {}
    for broker in load_manifest(root)["brokers"]:
        for queue_file in find_consume_queue_files(broker_store(root, broker)):
            key = (broker, queue_file.topic, queue_file.queue_id)
            for queue_offset, *_ in iter_consume_queue_units(queue_file):
                found[key] = max(found.get(key, 0), queue_offset + 1)
            found.setdefault(key, 0)
    return found

"""Notebook ``spark/10``: query by key through the IndexFile's slot chains, against a full scan of the CommitLog.

Java: none (teaching helper). A broker indexes each message under ``topic#key`` for every key in its KEYS property
and for its UNIQ_KEY (``IndexService#buildIndex``). A query hashes ``topic#key``, reads the key's slot and walks the
slot's chain newest first (``IndexFile#selectPhyOffset``), keeping the entries whose hash equals the key's; the
broker then reads those records and the client drops the ones whose keys differ (the file holds hashes only). The
references here read the index files with ``mqlab.spark.store_files`` and the records with
``mqlab.labs.spark.stored_records``, in plain Python; the checkers grade the reader's tables with ``grade_table``.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from mqlab.common.message import message_const as mc
from mqlab.labs.spark import StoredRecord, stored_records
from mqlab.labs.spark.grading import grade_table
from mqlab.spark import store_files
from mqlab.store.index.index_file import index_key_hash

KEY_SEPARATOR = "#"  # IndexService#buildKey


def indexed_keys(record: StoredRecord) -> set[str]:
    """The keys a record is indexed under: each KEYS entry (split on spaces) and its UNIQ_KEY."""
    keys = set((record.properties.get(mc.PROPERTY_KEYS) or "").split(mc.KEY_SEPARATOR)) - {""}
    uniq = record.properties.get(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
    return keys | ({uniq} if uniq else set())


def _chains(root: str | Path, topic: str, key: str) -> list[dict[str, Any]]:
    key_hash = index_key_hash(topic + KEY_SEPARATOR + key)
    rows = []
    for store in store_files.find_stores(Path(root)):
        for ref in store_files.find_index_files(store):
            (batch,) = store_files.index_batches(ref, "entries")
            slot = key_hash % ref.hash_slot_num
            rows += [
                {**entry, "matches_hash": entry["key_hash"] == key_hash}
                for entry in batch.to_pylist()
                if entry["slot"] == slot and entry["chain_position"] is not None
            ]
    return rows


def expected_chain(root: str | Path, topic: str, key: str) -> list[dict[str, Any]]:
    """Every entry on the chain of ``topic#key``'s slot, per broker.

    Columns ``broker``, ``entry``, ``chain_position``, ``key_hash``, ``phy_offset``.
    """
    columns = ("broker", "entry", "chain_position", "key_hash", "phy_offset")
    return [{c: row[c] for c in columns} for row in _chains(root, topic, key)]


def expected_matches(root: str | Path, topic: str, key: str) -> list[dict[str, Any]]:
    """The records of ``topic`` indexed under ``key``, found by a full scan: ``broker``, ``physical_offset``."""
    return [
        {"broker": r.broker, "physical_offset": int(r.msg_id[-16:], 16)}
        for r in stored_records(root)
        if r.topic == topic and key in indexed_keys(r)
    ]


def expected_cost(root: str | Path, topic: str, key: str) -> list[dict[str, Any]]:
    """What a query by key reads on each broker, against a full scan.

    Columns ``broker``, ``chain_entries`` walked, ``hash_matches`` (records the broker reads), ``key_matches``
    (records the client keeps), and ``scanned_records`` (what a full scan of the CommitLog reads instead).
    """
    chains = _chains(root, topic, key)
    walked = Counter(row["broker"] for row in chains)
    hashed = Counter(row["broker"] for row in chains if row["matches_hash"])
    kept = Counter(row["broker"] for row in expected_matches(root, topic, key))
    scanned = Counter(r.broker for r in stored_records(root))
    return [
        {
            "broker": broker,
            "chain_entries": walked[broker],
            "hash_matches": hashed[broker],
            "key_matches": kept[broker],
            "scanned_records": scanned[broker],
        }
        for broker in sorted(scanned)
    ]


def check_chain(answer: Any, root: str | Path, topic: str, key: str) -> bool:
    """Exercise 1: the slot chain of ``topic#key`` on each broker, other keys' entries included."""
    return grade_table(
        answer,
        expected_chain(root, topic, key),
        name="the key's slot chain",
        key=("broker", "entry"),
        columns=("chain_position", "key_hash", "phy_offset"),
        hint="slot = index_key_hash(topic#key) % hash_slot_num; keep every entry of that slot, whatever its hash",
    )


def check_matches(answer: Any, root: str | Path, topic: str, key: str) -> bool:
    """Exercise 2: the records found by key through the index, equal to a full scan's."""
    return grade_table(
        answer,
        expected_matches(root, topic, key),
        name="query by key",
        key=("broker", "physical_offset"),
        hint="keep the chain entries whose key_hash is the key's, then the records whose keys really hold the key",
    )


def check_cost(answer: Any, root: str | Path, topic: str, key: str) -> bool:
    """Exercise 3: what the index query reads per broker, against a full scan."""
    return grade_table(
        answer,
        expected_cost(root, topic, key),
        name="index against full scan",
        key="broker",
        columns=("chain_entries", "hash_matches", "key_matches", "scanned_records"),
        hint="chain_entries counts the whole chain, hash_matches only entries with the key's hash",
    )

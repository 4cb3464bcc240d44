"""The store's other files as tables: where the stores are, IndexFile header/slots/entries, config JSON, checkpoint.

Java: none (teaching helper). Nothing here needs Spark; ``datasources`` calls these functions in a worker, and
plain unit tests call them directly. The decoding is mqlab's own: ``index_header.decode_header`` and the entry
layout of ``index_file``, the ``from_json`` of ``TopicConfigSerializeWrapper``, ``SubscriptionGroupConfig`` and
``DelayOffsetSerializeWrapper``, ``ConsumerOffsetManager#decode`` (fastjson's bare-number keys included), and the
checkpoint layout of ``store_checkpoint``. Each table is declared once as a tuple of ``segment_reader.Column``.

**Stores.** A path is either one store root (a directory with ``commitlog/``, ``consumequeue/``, ``index/``,
``config/`` or ``checkpoint``; or one of those directories itself), or a directory of brokers whose children are
store roots or hold one in ``store/`` (``mqlab gen-store`` writes ``<out>/broker-a/store``). Every row carries the
broker's name: the child's name, or for a single root ``broker_name_of`` it (or the option ``broker``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mqlab.broker.offset.consumer_offset_manager import TOPIC_GROUP_SEPARATOR, ConsumerOffsetManager
from mqlab.common.extras import needs_extra
from mqlab.common.protocol.body.topic_config_serialize_wrapper import TopicConfigSerializeWrapper
from mqlab.common.subscription.subscription_group_config import SubscriptionGroupConfig
from mqlab.remoting.protocol import remoting_serializable
from mqlab.spark.segment_reader import (
    BOOLEAN,
    INT,
    LONG,
    STRING,
    TIMESTAMP,
    Column,
    arrow_schema,
    broker_name_of,
)
from mqlab.store import store_checkpoint
from mqlab.store.index.index_file import (
    ENTRY_FIELDS,
    HASH_SLOT_SIZE,
    INDEX_SIZE,
    INVALID_INDEX,
    abs_index_pos,
)
from mqlab.store.index.index_header import HEADER_FIELDS, INDEX_HEADER_SIZE, decode_header
from mqlab.store.schedule.delay_offset_serialize_wrapper import DelayOffsetSerializeWrapper

with needs_extra("spark", __name__):
    import numpy as np
    import pyarrow as pa

STORE_PARTS = ("commitlog", "consumequeue", "index", "config", "checkpoint")


# -- where the stores are ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class StoreRoot:
    """One broker's store directory and the broker name its rows carry."""

    broker: str
    path: str


def _is_store_root(path: Path) -> bool:
    return path.is_dir() and any((path / part).exists() for part in STORE_PARTS)


def find_stores(path: str | os.PathLike[str], broker: str | None = None) -> list[StoreRoot]:
    """The store roots under ``path`` (see the module docstring), by broker name.

    Raises:
        FileNotFoundError: ``path`` is missing or holds no store.
        ValueError: ``broker`` given for a directory holding several stores.
    """
    base = Path(path).resolve()
    if not base.is_dir():
        raise FileNotFoundError(f"no such directory: {os.fspath(path)!r}")
    if base.name in STORE_PARTS[:4] and _is_store_root(base.parent):
        base = base.parent
    if _is_store_root(base):
        return [StoreRoot(broker or broker_name_of(base), str(base))]
    found = []
    for child in sorted(c for c in base.iterdir() if c.is_dir()):
        for candidate in (child / "store", child):
            if _is_store_root(candidate):
                found.append(StoreRoot(child.name, str(candidate)))
                break
    if not found:
        raise FileNotFoundError(f"neither a store root nor a directory of brokers' stores: {os.fspath(path)!r}")
    if broker is not None and len(found) > 1:
        raise ValueError(f"option broker={broker!r} names one store, but {os.fspath(path)!r} holds {len(found)}")
    if broker is not None:
        found = [StoreRoot(broker, found[0].path)]
    return found


def _batch(columns: tuple[Column, ...], rows: list[dict]) -> pa.RecordBatch:
    schema = arrow_schema(columns)
    return pa.RecordBatch.from_pylist(rows, schema=schema)


# -- IndexFile ---------------------------------------------------------------------------------------------------
DEFAULT_INDEX_RATIO = 4  # maxIndexNum / maxHashSlotNum of the defaults (20,000,000 / 5,000,000)

INDEX_HEADER_COLUMNS: tuple[Column, ...] = (
    Column("broker", *STRING, "broker whose store holds the file"),
    Column("file", *STRING, "index file name (its creation time, yyyyMMddHHmmssSSS)"),
    *(Column(f.attr, *(LONG if f.code == "q" else INT), f"{f.java_name}: {f.meaning}") for f in HEADER_FIELDS),
    Column("hash_slot_num", *INT, "slots in the file (option hashSlotNum, else derived from the file size)"),
    Column("index_num", *INT, "entries in the file, entry 0 included"),
)
INDEX_SLOT_COLUMNS: tuple[Column, ...] = (
    Column("broker", *STRING, "broker whose store holds the file"),
    Column("file", *STRING, "index file name"),
    Column("slot", *INT, "slot number: keyHash % hashSlotNum"),
    Column("head", *INT, "the slot's value: number of the newest entry in it (empty slots are not rows)"),
    Column("chain_length", *INT, "entries reached by following prevIndex from the head (the slot chain)"),
)
INDEX_ENTRY_COLUMNS: tuple[Column, ...] = (
    Column("broker", *STRING, "broker whose store holds the file"),
    Column("file", *STRING, "index file name"),
    Column("entry", *INT, "entry number (1 .. indexCount - 1)"),
    *(Column(f.attr, *(LONG if f.code == "q" else INT), f"{f.java_name}: {f.meaning}") for f in ENTRY_FIELDS),
    Column("slot", *INT, "the slot the entry's hash falls into"),
    Column("store_timestamp", *TIMESTAMP, "beginTimestamp + timeDiff seconds (second precision)"),
    Column("chain_position", *INT, "0 for the slot's head, 1 for the entry its head points to, ... (null: unlinked)"),
)
INDEX_TABLES = {"header": INDEX_HEADER_COLUMNS, "slots": INDEX_SLOT_COLUMNS, "entries": INDEX_ENTRY_COLUMNS}


@dataclass(frozen=True, slots=True)
class IndexFileRef:
    """One index file and the slot count used to read it (picklable: one Spark task)."""

    broker: str
    path: str
    name: str
    size: int
    hash_slot_num: int

    @property
    def index_num(self) -> int:
        """Entries the file has room for, derived from its size and slot count."""
        return (self.size - INDEX_HEADER_SIZE - self.hash_slot_num * HASH_SLOT_SIZE) // INDEX_SIZE


def infer_hash_slot_num(size: int, ratio: int = DEFAULT_INDEX_RATIO) -> int:
    """Slots of an index file of ``size`` bytes if it has ``ratio`` times more entries than slots.

    The file does not record its slot count (``maxHashSlotNum`` is broker configuration); with the defaults'
    ratio of 4 the size ``40 + 4 S + 20 * 4 S`` gives ``S``. Pass the option ``hashSlotNum`` otherwise.

    Raises:
        ValueError: the size does not fit that ratio.
    """
    per_slot = HASH_SLOT_SIZE + ratio * INDEX_SIZE
    slots, rest = divmod(size - INDEX_HEADER_SIZE, per_slot)
    if rest or slots <= 0:
        raise ValueError(
            f"an index file of {size} bytes does not have {ratio} entries per slot: pass the option hashSlotNum"
        )
    return slots


def find_index_files(store: StoreRoot, hash_slot_num: int | None = None) -> list[IndexFileRef]:
    """The index files of a store, oldest first.

    Raises:
        ValueError: ``hash_slot_num`` too large for a file, or not given and not derivable (see
            ``infer_hash_slot_num``).
    """
    directory = Path(store.path) / "index"
    if not directory.is_dir():
        return []
    found = []
    for f in sorted(directory.iterdir()):
        if not (f.is_file() and f.name.isdigit()):
            continue
        size = f.stat().st_size
        slots = hash_slot_num if hash_slot_num is not None else infer_hash_slot_num(size)
        if INDEX_HEADER_SIZE + slots * HASH_SLOT_SIZE > size:
            raise ValueError(f"hashSlotNum={slots} does not fit index/{f.name} of {size} bytes")
        found.append(IndexFileRef(store.broker, str(f), f.name, size, slots))
    return found


def _read_index(ref: IndexFileRef) -> tuple[dict[str, int], np.ndarray, np.ndarray]:
    """Header, slot values, and the used entries as a structured array (entries 0 .. indexCount - 1)."""
    with open(ref.path, "rb") as f:
        header = decode_header(f.read(INDEX_HEADER_SIZE))
        slots = np.frombuffer(f.read(ref.hash_slot_num * HASH_SLOT_SIZE), dtype=">i4")
        count = max(0, min(header["index_count"], ref.index_num))
        f.seek(abs_index_pos(ref.hash_slot_num, 0))
        raw = f.read(count * INDEX_SIZE)
    dtype = np.dtype([(e.attr, ">i8" if e.code == "q" else ">i4") for e in ENTRY_FIELDS])
    return header, slots, np.frombuffer(raw, dtype=dtype)


def chain_positions(slots: np.ndarray, entries: np.ndarray) -> dict[int, tuple[int, int]]:
    """``entry number -> (slot, position in its slot's chain)``, following each slot's chain from its head.

    The walk stops at the link rules of ``IndexFile#selectPhyOffset`` (``IndexFile._chain_ends``): no previous entry,
    a link out of range, or a link to itself; a cycle stops at the first repeat.
    """
    count = len(entries)
    positions: dict[int, tuple[int, int]] = {}
    for slot in np.flatnonzero(slots > INVALID_INDEX).tolist():
        number, depth = int(slots[slot]), 0
        while INVALID_INDEX < number < count and number not in positions:
            positions[number] = (slot, depth)
            previous = int(entries[number]["prev_index"])
            if previous == number:
                break
            number, depth = previous, depth + 1
    return positions


def index_batches(ref: IndexFileRef, table: str) -> Iterator[pa.RecordBatch]:
    """One Arrow batch with the file's ``header``, its non-empty ``slots`` or its ``entries``."""
    header, slots, entries = _read_index(ref)
    common = {"broker": ref.broker, "file": ref.name}
    if table == "header":
        rows = [{**common, **header, "hash_slot_num": ref.hash_slot_num, "index_num": ref.index_num}]
    elif table == "slots":
        positions = chain_positions(slots, entries)
        lengths: dict[int, int] = {}
        for slot, _ in positions.values():
            lengths[slot] = lengths.get(slot, 0) + 1
        rows = [
            {**common, "slot": slot, "head": int(slots[slot]), "chain_length": lengths.get(slot, 0)}
            for slot in np.flatnonzero(slots > INVALID_INDEX).tolist()
        ]
    else:
        positions = chain_positions(slots, entries)
        begin = header["begin_timestamp"]
        rows = []
        for number in range(1, len(entries)):
            entry = {e.attr: int(entries[number][e.attr]) for e in ENTRY_FIELDS}
            rows.append(
                {
                    **common,
                    "entry": number,
                    **entry,
                    "slot": entry["key_hash"] % ref.hash_slot_num,
                    "store_timestamp": (begin + entry["time_diff"] * 1000) * 1000,
                    "chain_position": positions[number][1] if number in positions else None,
                }
            )
    yield _batch(INDEX_TABLES[table], rows)


# -- config JSON and the checkpoint ------------------------------------------------------------------------------
TOPIC_COLUMNS: tuple[Column, ...] = (
    Column("broker", *STRING, "broker whose config/topics.json this is"),
    Column("topic", *STRING, "topicName"),
    Column("read_queue_nums", *INT, "readQueueNums"),
    Column("write_queue_nums", *INT, "writeQueueNums"),
    Column("perm", *INT, "perm: 4 read, 2 write, 1 inherit"),
    Column("topic_filter_type", *STRING, "topicFilterType"),
    Column("topic_sys_flag", *INT, "topicSysFlag"),
    Column("order", *BOOLEAN, "order"),
)
SUBSCRIPTION_GROUP_COLUMNS: tuple[Column, ...] = (
    Column("broker", *STRING, "broker whose config/subscriptionGroup.json this is"),
    Column("group", *STRING, "groupName"),
    Column("consume_enable", *BOOLEAN, "consumeEnable"),
    Column("consume_from_min_enable", *BOOLEAN, "consumeFromMinEnable"),
    Column("consume_broadcast_enable", *BOOLEAN, "consumeBroadcastEnable"),
    Column("retry_queue_nums", *INT, "retryQueueNums"),
    Column("retry_max_times", *INT, "retryMaxTimes"),
    Column("broker_id", *LONG, "brokerId"),
    Column("which_broker_when_consume_slowly", *LONG, "whichBrokerWhenConsumeSlowly"),
    Column("notify_consumer_ids_changed_enable", *BOOLEAN, "notifyConsumerIdsChangedEnable"),
)
CONSUMER_OFFSET_COLUMNS: tuple[Column, ...] = (
    Column("broker", *STRING, "broker whose config/consumerOffset.json this is"),
    Column("topic", *STRING, "topic part of the key topic@group"),
    Column("group", *STRING, "group part of the key topic@group"),
    Column("queue_id", *INT, "queue id"),
    Column("offset", *LONG, "committed offset: the next queue offset the group will consume"),
)
DELAY_OFFSET_COLUMNS: tuple[Column, ...] = (
    Column("broker", *STRING, "broker whose config/delayOffset.json this is"),
    Column("delay_level", *INT, "delay level (queue level - 1 of SCHEDULE_TOPIC_XXXX)"),
    Column("offset", *LONG, "next offset of that schedule queue to deliver"),
)
CHECKPOINT_COLUMNS: tuple[Column, ...] = (
    Column("broker", *STRING, "broker whose checkpoint file this is"),
    Column("physic_msg_timestamp", *TIMESTAMP, "physicMsgTimestamp: last flushed CommitLog store time"),
    Column("logics_msg_timestamp", *TIMESTAMP, "logicsMsgTimestamp: last flushed ConsumeQueue store time"),
    Column("index_msg_timestamp", *TIMESTAMP, "indexMsgTimestamp: last flushed index store time"),
    Column("min_timestamp", *TIMESTAMP, "StoreCheckpoint#getMinTimestamp: where abnormal recovery starts"),
)


def _config_text(store: StoreRoot, name: str) -> str | None:
    path = Path(store.path) / "config" / name
    return path.read_text(encoding="utf-8") if path.is_file() else None


def topic_rows(store: StoreRoot) -> list[dict]:
    """``config/topics.json`` decoded by ``TopicConfigSerializeWrapper.from_json``."""
    text = _config_text(store, "topics.json")
    if text is None:
        return []
    wrapper = TopicConfigSerializeWrapper.from_json(remoting_serializable.from_json(text))
    return [
        {
            "broker": store.broker,
            "topic": name,
            "read_queue_nums": c.read_queue_nums,
            "write_queue_nums": c.write_queue_nums,
            "perm": c.perm,
            "topic_filter_type": c.topic_filter_type.name,
            "topic_sys_flag": c.topic_sys_flag,
            "order": c.order,
        }
        for name, c in wrapper.topic_config_table.items()
    ]


def subscription_group_rows(store: StoreRoot) -> list[dict]:
    """``config/subscriptionGroup.json`` decoded by ``SubscriptionGroupConfig.from_json``."""
    text = _config_text(store, "subscriptionGroup.json")
    if text is None:
        return []
    table = (remoting_serializable.from_json(text) or {}).get("subscriptionGroupTable") or {}
    rows = []
    for name, data in table.items():
        c = SubscriptionGroupConfig.from_json(data)
        rows.append(
            {
                "broker": store.broker,
                "group": c.group_name or str(name),
                "consume_enable": c.consume_enable,
                "consume_from_min_enable": c.consume_from_min_enable,
                "consume_broadcast_enable": c.consume_broadcast_enable,
                "retry_queue_nums": c.retry_queue_nums,
                "retry_max_times": c.retry_max_times,
                "broker_id": c.broker_id,
                "which_broker_when_consume_slowly": c.which_broker_when_consume_slowly,
                "notify_consumer_ids_changed_enable": c.notify_consumer_ids_changed_enable,
            }
        )
    return rows


def consumer_offset_rows(store: StoreRoot) -> list[dict]:
    """``config/consumerOffset.json`` decoded by ``ConsumerOffsetManager#decode``."""
    text = _config_text(store, "consumerOffset.json")
    if text is None:
        return []
    manager = ConsumerOffsetManager(store.path)
    manager.decode(text)
    rows = []
    for key, table in manager.offset_table.items():
        topic, _, group = key.partition(TOPIC_GROUP_SEPARATOR)
        rows += [
            {"broker": store.broker, "topic": topic, "group": group, "queue_id": q, "offset": o}
            for q, o in sorted(table.items())
        ]
    return rows


def delay_offset_rows(store: StoreRoot) -> list[dict]:
    """``config/delayOffset.json`` decoded by ``DelayOffsetSerializeWrapper.from_json``."""
    text = _config_text(store, "delayOffset.json")
    wrapper = DelayOffsetSerializeWrapper.from_json(text) if text is not None else None
    if wrapper is None:
        return []
    return [
        {"broker": store.broker, "delay_level": level, "offset": offset}
        for level, offset in sorted(wrapper.offset_table.items())
    ]


@dataclass(frozen=True, slots=True)
class _Checkpoint:
    physic_msg_timestamp: int
    logics_msg_timestamp: int
    index_msg_timestamp: int

    get_min_timestamp = store_checkpoint.StoreCheckpoint.get_min_timestamp  # the store's own rule, read-only here


def checkpoint_rows(store: StoreRoot) -> list[dict]:
    """The ``checkpoint`` file, read-only, with ``store_checkpoint``'s layout (three longs at 0, 8, 16)."""
    path = Path(store.path) / "checkpoint"
    if not path.is_file():
        return []
    data = path.read_bytes()
    layout = store_checkpoint._LAYOUT  # the one declaration of the layout (StoreCheckpoint itself opens read-write)
    if len(data) < layout.size:
        raise ValueError(f"checkpoint of {store.broker} has {len(data)} bytes, fewer than {layout.size}")
    cp = _Checkpoint(*layout.unpack_from(data, 0))
    return [
        {
            "broker": store.broker,
            "physic_msg_timestamp": cp.physic_msg_timestamp * 1000,
            "logics_msg_timestamp": cp.logics_msg_timestamp * 1000,
            "index_msg_timestamp": cp.index_msg_timestamp * 1000,
            "min_timestamp": cp.get_min_timestamp() * 1000,
        }
    ]


SMALL_TABLES = {
    "mqlab_topics": (TOPIC_COLUMNS, topic_rows),
    "mqlab_subscription_groups": (SUBSCRIPTION_GROUP_COLUMNS, subscription_group_rows),
    "mqlab_consumer_offsets": (CONSUMER_OFFSET_COLUMNS, consumer_offset_rows),
    "mqlab_delay_offsets": (DELAY_OFFSET_COLUMNS, delay_offset_rows),
    "mqlab_checkpoint": (CHECKPOINT_COLUMNS, checkpoint_rows),
}


def small_table_batches(format_name: str, store: StoreRoot) -> Iterator[pa.RecordBatch]:
    """The rows of one store's file for a small table, as one batch (none when the file is absent)."""
    columns, rows_of = SMALL_TABLES[format_name]
    rows = rows_of(store)
    if rows:
        yield _batch(columns, rows)

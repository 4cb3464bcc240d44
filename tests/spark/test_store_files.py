"""The store's other files as tables (``store_files``), checked against mqlab's own readers, without Spark."""

from __future__ import annotations

import json
import shutil

import pytest

from mqlab.broker.offset.consumer_offset_manager import ConsumerOffsetManager
from mqlab.common.message import message_const as mc
from mqlab.runtime.simulated import SimulatedWorld
from mqlab.spark import store_files as sf
from mqlab.store.index.index_file import IndexFile, index_key_hash
from mqlab.store.schedule.delay_offset_serialize_wrapper import DelayOffsetSerializeWrapper


@pytest.fixture
def store(sample_store):
    return sf.find_stores(sample_store.root)[0]


@pytest.mark.spec("SDS-2")
def test_stores_are_found_from_a_root_a_part_or_a_directory_of_brokers(sample_store, tmp_path):
    root = sample_store.root
    assert sf.find_stores(root) == [sf.StoreRoot("broker-a", str(root))]
    assert sf.find_stores(root / "commitlog") == sf.find_stores(root)
    assert sf.find_stores(root, "b7") == [sf.StoreRoot("b7", str(root))]
    (tmp_path / "broker-x").symlink_to(root.parent, target_is_directory=True)
    (tmp_path / "y").symlink_to(root, target_is_directory=True)  # a store root directly under the directory
    (tmp_path / "notes").mkdir()
    found = sf.find_stores(tmp_path)
    assert [s.broker for s in found] == ["broker-x", "y"]
    with pytest.raises(FileNotFoundError, match="neither a store root"):
        sf.find_stores(tmp_path / "notes")
    with pytest.raises(FileNotFoundError, match="no such directory"):
        sf.find_stores(tmp_path / "missing")


def _index(store):
    (ref,) = sf.find_index_files(store)
    tables = {t: next(sf.index_batches(ref, t)).to_pylist() for t in sf.INDEX_TABLES}
    return ref, tables


@pytest.mark.spec("SDS-3")
def test_index_header_and_size_are_read_with_the_default_ratio(store):
    ref, tables = _index(store)
    (header,) = tables["header"]
    assert ref.index_num == 4 * ref.hash_slot_num
    assert header["index_count"] - 1 == len(tables["entries"])
    assert header["hash_slot_count"] == len(tables["slots"])
    with pytest.raises(ValueError, match="hashSlotNum"):
        sf.infer_hash_slot_num(ref.size + 4)
    with pytest.raises(ValueError, match="does not fit"):
        sf.find_index_files(store, ref.size)


@pytest.mark.spec("SDS-3", "SDS-9")
def test_index_slot_chains_equal_index_file_walk(sample_store, store, tmp_path):
    ref, tables = _index(store)
    copy = tmp_path / "index" / ref.name
    copy.parent.mkdir()
    shutil.copyfile(ref.path, copy)
    runtime = SimulatedWorld(seed=1).runtime("broker-a")
    index_file = IndexFile(copy, ref.hash_slot_num, ref.index_num, 0, 0, runtime=runtime)
    index_file.load()
    entries = {e["entry"]: e for e in tables["entries"]}
    heads = {s["slot"]: s for s in tables["slots"]}
    keys = {f"{m.topic}#{m.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)}" for _, m in sample_store.messages}
    try:
        for key in sorted(keys)[:200]:
            chain = index_file.walk_slot_chain(key)
            slot = index_key_hash(key) % ref.hash_slot_num
            assert chain and heads[slot]["head"] == chain[0].number and heads[slot]["chain_length"] == len(chain)
            for depth, entry in enumerate(chain):
                row = entries[entry.number]
                assert (row["slot"], row["chain_position"], row["phy_offset"], row["prev_index"]) == (
                    slot,
                    depth,
                    entry.phy_offset,
                    entry.prev_index,
                )
    finally:
        index_file.close()
    assert sum(s["chain_length"] for s in tables["slots"]) == len(tables["entries"])


CONSUMER_OFFSETS = (
    '{\n\t"offsetTable":{\n\t\t"TopicOrders@CG_BILLING":{0:164,1:174\n\t\t},"%RETRY%CG_B@CG_B":{0:3}\n\t}\n}'
)
TOPIC = {"order": False, "perm": 6, "readQueueNums": 4, "topicFilterType": "SINGLE_TAG", "topicName": "TopicOrders"}
TOPICS = json.dumps({"topicConfigTable": {"TopicOrders": {**TOPIC, "topicSysFlag": 0, "writeQueueNums": 4}}})
GROUP = {"brokerId": 0, "consumeEnable": False, "groupName": "CG_BILLING", "retryMaxTimes": 3}
GROUPS = json.dumps({"dataVersion": {"counter": 1, "timestamp": 1}, "subscriptionGroupTable": {"CG_BILLING": GROUP}})


@pytest.mark.spec("SDS-3")
def test_config_tables_equal_mqlab_decoders(sample_store, tmp_path):
    root = tmp_path / "broker-a" / "store"
    shutil.copytree(sample_store.root / "config", root / "config")
    shutil.copyfile(sample_store.root / "checkpoint", root / "checkpoint")
    for name, text in [("consumerOffset", CONSUMER_OFFSETS), ("topics", TOPICS), ("subscriptionGroup", GROUPS)]:
        (root / "config" / f"{name}.json").write_text(text)
    (store,) = sf.find_stores(root)
    manager = ConsumerOffsetManager(root)
    manager.decode(CONSUMER_OFFSETS)
    offsets = {(r["topic"], r["group"], r["queue_id"]): r["offset"] for r in sf.consumer_offset_rows(store)}
    expected = {(*key.split("@"), q): o for key, table in manager.offset_table.items() for q, o in table.items()}
    assert (
        offsets
        == expected
        == {
            ("TopicOrders", "CG_BILLING", 0): 164,
            ("TopicOrders", "CG_BILLING", 1): 174,
            ("%RETRY%CG_B", "CG_B", 0): 3,
        }
    )
    delay = DelayOffsetSerializeWrapper.from_json((root / "config" / "delayOffset.json").read_text())
    assert {r["delay_level"]: r["offset"] for r in sf.delay_offset_rows(store)} == delay.offset_table
    assert sf.topic_rows(store) == [
        {
            "broker": "broker-a",
            "topic": "TopicOrders",
            "read_queue_nums": 4,
            "write_queue_nums": 4,
            "perm": 6,
            "topic_filter_type": "SINGLE_TAG",
            "topic_sys_flag": 0,
            "order": False,
        }
    ]
    (group,) = sf.subscription_group_rows(store)
    assert (group["group"], group["consume_enable"], group["retry_max_times"]) == ("CG_BILLING", False, 3)
    (checkpoint,) = sf.checkpoint_rows(store)
    assert checkpoint["physic_msg_timestamp"] > 0
    assert checkpoint["min_timestamp"] == max(
        0, min(checkpoint["physic_msg_timestamp"], checkpoint["logics_msg_timestamp"]) - 3_000_000
    )
    for name in sf.SMALL_TABLES:
        for batch in sf.small_table_batches(name, store):
            assert batch.schema.equals(sf.arrow_schema(sf.SMALL_TABLES[name][0]))


def test_missing_files_give_no_rows(tmp_path):
    (tmp_path / "config").mkdir()
    store = sf.StoreRoot("b", str(tmp_path))
    assert [list(sf.small_table_batches(name, store)) for name in sf.SMALL_TABLES] == [[]] * len(sf.SMALL_TABLES)
    assert sf.find_index_files(store) == []
    (tmp_path / "checkpoint").write_bytes(b"\x00" * 8)
    with pytest.raises(ValueError, match="fewer than 24"):
        sf.checkpoint_rows(store)

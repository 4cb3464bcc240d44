"""StoreCheckpoint: three timestamps at offsets 0, 8 and 16 of a 4096-byte file (after 4.9.3's
StoreCheckpointTest)."""

import struct

import pytest

from mqlab.store.store_checkpoint import StoreCheckpoint
from tests.store.helpers import inner


@pytest.mark.spec("STORE-18")
def test_write_and_read_back(tmp_path):
    # 4.9.3 StoreCheckpointTest#testWriteAndRead
    path = tmp_path / "checkpoint_test" / "0000"
    checkpoint = StoreCheckpoint(path)
    checkpoint.physic_msg_timestamp = 0xAABB
    checkpoint.logics_msg_timestamp = 0xCCDD
    checkpoint.flush()
    assert 0xAABB - checkpoint.get_min_timestamp() == 3000
    checkpoint.shutdown()
    again = StoreCheckpoint(path)
    assert (again.physic_msg_timestamp, again.logics_msg_timestamp) == (0xAABB, 0xCCDD)
    again.shutdown()


@pytest.mark.spec("STORE-18")
def test_the_file_is_one_page_with_three_big_endian_longs(tmp_path):
    path = tmp_path / "checkpoint"
    checkpoint = StoreCheckpoint(path)
    checkpoint.physic_msg_timestamp = 1_650_000_000_123
    checkpoint.logics_msg_timestamp = 1_650_000_000_456
    checkpoint.index_msg_timestamp = 1_650_000_000_789
    checkpoint.flush()
    data = path.read_bytes()
    assert len(data) == 4096
    assert struct.unpack_from(">qqq", data, 0) == (1_650_000_000_123, 1_650_000_000_456, 1_650_000_000_789)
    assert data[24:] == bytes(4096 - 24)
    checkpoint.shutdown()


@pytest.mark.spec("STORE-18")
def test_timestamps_reach_the_file_only_on_flush(tmp_path):
    path = tmp_path / "checkpoint"
    checkpoint = StoreCheckpoint(path)
    checkpoint.physic_msg_timestamp = 42
    assert struct.unpack_from(">q", path.read_bytes(), 0) == (0,)
    checkpoint.flush()
    assert struct.unpack_from(">q", path.read_bytes(), 0) == (42,)
    checkpoint.shutdown()  # shutdown flushes too
    checkpoint.shutdown()  # and is idempotent


@pytest.mark.spec("STORE-18")
@pytest.mark.parametrize(
    ("physic", "logics", "index", "min_ts", "min_index"),
    [
        (10_000, 20_000, 50_000, 7_000, 7_000),
        (20_000, 10_000, 5_000, 7_000, 5_000),
        (2_000, 9_000, 9_000, 0, 0),  # never negative
        (0, 0, 0, 0, 0),  # a fresh checkpoint
    ],
)
def test_min_timestamp_is_the_older_of_physic_and_logics_minus_3_seconds(
    tmp_path, physic, logics, index, min_ts, min_index
):
    checkpoint = StoreCheckpoint(tmp_path / "checkpoint")
    checkpoint.physic_msg_timestamp, checkpoint.logics_msg_timestamp = physic, logics
    checkpoint.index_msg_timestamp = index
    assert checkpoint.get_min_timestamp() == min_ts
    assert checkpoint.get_min_timestamp_index() == min_index
    checkpoint.shutdown()


@pytest.mark.spec("STORE-18")
def test_the_store_persists_the_checkpoint_at_shutdown(make_store, rt, store_root):
    store = make_store()
    result = store.put_message(inner(rt, 0))
    store.runtime.scheduler.sleep(10)
    store.shutdown()
    physic, logics, _ = struct.unpack_from(">qqq", (store_root / "checkpoint").read_bytes(), 0)
    assert physic == logics == result.append_message_result.store_timestamp

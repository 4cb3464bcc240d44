import struct

import pytest

from mqlab.cli import main
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message import Message
from mqlab.runtime import SimulatedWorld
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.store.store_verifier import verify_store

SLOTS = 64


@pytest.fixture
def store_root(tmp_path):
    world = SimulatedWorld(seed=3)
    rt = world.runtime("broker-a", ip="192.168.1.10")
    config = MessageStoreConfig.under(
        tmp_path / "store",
        mapped_file_size_commit_log=4096,
        mapped_file_size_consume_queue=400,
        max_hash_slot_num=SLOTS,
        max_index_num=512,
    )
    store = DefaultMessageStore(config, rt)
    store.load()
    store.start()
    for i in range(60):
        msg = Message("TopicTest", "TagA" if i % 2 else "TagB", f"key-{i}", f"body {i} ".encode() * 6)
        inner = MessageExtBrokerInner.from_client_message(
            msg,
            queue_id=i % 3,
            born_host=InetSocketAddress("10.0.0.2", 50000),
            store_host=InetSocketAddress("192.168.1.10", 10911),
            born_timestamp=rt.now_ms(),
        )
        assert store.put_message(inner).is_ok()
        world.run_for(5)
    store.shutdown()
    return tmp_path / "store"


@pytest.mark.spec("VERIFY-1")
def test_a_store_written_by_mqlab_verifies(store_root):
    report = verify_store(store_root, max_hash_slot_num=SLOTS)
    assert report.ok, report.lines()
    assert report.records == 60 and report.units == 60 and report.segments >= 3
    assert report.index_entries == 60  # one topic#KEYS entry per message (these carry no UNIQ_KEY)


@pytest.mark.store_left_damaged
@pytest.mark.spec("VERIFY-2")
def test_a_corrupted_body_byte_is_found_with_its_place(store_root):
    first = sorted((store_root / "commitlog").iterdir())[0]
    data = bytearray(first.read_bytes())
    data[120] ^= 0xFF  # inside the first record's body
    first.write_bytes(bytes(data))
    report = verify_store(store_root, max_hash_slot_num=SLOTS)
    assert not report.ok
    assert any("body CRC" in str(p) and "commitlog/00000000000000000000 at byte 0" in str(p) for p in report.problems)


@pytest.mark.store_left_damaged
@pytest.mark.spec("VERIFY-2")
def test_a_unit_pointing_elsewhere_is_found(store_root):
    cq = store_root / "consumequeue" / "TopicTest" / "0" / "00000000000000000000"
    data = bytearray(cq.read_bytes())
    struct.pack_into(">i", data, 20 + 8, 999)  # unit 1's size
    cq.write_bytes(bytes(data))
    problems = [str(p) for p in verify_store(store_root, max_hash_slot_num=SLOTS).problems]
    assert any("unit 1 says 999 bytes" in p for p in problems)


@pytest.mark.store_left_damaged
@pytest.mark.spec("VERIFY-2")
def test_a_missing_segment_is_a_gap(store_root):
    files = sorted((store_root / "commitlog").iterdir())
    files[1].unlink()
    problems = [str(p) for p in verify_store(store_root, max_hash_slot_num=SLOTS).problems]
    assert any("gap" in p for p in problems)
    assert any("past the CommitLog end" in p or "where no record starts" in p for p in problems)


@pytest.mark.store_left_damaged
@pytest.mark.spec("VERIFY-3")
def test_cli_verify_and_inspect(store_root, capsys):
    assert main(["store", "verify", str(store_root), "--max-hash-slot-num", str(SLOTS)]) == 0
    assert capsys.readouterr().out.rstrip().endswith("OK")
    segment = sorted((store_root / "commitlog").iterdir())[0]
    assert main(["store", "inspect", str(segment), "--limit", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[0].startswith("offset=0  kind=message")
    assert main(["store", "inspect", str(store_root / "checkpoint"), "--json"]) == 0
    assert '"physic_msg_timestamp"' in capsys.readouterr().out
    segment.write_bytes(b"\x00\x00\x00\x40\x12\x34\x56\x78" + segment.read_bytes()[8:])
    assert main(["store", "verify", str(store_root), "--max-hash-slot-num", str(SLOTS)]) == 1
    assert "undecodable record" in capsys.readouterr().out

"""Column functions (``mqlab.spark.functions``) as plain Python; their Spark wrappers run in test_datasources."""

from __future__ import annotations

import datetime as dt
import zlib
from pathlib import Path

import pytest

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.message_decoder import create_message_id
from mqlab.common.message.message_errors import BadMessageIdError
from mqlab.spark import functions as fn
from mqlab.spark import segment_reader as sr
from mqlab.spark import store_files as sf
from mqlab.store.index.index_file import index_key_hash

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.spec("SDS-8")
def test_decompress_body_only_when_the_compressed_flag_is_set():
    body = b"hello " * 50
    assert fn.decompress_body(zlib.compress(body), 0x1) == body
    assert fn.decompress_body(zlib.compress(body), 0x1 | 0x4) == body
    assert fn.decompress_body(body, 0x0) == body
    assert fn.decompress_body(None, 1) is None and fn.decompress_body(b"x", None) == b"x"
    with pytest.raises(zlib.error):
        fn.decompress_body(b"not zlib", 0x1)


@pytest.mark.spec("SDS-8")
def test_offset_msg_id_gives_back_host_and_offset():
    msg_id = create_message_id(InetSocketAddress.from_bytes(bytes([10, 0, 2, 7]), 10911), 1_310_720 + 333)
    assert fn.decode_offset_msg_id(msg_id) == {"store_host": "10.0.2.7:10911", "physical_offset": 1_311_053}
    assert fn.decode_offset_msg_id(None) is None
    with pytest.raises(BadMessageIdError):
        fn.decode_offset_msg_id("ABC")


@pytest.mark.spec("SDS-8")
def test_uniq_key_fields_and_born_time():
    now = dt.datetime(2022, 4, 15, 5, 20, 1, 373000, tzinfo=dt.UTC)
    now_ms = int(now.timestamp() * 1000)
    setter = MessageClientIDSetter(bytes([10, 0, 2, 2]), 0x03ED, 0x2F3C38E4, lambda: now_ms, dt.UTC)
    first, second = setter.create_uniq_id(), setter.create_uniq_id()
    fields = fn.decode_uniq_key(second, now + dt.timedelta(seconds=1))
    assert {k: fields[k] for k in ("ip", "pid", "class_loader_hash")} == {
        "ip": "10.0.2.2",
        "pid": 0x03ED,
        "class_loader_hash": 0x2F3C38E4,
    }
    assert fields["counter"] == fn.decode_uniq_key(first)["counter"] + 1
    assert fields["born_time"] == now
    assert fields["time_offset_ms"] == now_ms - int(dt.datetime(2022, 4, 1, tzinfo=dt.UTC).timestamp() * 1000)
    assert fn.decode_uniq_key(second)["born_time"] is None and fn.decode_uniq_key(None) is None
    # an id made late last month and read early this month belongs to last month
    late = fn.decode_uniq_key(second, dt.datetime(2022, 5, 1, 0, 0, 1))
    assert late["born_time"] == now


@pytest.mark.spec("SDS-8")
def test_index_key_hash_is_the_index_files_hash_of_topic_and_key():
    assert fn.index_key_hash("TopicOrders", "order-7") == index_key_hash("TopicOrders#order-7")
    assert fn.index_key_hash(None, "k") is None


@pytest.mark.spec("SDS-1")
def test_spec_page_column_tables_are_the_declared_ones():
    page = (ROOT / "docs" / "spec" / "spark-datasources.md").read_text()
    tables = [sr.COMMITLOG_COLUMNS, sr.CONSUMEQUEUE_COLUMNS, *sf.INDEX_TABLES.values()]
    tables += [columns for columns, _ in sf.SMALL_TABLES.values()]
    for columns in tables:
        assert sr.markdown_table(columns) in page

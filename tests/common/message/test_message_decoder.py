"""Whole records and batch bodies: golden bytes from 4.9.3's MessageDecoder, round trips, bad input."""

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.common import util_all
from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message import message_decoder as md
from mqlab.common.message.message import Message
from mqlab.common.message.message_batch import MessageBatch
from mqlab.common.message.message_client_ext import MessageClientExt
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.message_errors import (
    BadMagicCodeError,
    BodyCrcMismatchError,
    MessageFormatError,
    PropertiesTooLongError,
    TruncatedRecordError,
)
from mqlab.common.message.message_ext import MessageExt
from mqlab.runtime import SimulatedWorld
from tests.strategies import batch_messages, message_exts


def hexjoin(*parts: str) -> bytes:
    return bytes.fromhex("".join(parts))


# -- golden records, printed by 4.9.3's MessageDecoder#encode (OpenJDK 17) ------------------------------------------
GOLDEN_V4 = hexjoin(
    "000000CCDAA320A769C865ED00000001000000000000000000000000000000000000000000000000000001802BA9F400",
    "7F0000010000D903000001802BA9F47BC0A8010A00002A9F0000000000000000000000000000000E48656C6C6F20526F",
    "636B65744D5109546F70696354657374005A4B455953014F72646572494430303102554E49515F4B4559014330413830",
    "31363433303339364430364436394330303046343234303030303102434C55535445520144656661756C74436C757374",
    "657202544147530154616741",
)
GOLDEN_V6 = hexjoin(
    "000000E4DAA320A769C865ED00000001000000000000000000000000000000000000000000000030000001802BA9F400",
    "000000000000000000000000000000010000D903000001802BA9F47BFE80000000000000000000000000000100002A9F",
    "0000000000000000000000000000000E48656C6C6F20526F636B65744D5109546F70696354657374005A4B455953014F",
    "72646572494430303102554E49515F4B4559014330413830313634333033393644303644363943303030463432343030",
    "30303102434C55535445520144656661756C74436C757374657202544147530154616741",
)
# The notebook's message: the seed article's producer example, UNIQ_KEY from the simulated producer
# (seed 7, 192.168.1.100, pid 12345), born at 1650000000000 from port 55555, stored 5 ms later on queue 1.
GOLDEN_SEED = hexjoin(
    "000000C9DAA320A70BD69E5200000001000000000000000000000000000000000000000000000000000001802BA9F400",
    "C0A801640000D903000001802BA9F405C0A8010A00002A9F0000000000000000000000000000000B48656C6C6F20776F",
    "726C6409546F70696354657374005A4B455953014F72646572494431383802554E49515F4B4559014330413830313634",
    "33303339384646424646413634393345303030303030303002434C55535445520144656661756C74436C757374657202",
    "544147530154616741",
)
# new Message("TopicTest", body) with SYSFLAG 0x1, encoded with needCompress: Deflater level 5, zlib format.
GOLDEN_COMPRESSED = hexjoin(
    "00000091DAA320A714CFF562000000000000000000000000000000000000000000000000000000010000000000000001",
    "7F0000010000D9030000000000000002C0A8010A00002A9F00000000000000000000000000000017785EF348CDC9C957",
    "28CF2FCA4951F0C0CE0600E6F30CF509546F706963546573740016434C55535445520144656661756C74436C75737465",
    "72",
)

STORE = InetSocketAddress("192.168.1.10", 10911)


def as_stored(msg: Message, born: InetSocketAddress, store: InetSocketAddress, born_ts: int, store_ts: int, queue_id=1):
    """What SendMessageProcessor#asyncSendMessage and CommitLog#asyncPutMessage make of a sent message."""
    properties = md.string2message_properties(md.message_properties2string(msg.properties))
    properties["CLUSTER"] = "DefaultCluster"
    properties.pop("WAIT", None)
    ext = MessageExt.bare()
    ext.topic, ext.body, ext.flag, ext.properties, ext.queue_id = msg.topic, msg.body, msg.flag, properties, queue_id
    ext.born_timestamp, ext.born_host, ext.store_timestamp, ext.store_host = born_ts, born, store_ts, store
    if born.is_ipv6:
        ext.set_born_host_v6_flag()
    if store.is_ipv6:
        ext.set_store_host_address_v6_flag()
    ext.body_crc = util_all.crc32(msg.body)
    return ext


def golden_message() -> Message:
    msg = Message("TopicTest", "TagA", "OrderID001", b"Hello RocketMQ")
    msg.put_property("UNIQ_KEY", "C0A8016430396D06D69C000F42400001")
    return msg


@pytest.mark.spec("MSG-10")
def test_golden_record_ipv4_byte_for_byte():
    ext = as_stored(golden_message(), InetSocketAddress("127.0.0.1", 55555), STORE, 1650000000000, 1650000000123)
    record = md.encode(ext)
    assert len(record) == 204 == 91 + 14 + 9 + 90
    assert record == GOLDEN_V4


@pytest.mark.spec("MSG-10", "MSG-6")
def test_golden_record_ipv6_byte_for_byte():
    store = InetSocketAddress("fe80::1", 10911)
    ext = as_stored(golden_message(), InetSocketAddress("::1", 55555), store, 1650000000000, 1650000000123)
    assert ext.sys_flag == 0x30
    record = md.encode(ext)
    assert len(record) == 228
    assert record == GOLDEN_V6
    born_ip, born_port = record[48:64], record[64:68]
    store_ip, store_port = record[76:92], record[92:96]
    assert (born_ip.hex(), born_port.hex()) == ("00000000000000000000000000000001", "0000d903")
    assert (store_ip.hex(), store_port.hex()) == ("fe800000000000000000000000000001", "00002a9f")
    assert md.decode(record).msg_id == "FE80000000000000000000000000000100002A9F0000000000000000"


@pytest.mark.spec("MSG-10")
def test_the_seed_message_stored_like_java():
    world = SimulatedWorld(seed=7)
    producer = world.runtime("producer", ip="192.168.1.100", pid=12345)
    msg = Message("TopicTest", "TagA", "OrderID188", b"Hello world")
    MessageClientIDSetter.for_runtime(producer).set_uniq_id(msg)
    born_ts = producer.now_ms()
    world.run_for(5)
    ext = as_stored(msg, InetSocketAddress("192.168.1.100", 55555), STORE, born_ts, world.now_ms())
    assert md.encode(ext) == GOLDEN_SEED


@pytest.mark.spec("MSG-13")
def test_golden_record_decodes_to_its_fields():
    msg = md.decode(GOLDEN_V4)
    assert type(msg) is MessageExt
    assert msg.store_size == 204
    assert (msg.topic, msg.body, msg.queue_id, msg.flag, msg.sys_flag) == ("TopicTest", b"Hello RocketMQ", 1, 0, 0)
    assert (msg.queue_offset, msg.commit_log_offset) == (0, 0)
    assert (msg.reconsume_times, msg.prepared_transaction_offset) == (0, 0)
    assert msg.body_crc == 1774740973
    assert (msg.born_timestamp, msg.store_timestamp) == (1650000000000, 1650000000123)
    assert (str(msg.born_host), str(msg.store_host)) == ("127.0.0.1:55555", "192.168.1.10:10911")
    assert list(msg.properties.items()) == [
        ("KEYS", "OrderID001"),
        ("UNIQ_KEY", "C0A8016430396D06D69C000F42400001"),
        ("CLUSTER", "DefaultCluster"),
        ("TAGS", "TagA"),
    ]
    assert msg.msg_id == "C0A8010A00002A9F0000000000000000"


@pytest.mark.spec("MSG-9")
def test_body_crc_examples():
    assert util_all.crc32(b"Hello RocketMQ") == 1774740973  # raw CRC-32 0x69C865ED, top bit already clear
    assert util_all.crc32(b"Hello world") == 198614610
    assert util_all.crc32(None) == 0
    assert util_all.crc32(b"") == 0


@pytest.mark.spec("MSG-9")
@given(st.binary())
def test_body_crc_is_zlib_crc32_without_its_top_bit(body):
    import zlib

    assert util_all.crc32(body) == zlib.crc32(body) & 0x7FFFFFFF
    assert 0 <= util_all.crc32(body) < 2**31


@pytest.mark.spec("MSG-13")
@given(message_exts())
def test_messages_round_trip(ext):
    record = md.encode(ext)
    back = md.decode(record)
    assert back.store_size == len(record)
    for name in (
        "topic",
        "body",
        "flag",
        "queue_id",
        "queue_offset",
        "commit_log_offset",
        "sys_flag",
        "born_timestamp",
        "born_host",
        "store_timestamp",
        "store_host",
        "reconsume_times",
        "prepared_transaction_offset",
        "body_crc",
    ):
        assert getattr(back, name) == getattr(ext, name), name
    if ext.properties:
        assert list(back.properties.items()) == list(ext.properties.items())
    else:
        assert back.properties is None
    assert back.msg_id == md.create_message_id(ext.store_host, ext.commit_log_offset)


@pytest.mark.spec("MSG-13")
def test_no_body_decodes_to_none():
    ext = as_stored(Message("TopicTest", body=b""), InetSocketAddress("127.0.0.1", 1), STORE, 1, 2)
    ext.properties = None
    back = md.decode(md.encode(ext))
    assert back.body is None
    assert back.properties is None


@pytest.mark.spec("MSG-14")
def test_read_body_false_and_decode_properties():
    msg = md.decode(GOLDEN_V4, read_body=False)
    assert msg.body is None
    assert msg.topic == "TopicTest"
    props = md.decode_properties(GOLDEN_V4)
    assert list(props) == ["KEYS", "UNIQ_KEY", "CLUSTER", "TAGS"]
    ext = as_stored(Message("TopicTest", body=b"x"), InetSocketAddress("127.0.0.1", 1), STORE, 1, 2)
    ext.properties = None
    assert md.decode_properties(md.encode(ext)) is None


@pytest.mark.spec("MSG-15")
def test_compressed_body_like_java():
    body = b"Hello world Hello world Hello world"
    ext = as_stored(Message("TopicTest", body=body), InetSocketAddress("127.0.0.1", 55555), STORE, 1, 2, queue_id=0)
    ext.sys_flag = 0x1
    record = md.encode(ext, need_compress=True)
    assert record == GOLDEN_COMPRESSED
    assert md.decode(record).body == body
    assert md.decode(record, decompress_body=False).body == util_all.compress(body, 5)
    assert md.client_decode(record).body == body
    assert md.encode(ext) != record  # without need_compress the body is written as it is


@pytest.mark.spec("MSG-15")
@given(message_exts(compressed=True))
def test_compressed_round_trip(ext):
    assert md.decode(md.encode(ext, need_compress=True)).body == ext.body


@pytest.mark.spec("MSG-15")
def test_body_flagged_compressed_that_does_not_inflate():
    ext = as_stored(Message("TopicTest", body=b"not zlib"), InetSocketAddress("127.0.0.1", 1), STORE, 1, 2)
    ext.sys_flag = 0x1
    with pytest.raises(MessageFormatError, match="does not inflate") as error:
        md.decode(md.encode(ext))
    assert error.value.field == "BODY"
    assert md.decode(md.encode(ext), decompress_body=False).body == b"not zlib"


@pytest.mark.spec("MSG-16")
def test_decoder_checks_the_magic_code():
    bad = GOLDEN_V4[:4] + bytes(4) + GOLDEN_V4[8:]
    with pytest.raises(BadMagicCodeError) as error:
        md.decode(bad, where="frame 7")
    assert error.value.field == "MAGICCODE"
    assert error.value.position == 4
    assert "in frame 7" in str(error.value)


@pytest.mark.spec("MSG-18")
def test_decodes_stops_quietly_at_the_first_bad_record():
    first = md.encode(as_stored(golden_message(), InetSocketAddress("127.0.0.1", 1), STORE, 1, 2))
    second = GOLDEN_V4
    body = first + second + second[:50]
    messages = md.decodes(body)
    assert len(messages) == 2
    assert all(isinstance(m, MessageClientExt) for m in messages)
    assert [m.store_size for m in messages] == [len(first), len(second)]
    with pytest.raises(TruncatedRecordError):
        md.decodes(body, strict=True)
    assert len(md.decodes(first + second, strict=True)) == 2
    assert md.decodes(b"") == []


@pytest.mark.spec("MSG-18")
def test_decodes_stops_at_a_blank_record_too():
    blank = struct.pack(">ii", 64, -875286124) + bytes(56)
    assert len(md.decodes(GOLDEN_V4 + blank + GOLDEN_V4)) == 1


@pytest.mark.spec("MSG-19")
def test_check_crc():
    assert md.decode(GOLDEN_V4, check_crc=True).body == b"Hello RocketMQ"
    bad = bytearray(GOLDEN_V4)
    bad[88] ^= 0xFF  # first body byte
    assert md.decode(bytes(bad)).body_crc == 1774740973  # Java does not check
    with pytest.raises(BodyCrcMismatchError) as error:
        md.decode(bytes(bad), check_crc=True)
    assert (error.value.field, error.value.position) == ("BODYCRC", 8)


# -- batch bodies, printed by 4.9.3's MessageBatch#encode -----------------------------------------------------------
GOLDEN_BATCH = hexjoin(
    "0000005E000000000000000000000000000000036F6E6500454B455953016B3102554E49515F4B455901433041383031",
    "363433303339364430364436394330303046343234303030303102574149540174727565025441475301546167410000",
    "00230000000000000000000000070000000474776F210009574149540174727565",
)


def batch_inputs() -> list[Message]:
    first = Message("TopicTest", "TagA", "k1", b"one")
    first.put_property("UNIQ_KEY", "C0A8016430396D06D69C000F42400001")
    return [first, Message("TopicTest", body=b"two!", flag=7)]


@pytest.mark.spec("MSG-20")
def test_batch_body_like_java():
    batch = MessageBatch.generate_from_list(batch_inputs())
    body = batch.encode()
    assert body == GOLDEN_BATCH
    assert md.encode_message(Message("TopicTest", body=b"")) == bytes.fromhex(
        "0000001F000000000000000000000000000000000009574149540174727565"
    )
    first_size = struct.unpack_from(">i", body)[0]
    assert first_size == 20 + 3 + 2 + 69
    assert struct.unpack_from(">iii", body, 4)[:2] == (0, 0)  # MAGICCODE and BODYCRC are written as 0


@pytest.mark.spec("MSG-20")
def test_batch_body_decodes_back():
    messages = md.decode_messages(GOLDEN_BATCH)
    assert [m.body for m in messages] == [b"one", b"two!"]
    assert [m.flag for m in messages] == [0, 7]
    assert list(messages[0].properties) == ["KEYS", "UNIQ_KEY", "WAIT", "TAGS"]
    assert dict(messages[1].properties) == {"WAIT": "true"}


@pytest.mark.spec("MSG-20")
@given(st.lists(batch_messages(), max_size=5))
def test_batch_bodies_round_trip(messages):
    back = md.decode_messages(md.encode_messages(messages))
    assert len(back) == len(messages)
    for original, copy in zip(messages, back, strict=True):
        assert copy.flag == original.flag
        assert copy.body == original.body
        assert list(copy.properties.items()) == list(original.properties.items())


@pytest.mark.spec("MSG-20")
def test_batch_properties_limit_and_truncation():
    big = Message.bare()
    big.body = b"x"
    big.put_property("K", "v" * 32766)  # "K" 0x01 value = 32768 bytes
    with pytest.raises(PropertiesTooLongError, match="32768") as error:
        md.encode_message(big)
    assert error.value.field == "PROPERTIES"
    big.put_property("K", "v" * 32765)  # exactly 32767 bytes is fine
    assert len(md.encode_message(big)) == 20 + 1 + 2 + 32767
    for cut, field in ((10, "TOTALSIZE"), (22, "BODY"), (93, "PROPERTIES"), (len(GOLDEN_BATCH) - 1, "PROPERTIES")):
        with pytest.raises(TruncatedRecordError) as truncated:
            md.decode_messages(GOLDEN_BATCH[:cut])
        assert truncated.value.field == field


@pytest.mark.spec("MSG-17", "MSG-18")
@pytest.mark.parametrize(("position", "field", "field_start"), [(52, "BORNHOST", 48), (68, "STOREHOSTADDRESS", 64)])
def test_an_impossible_port_is_a_named_format_error(position, field, field_start):
    bad = bytearray(GOLDEN_V4)
    struct.pack_into(">i", bad, position, 70000)
    assert md.decodes(bytes(bad)) == []  # Java's decode returns null here, so decodes stops
    with pytest.raises(MessageFormatError, match="impossible address") as error:
        md.decode(bytes(bad), where="frame 3")
    assert (error.value.field, error.value.position, error.value.where) == (field, field_start, "frame 3")

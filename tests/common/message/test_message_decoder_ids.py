"""offsetMsgId: MessageDecoder#createMessageId and #decodeMessageId."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.message import message_decoder as md
from mqlab.common.message.message_errors import BadMessageIdError, MessageFormatError
from mqlab.common.message.message_ext import MessageExt
from mqlab.common.message.message_id import MessageId
from tests.strategies import hosts, java_longs


@pytest.mark.spec("ID-1")
def test_create_examples():
    assert md.create_message_id(InetSocketAddress("192.168.1.10", 10911), 0) == "C0A8010A00002A9F0000000000000000"
    assert md.create_message_id(InetSocketAddress("fe80::1", 10911), 0) == (
        "FE80000000000000000000000000000100002A9F0000000000000000"
    )
    # 4.9.3 prints this for 10.0.0.1:65535 at offset -1.
    assert md.create_message_id(InetSocketAddress("10.0.0.1", 65535), -1) == "0A0000010000FFFFFFFFFFFFFFFFFFFF"


@pytest.mark.spec("ID-2")
def test_decode_the_examples_of_message_decoder_test():
    v4 = md.decode_message_id("645100FA00002A9F000000489A3AA09E")
    assert v4 == MessageId(InetSocketAddress("100.81.0.250", 10911), 0x489A3AA09E)
    assert v4.offset == 311825178782
    v6 = md.decode_message_id("24084004018081003FAA1DDE2B3F898A00002A9F0000000000000CA0")
    assert v6.address == InetSocketAddress("2408:4004:180:8100:3faa:1dde:2b3f:898a", 10911)
    assert v6.offset == 3232


@pytest.mark.spec("ID-2")
def test_lower_case_hex_is_read_too():
    assert md.decode_message_id("c0a8010a00002a9f0000000000000000").offset == 0


@pytest.mark.spec("ID-1", "ID-2")
@given(hosts, java_longs)
def test_ids_round_trip(host, offset):
    msg_id = md.create_message_id(host, offset)
    assert len(msg_id) == (56 if host.is_ipv6 else 32)
    assert msg_id == msg_id.upper()
    assert md.decode_message_id(msg_id) == MessageId(host, offset)


@pytest.mark.spec("ID-3")
@pytest.mark.parametrize(
    "bad",
    ["", "C0A8010A", "C0A8010A00002A9F000000000000000", "C0A8010A00002A9F00000000000000000", "Z" * 32, "G" * 56],
)
def test_bad_ids_are_named(bad):
    with pytest.raises(BadMessageIdError) as error:
        md.decode_message_id(bad)
    assert repr(bad) in str(error.value)
    assert isinstance(error.value, MessageFormatError)


@pytest.mark.spec("ID-3")
@given(st.text(alphabet="0123456789ABCDEF", max_size=70).filter(lambda s: len(s) not in (32, 56)))
def test_any_other_length_is_refused(text):
    with pytest.raises(BadMessageIdError):
        md.decode_message_id(text)


@pytest.mark.spec("ID-4")
def test_a_decoded_record_carries_its_offset_msg_id():
    ext = MessageExt("TopicTest", body=b"x")
    ext.store_host = InetSocketAddress("192.168.1.10", 10911)
    ext.commit_log_offset = 0x489A3AA09E
    decoded = md.decode(md.encode(ext))
    assert decoded.msg_id == "C0A8010A00002A9F000000489A3AA09E"
    assert md.decode_message_id(decoded.msg_id).offset == ext.commit_log_offset

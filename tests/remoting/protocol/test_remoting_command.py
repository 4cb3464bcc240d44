from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.common.jdk.hash_map import JavaHashMap, java_ordered_items
from mqlab.common.protocol.request_code import RequestCode
from mqlab.remoting.command_custom_header import CommandCustomHeader
from mqlab.remoting.exception.remoting_command_exception import RemotingCommandException, RemotingFrameError
from mqlab.remoting.protocol import remoting_serializable
from mqlab.remoting.protocol.language_code import LanguageCode
from mqlab.remoting.protocol.remoting_command import (
    FrameDecoder,
    RemotingCommand,
    RequestIdGenerator,
    mark_protocol_type,
)
from mqlab.remoting.protocol.serialize_type import SerializeType


@dataclass
class TopicHeader(CommandCustomHeader):
    topic: str | None = field(default=None, metadata={"required": True})


@dataclass
class MixedHeader(CommandCustomHeader):
    consumer_group: str | None = field(default=None, metadata={"required": True})
    queue_id: int | None = field(default=None, metadata={"required": True})
    commit_offset: int | None = None
    unit_mode: bool = False
    short_name: str | None = field(default=None, metadata={"java": "a"})


@pytest.mark.spec("REM-1")
def test_mark_protocol_type_matches_rocketmq_test():
    assert mark_protocol_type(261, SerializeType.JSON).to_bytes(4, "big", signed=True).hex() == "00000105"
    assert (mark_protocol_type(16777215, SerializeType.ROCKETMQ) & 0xFFFFFFFF).to_bytes(4, "big").hex() == "01ffffff"


@pytest.mark.spec("REM-2")
def test_json_header_of_get_routeinfo():
    cmd = RemotingCommand.create_request_command(RequestCode.GET_ROUTEINFO_BY_TOPIC, TopicHeader("TopicTest"), opaque=1)
    assert cmd.header_bytes() == (
        b'{"code":105,"extFields":{"topic":"TopicTest"},"flag":0,"language":"JAVA","opaque":1,'
        b'"serializeTypeCurrentRPC":"JSON","version":399}'
    )


@pytest.mark.spec("REM-3")
def test_rocketmq_binary_frames_byte_for_byte():
    req = RemotingCommand.create_request_command(
        RequestCode.GET_ROUTEINFO_BY_TOPIC, TopicHeader("TopicTest"), opaque=1, serialize_type=SerializeType.ROCKETMQ
    )
    assert req.encode().hex().upper() == (
        "0000002D01000029006900018F000000010000000000000000000000140005746F70696300000009546F70696354657374"
    )
    resp = RemotingCommand.create_response_command(0, None, opaque=1, serialize_type=SerializeType.ROCKETMQ)
    resp.body = bytes([1, 2, 3])
    assert resp.encode().hex().upper() == "0000001C01000015000000018F00000001000000010000000000000000010203"


@pytest.mark.spec("REM-4")
def test_flags_and_default_response():
    resp = RemotingCommand.create_response_command(opaque=9)
    assert resp.is_response_type() and not resp.is_oneway_rpc()
    assert resp.code == 1 and resp.remark == "not set any response code"
    req = RemotingCommand.create_request_command(RequestCode.UPDATE_CONSUMER_OFFSET, opaque=3)
    req.mark_oneway_rpc()
    assert req.flag == 2 and req.is_oneway_rpc() and not req.is_response_type()


@pytest.mark.spec("REM-5")
def test_custom_header_round_trip_and_lenient_decoding():
    cmd = RemotingCommand.create_request_command(
        RequestCode.PULL_MESSAGE, MixedHeader("g", 3, None, True, "x"), opaque=2
    )
    decoded = RemotingCommand.decode(cmd.encode()[4:])
    assert decoded.ext_fields == {"consumerGroup": "g", "queueId": "3", "unitMode": "true", "a": "x"}
    header = decoded.decode_command_custom_header(MixedHeader)
    assert header == MixedHeader("g", 3, None, True, "x")
    # 4.9.x: a missing required field or a bad number is only logged; the field stays null ...
    lenient = RemotingCommand(ext_fields=JavaHashMap({"queueId": "abc"})).decode_command_custom_header(MixedHeader)
    assert lenient.queue_id is None and lenient.consumer_group is None
    # ... unless the caller is strict, as the SEND_MESSAGE_V2 fast path is.
    with pytest.raises(RemotingCommandException, match="consumerGroup"):
        RemotingCommand(ext_fields=JavaHashMap({"queueId": "1"})).decode_command_custom_header(MixedHeader, strict=True)
    with pytest.raises(RemotingCommandException, match="queueId"):
        RemotingCommand(ext_fields=JavaHashMap({"consumerGroup": "g", "queueId": "x"})).decode_command_custom_header(
            MixedHeader, strict=True
        )


@pytest.mark.spec("REM-6")
@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (b"\x00\x01", "no header length"),
        (b"\x07\x00\x00\x02{}", "serialize type"),
        (b"\x00\x00\x00\x10{}", "exceeds the frame"),
        (b"\x00\x00\x00\x02[]", "not an object"),
        (b"\x00\x00\x00\x03{x}", "not decodable"),
        (b"\x01\x00\x00\x03\x00\x01\x02", "cut short"),
    ],
)
def test_malformed_frames_are_named_errors(frame, message):
    with pytest.raises(RemotingCommandException, match=message):
        RemotingCommand.decode(frame)


@pytest.mark.spec("REM-6")
def test_binary_header_lengths_are_checked():
    header = bytes.fromhex("006900018F0000000100000000") + (1000).to_bytes(4, "big") + b"abc"
    with pytest.raises(RemotingCommandException, match="remark length: 1000"):
        RemotingCommand.header_decode(header, SerializeType.ROCKETMQ)


@pytest.mark.spec("REM-7")
def test_frame_decoder_splits_a_stream_and_rejects_bad_lengths():
    frames = [RemotingCommand.create_request_command(RequestCode.HEART_BEAT, opaque=i).encode() for i in range(3)]
    stream = b"".join(frames)
    decoder = FrameDecoder()
    got = []
    for i in range(0, len(stream), 7):
        got += decoder.feed(stream[i : i + 7])
    assert [RemotingCommand.decode(f).opaque for f in got] == [0, 1, 2]
    assert decoder.pending == 0
    with pytest.raises(RemotingFrameError, match="outside"):
        FrameDecoder().feed((16 * 1024 * 1024 + 1).to_bytes(4, "big") + b"xx")
    with pytest.raises(RemotingFrameError):
        FrameDecoder().feed(b"\xff\xff\xff\xff")


def test_request_ids_wrap_like_java_ints():
    gen = RequestIdGenerator()
    assert [gen.next() for _ in range(3)] == [0, 1, 2]


ext_maps = st.dictionaries(st.text(min_size=1, max_size=10), st.text(max_size=20), max_size=6)


@pytest.mark.spec("REM-8")
@given(
    code=st.integers(0, 32767),
    opaque=st.integers(-(2**31), 2**31 - 1),
    flag=st.integers(0, 3),
    remark=st.none() | st.text(min_size=1, max_size=30),
    ext=ext_maps,
    body=st.none() | st.binary(min_size=1, max_size=64),
    serialize_type=st.sampled_from(list(SerializeType)),
    language=st.sampled_from(list(LanguageCode)),
)
def test_commands_round_trip(code, opaque, flag, remark, ext, body, serialize_type, language):
    cmd = RemotingCommand(
        code=code,
        language=language,
        opaque=opaque,
        flag=flag,
        remark=remark,
        ext_fields=JavaHashMap(ext) if ext else None,
        serialize_type_current_rpc=serialize_type,
        body=body,
    )
    frame = cmd.encode()
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    back = RemotingCommand.decode(frame[4:])
    assert (back.code, back.opaque, back.flag, back.remark, back.body, back.language) == (
        code,
        opaque,
        flag,
        remark,
        body,
        language,
    )
    assert dict(back.ext_fields or {}) == ext
    assert back.serialize_type_current_rpc is serialize_type


@pytest.mark.spec("REM-9")
@given(
    code=st.integers(0, 32767),
    opaque=st.integers(-(2**31), 2**31 - 1),
    flag=st.integers(0, 3),
    remark=st.none() | st.text(max_size=30),
    ext=st.none() | ext_maps,
    language=st.sampled_from(list(LanguageCode)),
)
def test_json_header_fast_path_equals_the_fastjson_writer(code, opaque, flag, remark, ext, language):
    cmd = RemotingCommand(code=code, language=language, opaque=opaque, flag=flag, remark=remark, ext_fields=ext)
    assert cmd.header_bytes() == remoting_serializable.encode(cmd)
    if ext:
        ordered = list(JavaHashMap(ext).items())  # a HashMap filled in the same order
        assert java_ordered_items(ext) == ordered


@pytest.mark.spec("REM-9")
def test_ext_fields_are_written_in_java_hashmap_order_whatever_the_put_order():
    a = RemotingCommand(ext_fields={"queueId": "1", "topic": "T", "consumerGroup": "g"})
    b = RemotingCommand(ext_fields={"consumerGroup": "g", "topic": "T", "queueId": "1"})
    java_order = list(JavaHashMap({"queueId": "1", "topic": "T", "consumerGroup": "g"}))
    text = a.header_bytes().decode()
    assert [text.index(f'"{key}"') for key in java_order] == sorted(text.index(f'"{key}"') for key in java_order)
    assert a.header_bytes() == b.header_bytes()  # three keys in different buckets: the put order does not matter
    for serialize_type in SerializeType:
        a.serialize_type_current_rpc = b.serialize_type_current_rpc = serialize_type
        assert a.encode() == b.encode()

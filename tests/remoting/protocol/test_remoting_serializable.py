from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.remoting.protocol.remoting_serializable import JsonDecodeError, from_json, java_name, to_json


@dataclass
class QueueData:
    broker_name: str
    perm: int
    read_queue_nums: int
    topic_sys_flag: int
    write_queue_nums: int


@dataclass
class DataVersion:
    timestamp: int
    counter: int
    skipped: str | None = None


@dataclass
class Renamed:
    value: int = field(metadata={"json": "zzz"})
    other: int = 1


def test_route_data_matches_the_fastjson_capture():
    route = {
        "brokerDatas": [
            {"brokerAddrs": {0: "192.168.1.10:10911"}, "brokerName": "broker-a", "cluster": "DefaultCluster"}
        ],
        "filterServerTable": {},
        "queueDatas": [QueueData("broker-a", 6, 4, 0, 4)],
    }
    assert to_json(route) == (
        '{"brokerDatas":[{"brokerAddrs":{0:"192.168.1.10:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}],'
        '"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,'
        '"writeQueueNums":4}]}'
    )


def test_beans_sort_properties_and_drop_nulls():
    assert to_json(DataVersion(timestamp=5, counter=2)) == '{"counter":2,"timestamp":5}'
    assert to_json(Renamed(3)) == '{"other":1,"zzz":3}'
    assert java_name("topic_sys_flag") == "topicSysFlag"


def test_pretty_format_follows_fastjson():
    assert to_json({"offsetTable": {1: 5, 2: 3}}, pretty=True) == '{\n\t"offsetTable":{1:5,2:3\n\t}\n}'
    assert to_json({"a": [1, 2]}, pretty=True) == '{\n\t"a":[\n\t\t1,\n\t\t2\n\t]\n}'
    assert to_json({"dataVersion": DataVersion(7, 1)}, pretty=True) == (
        '{\n\t"dataVersion":{\n\t\t"counter":1,\n\t\t"timestamp":7\n\t}\n}'
    )
    assert to_json({}, pretty=True) == "{}"
    assert to_json({"s": {"x"}}, pretty=True) == '{\n\t"s":["x"]\n}'  # sets are never pretty-printed


def test_reader_accepts_bare_numeric_keys():
    assert from_json('{"brokerAddrs":{0:"a",1:"b"}}') == {"brokerAddrs": {0: "a", 1: "b"}}
    assert from_json(b'{"offsetTable":{"TopicTest@g":{0:12,1:7\n\t}\n}}') == {
        "offsetTable": {"TopicTest@g": {0: 12, 1: 7}}
    }
    assert from_json('[1,-2,3.5,true,false,null,"a\\u0001b\\n"]') == [1, -2, 3.5, True, False, None, "a\x01b\n"]


@pytest.mark.parametrize("bad", ['{"a":}', "{", '{"a" 1}', "[1,,2]", "nope", '{"a":1} x', "{a:1}"])
def test_bad_json_is_a_named_error(bad):
    with pytest.raises(JsonDecodeError):
        from_json(bad)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(), children, max_size=4)
        | st.dictionaries(st.integers(0, 2**31 - 1), children, max_size=4)
    ),
    max_leaves=20,
)


def _without_null_values(value):
    if isinstance(value, dict):
        return {k: _without_null_values(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_null_values(v) for v in value]
    return value


@given(json_values, st.booleans())
def test_round_trip(value, pretty):
    assert from_json(to_json(value, pretty=pretty)) == _without_null_values(value)

"""The properties string (MessageDecoder#messageProperties2String / #string2messageProperties) and its order."""

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.common.jdk.hash_map import JavaHashMap, spread
from mqlab.common.jdk.string_hash import java_string_hash
from mqlab.common.message import message_decoder as md
from mqlab.common.message.message import Message
from mqlab.common.message.message_batch import MessageBatch
from mqlab.common.message.message_client_id_setter import MessageClientIDSetter
from mqlab.common.message.record_dump import show_separators
from mqlab.runtime import SimulatedWorld
from tests.strategies import property_maps

ROOT = Path(__file__).resolve().parents[3]
PAGE = (ROOT / "docs" / "spec" / "properties.md").read_text(encoding="utf-8")


def java_map(*pairs) -> JavaHashMap:
    m = JavaHashMap()
    for name, value in pairs:
        m[name] = value
    return m


@pytest.mark.spec("PROP-1")
def test_separators_and_no_trailing_separator():
    assert md.NAME_VALUE_SEPARATOR == "\x01"
    assert md.PROPERTY_SEPARATOR == "\x02"
    assert md.message_properties2string(java_map(("KEYS", "k"), ("WAIT", "true"))) == "KEYS\x01k\x02WAIT\x01true"
    assert md.message_properties2string(java_map(("a", "b"))) == "a\x01b"


@pytest.mark.spec("PROP-1")
def test_null_values_are_skipped_and_empty_maps_give_empty_strings():
    # 4.9.3 prints KEYS\u0001k\u0002WAIT\u0001true for {KEYS=k, TAGS=null, WAIT=true}.
    assert md.message_properties2string(java_map(("KEYS", "k"), ("TAGS", None), ("WAIT", "true"))) == (
        "KEYS\x01k\x02WAIT\x01true"
    )
    assert md.message_properties2string(JavaHashMap()) == ""
    assert md.message_properties2string(None) == ""
    assert md.message_properties2string(java_map(("only", None))) == ""


# Input -> entries in iteration order, as 4.9.3's string2messageProperties returns them (OpenJDK 17).
JAVA_LENIENT = [
    ("", []),
    ("a", []),
    ("ab", []),
    ("a\x01", []),
    ("\x01b", []),
    ("a\x01b", [("a", "b")]),
    ("ab\x01", []),
    ("a\x01b\x02", [("a", "b")]),
    ("a\x01b\x02\x02c\x01d", [("a", "b"), ("c", "d")]),
    ("\x02a\x01b", [("a", "b")]),
    ("a\x01\x01b", [("a", "\x01b")]),
    ("a\x01b\x01c", [("a", "b\x01c")]),
    ("k\x01v\x02k\x01w", [("k", "w")]),
    ("ab\x02c\x01d", [("c", "d")]),
    ("abc\x02d\x01e", [("d", "e")]),
    ("a\x01b\x02c", [("a", "b")]),
    ("a\x01b\x02c\x01", [("a", "b")]),
    ("\x01\x01\x01", []),
    ("a\x02\x01b\x01c", []),
    ("WAIT\x01true\x02TAGS\x01x\x02WAIT\x01false", [("WAIT", "false"), ("TAGS", "x")]),
    ("k\x01\u00e9\u4e2d\U0001f600", [("k", "\u00e9\u4e2d\U0001f600")]),
]


@pytest.mark.spec("PROP-2")
@pytest.mark.parametrize(("text", "expected"), JAVA_LENIENT)
def test_lenient_reader_like_java(text, expected):
    parsed = md.string2message_properties(text)
    assert isinstance(parsed, JavaHashMap)
    assert list(parsed.items()) == expected


@pytest.mark.spec("PROP-2")
@pytest.mark.parametrize(("text", "expected"), JAVA_LENIENT)
def test_dict_reader_keeps_the_same_entries(text, expected):
    assert md.string2message_properties(text, dict) == dict(expected)


@pytest.mark.spec("PROP-2")
@given(st.text(alphabet="ab\x01\x02\u00e9", max_size=24))
def test_dict_reader_agrees_with_the_lenient_loop(text):
    # The dict reader's one-pass path must give the lenient reader's entries, in the same insertion order.
    lenient = md.string2message_properties(text)
    parsed = md.string2message_properties(text, dict)
    assert parsed == dict(lenient.items())
    segments = [seg.partition("\x01") for seg in text.split("\x02")]
    order = list(dict.fromkeys(name for name, sep, value in segments if sep and name and value))
    assert list(parsed) == order


@pytest.mark.spec("PROP-2")
def test_none_parses_to_an_empty_map_and_dict_factory():
    assert len(md.string2message_properties(None)) == 0
    assert md.string2message_properties("a\x01b", dict) == {"a": "b"}


def page_lenient_table() -> list[tuple[list[str], str]]:
    """The PROP-2 examples on the spec page: (inputs, parsed) with ␁/␂ standing for 0x01/0x02."""
    section = PAGE[PAGE.index("| Input (") : PAGE.index("- **PROP-3**")]
    rows = []
    for line in section.splitlines()[2:]:
        if not line.startswith("|"):
            continue
        inputs_cell, parsed_cell = (cell.strip() for cell in line.strip().strip("|").split("|"))
        inputs = [item.strip().strip("`") for item in inputs_cell.split(",")]
        rows.append(([i.replace("␁", "\x01").replace("␂", "\x02") for i in inputs], parsed_cell.strip("`")))
    return rows


@pytest.mark.spec("PROP-2")
def test_the_examples_on_the_spec_page_hold():
    rows = page_lenient_table()
    assert len(rows) >= 8
    for inputs, parsed in rows:
        for text in inputs:
            shown = "{" + ", ".join(f"{k}={v}" for k, v in md.string2message_properties(text).items()) + "}"
            assert show_separators(shown) == parsed, repr(text)


@pytest.mark.spec("PROP-3")
@given(property_maps)
def test_properties_round_trip_in_order(properties):
    text = md.message_properties2string(properties)
    back = md.string2message_properties(text)
    assert list(back.items()) == list(properties.items())
    assert md.message_properties2string(back) == text


# -- the seed message --------------------------------------------------------------------------------------------
def seed_message() -> tuple[Message, str]:
    world = SimulatedWorld(seed=7)
    producer = world.runtime("producer", ip="192.168.1.100", pid=12345)
    msg = Message("TopicTest", "TagA", "OrderID188", b"Hello world")
    MessageClientIDSetter.for_runtime(producer).set_uniq_id(msg)
    return msg, msg.get_property("UNIQ_KEY")


@pytest.mark.spec("PROP-9")
def test_constructor_order_and_uniq_key_order():
    msg = Message("TopicTest", "TagA", "OrderID188", b"Hello world")
    assert list(msg.properties) == ["KEYS", "WAIT", "TAGS"]  # java.util.HashMap via 4.9.3's Message
    assert [msg.properties.bucket_index(k) for k in msg.properties] == [7, 13, 14]
    msg.put_property("UNIQ_KEY", "X")
    assert list(msg.properties) == ["KEYS", "UNIQ_KEY", "WAIT", "TAGS"]  # java.util.HashMap


@pytest.mark.spec("PROP-9")
def test_the_client_string_shown_on_the_page():
    msg, uniq = seed_message()
    text = md.message_properties2string(msg.properties)
    assert text == f"KEYS\x01OrderID188\x02UNIQ_KEY\x01{uniq}\x02WAIT\x01true\x02TAGS\x01TagA"
    assert show_separators(text) in PAGE


@pytest.mark.spec("PROP-9", "PROP-4", "PROP-5")
def test_bucket_table_on_the_page():
    rows = re.findall(r"^\| `([A-Z_]+)` \| (-?\d+) \| (\d+) \|$", PAGE, flags=re.MULTILINE)
    assert [row[0] for row in rows] == ["KEYS", "UNIQ_KEY", "CLUSTER", "WAIT", "TAGS"]
    for name, hash_code, bucket in rows:
        assert java_string_hash(name) == int(hash_code)
        assert spread(int(hash_code)) & 15 == int(bucket)


@pytest.mark.spec("PROP-10")
def test_broker_adds_cluster_and_stores_without_wait():
    msg, uniq = seed_message()
    props = md.string2message_properties(md.message_properties2string(msg.properties))
    assert list(props) == ["KEYS", "UNIQ_KEY", "WAIT", "TAGS"]
    props["CLUSTER"] = "DefaultCluster"
    assert list(props) == ["KEYS", "UNIQ_KEY", "CLUSTER", "WAIT", "TAGS"]  # java.util.HashMap
    wait = props.pop("WAIT")
    stored = md.message_properties2string(props)
    props["WAIT"] = wait
    assert stored == f"KEYS\x01OrderID188\x02UNIQ_KEY\x01{uniq}\x02CLUSTER\x01DefaultCluster\x02TAGS\x01TagA"
    assert list(props) == ["KEYS", "UNIQ_KEY", "CLUSTER", "WAIT", "TAGS"]


@pytest.mark.spec("PROP-10")
def test_golden_record_properties_come_from_these_steps():
    msg = Message("TopicTest", "TagA", "OrderID001", b"Hello RocketMQ")
    msg.put_property("UNIQ_KEY", "C0A8016430396D06D69C000F42400001")
    props = md.string2message_properties(md.message_properties2string(msg.properties))
    props["CLUSTER"] = "DefaultCluster"
    del props["WAIT"]
    stored = md.message_properties2string(props).encode()
    assert len(stored) == 90
    assert stored == (
        b"KEYS\x01OrderID001\x02UNIQ_KEY\x01C0A8016430396D06D69C000F42400001\x02CLUSTER\x01DefaultCluster\x02TAGS\x01TagA"
    )


@pytest.mark.spec("PROP-11")
def test_batch_properties_stay_on_the_inner_messages():
    world = SimulatedWorld(seed=7)
    setter = MessageClientIDSetter.for_runtime(world.runtime("producer", ip="192.168.1.100", pid=12345))
    inner = [Message("TopicTest", "TagA", f"k{i}", b"body") for i in range(2)]
    for message in inner:
        setter.set_uniq_id(message)
    batch = MessageBatch.generate_from_list(inner)
    assert dict(batch.properties) == {"WAIT": "true"}
    decoded = md.decode_messages(batch.encode())
    assert [list(m.properties) for m in decoded] == [["KEYS", "UNIQ_KEY", "WAIT", "TAGS"]] * 2
    assert [m.get_property("UNIQ_KEY") for m in decoded] == [m.get_property("UNIQ_KEY") for m in inner]
    assert decoded[0].get_property("UNIQ_KEY") != decoded[1].get_property("UNIQ_KEY")


@pytest.mark.spec("PROP-11", "PROP-2")
def test_a_stored_batch_message_with_wait_twice_decodes_to_one_entry():
    inner = md.message_properties2string(Message("TopicTest", "TagA", "k1", b"x").properties)
    batch_level = md.message_properties2string(java_map(("WAIT", "true"), ("CLUSTER", "DefaultCluster")))
    stored = inner + md.PROPERTY_SEPARATOR + batch_level  # what 4.9.3's batch encoder writes
    props = md.string2message_properties(stored)
    assert stored.count("WAIT") == 2
    assert list(props) == ["KEYS", "CLUSTER", "WAIT", "TAGS"]
    assert props["WAIT"] == "true"

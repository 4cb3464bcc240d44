import pytest

from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.message import message_const as mc
from mqlab.common.message.message import Message


@pytest.mark.spec("MSG-1")
def test_constructor_puts_tags_keys_and_wait():
    msg = Message("TopicTest", "TagA", "OrderID188", b"Hello world")
    assert isinstance(msg.properties, JavaHashMap)
    assert dict(msg.properties) == {"TAGS": "TagA", "KEYS": "OrderID188", "WAIT": "true"}
    assert list(msg.properties) == ["KEYS", "WAIT", "TAGS"]  # java.util.HashMap order, see PROP-9
    assert msg.get_tags() == "TagA"
    assert msg.get_keys() == "OrderID188"
    assert (msg.topic, msg.body, msg.flag) == ("TopicTest", b"Hello world", 0)


@pytest.mark.spec("MSG-1")
def test_empty_tags_and_keys_are_not_put():
    msg = Message("TopicTest", "", "", b"x", wait_store_msg_ok=False)
    assert dict(msg.properties) == {"WAIT": "false"}
    assert Message("TopicTest", body=b"x").properties == {"WAIT": "true"}


@pytest.mark.spec("MSG-1")
def test_a_bare_message_has_no_property_map_until_the_first_put():
    msg = Message.bare()
    assert msg.properties is None
    msg.clear_property("WAIT")  # nothing to clear, no map created
    assert msg.properties is None
    msg.put_property("UNIQ_KEY", "X")
    assert dict(msg.properties) == {"UNIQ_KEY": "X"}
    msg.clear_property("UNIQ_KEY")
    assert dict(msg.properties) == {}


@pytest.mark.spec("MSG-2")
def test_several_keys_are_joined_with_a_space_and_trimmed():
    msg = Message("TopicTest", body=b"x")
    msg.set_keys(["OrderID188", "Customer7"])
    assert msg.get_keys() == "OrderID188 Customer7"
    msg.set_keys(["a\x01", " "])  # Java's trim takes control characters too
    assert msg.get_keys() == "a"
    msg.set_keys(["\u3000a"])  # ... but not Unicode white space (ideographic space stays)
    assert msg.get_keys() == "\u3000a"
    msg.set_keys("single key kept as is ")
    assert msg.get_keys() == "single key kept as is "


@pytest.mark.spec("MSG-3")
@pytest.mark.parametrize("name", sorted(mc.STRING_HASH_SET))
def test_reserved_names_are_refused(name):
    with pytest.raises(ValueError, match=f"The Property<{name}> is used by system"):
        Message("TopicTest", body=b"x").put_user_property(name, "v")


@pytest.mark.spec("MSG-3")
def test_reserved_set_is_4_9_3s():
    assert {"KEYS", "TAGS", "WAIT", "UNIQ_KEY", "CLUSTER", "DELAY", "INNER_MULTI_QUEUE_OFFSET"} <= mc.STRING_HASH_SET
    assert len(mc.STRING_HASH_SET) == 31
    # 4.9.3's set leaves these out, so they can be put as user properties.
    for name in ("TRAN_PREPARED_QUEUE_OFFSET", "TRANSACTION_CHECK_TIMES", "CHECK_IMMUNITY_TIME_IN_SECONDS"):
        assert name not in mc.STRING_HASH_SET


@pytest.mark.spec("MSG-3")
@pytest.mark.parametrize(("name", "value"), [("a", ""), ("a", "  "), ("a", "\x01"), ("", "v"), (" \t", "v")])
def test_blank_names_and_values_are_refused(name, value):
    with pytest.raises(ValueError, match="can not be null or blank"):
        Message("TopicTest", body=b"x").put_user_property(name, value)


@pytest.mark.spec("MSG-3")
def test_user_properties_that_java_accepts():
    msg = Message("TopicTest", body=b"x")
    msg.put_user_property("color", "\u3000")  # not blank for String#trim
    msg.put_user_property("shape", " round ")
    assert msg.get_user_property("color") == "\u3000"
    assert msg.get_user_property("shape") == " round "
    # The reserved-name check comes first: a reserved name with a blank value gets the reserved-name error.
    with pytest.raises(ValueError, match="used by system"):
        msg.put_user_property("TAGS", "")


@pytest.mark.spec("MSG-4")
@pytest.mark.parametrize(("value", "expected"), [(None, True), ("true", True), ("TRUE", True), ("false", False)])
def test_wait_store_msg_ok(value, expected):
    msg = Message.bare()
    if value is not None:
        msg.put_property("WAIT", value)
    assert msg.is_wait_store_msg_ok() is expected


@pytest.mark.spec("MSG-4")
def test_wait_parses_like_boolean_parse_boolean():
    msg = Message.bare()
    msg.put_property("WAIT", "yes")
    assert msg.is_wait_store_msg_ok() is False


@pytest.mark.spec("MSG-4")
def test_delay_level():
    msg = Message("TopicTest", body=b"x")
    assert msg.get_delay_time_level() == 0
    msg.set_delay_time_level(3)
    assert msg.get_property("DELAY") == "3"
    assert msg.get_delay_time_level() == 3


def test_other_typed_properties_and_repr():
    msg = Message("TopicTest", "TagA", body=b"x")
    msg.set_buyer_id("b1")
    msg.set_instance_id("i1")
    assert msg.get_buyer_id() == "b1"
    assert msg.get_property("INSTANCE_ID") == "i1"
    assert repr(msg).startswith("Message{topic='TopicTest', flag=0, properties={")
    assert "body=<100 bytes>" in repr(Message("T", body=bytes(100)))
    assert "body=null" in repr(Message.bare())

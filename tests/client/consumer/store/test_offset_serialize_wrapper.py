"""OffsetSerializeWrapper: fastjson's bean-keyed map, written both ways and read back."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.client.consumer.store.offset_serialize_wrapper import OffsetSerializeWrapper
from mqlab.common.message.message_queue import MessageQueue
from mqlab.remoting.protocol.remoting_serializable import JsonDecodeError

pytestmark = pytest.mark.spec("CLI-25")

names = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF), min_size=1, max_size=12)
queues = st.builds(MessageQueue, names, names, st.integers(0, 2**31 - 1))
tables = st.dictionaries(queues, st.integers(-(2**63), 2**63 - 1), max_size=20)


def test_compact_form():
    wrapper = OffsetSerializeWrapper({MessageQueue("t", "b", 1): 5})
    assert wrapper.to_json() == '{"offsetTable":{{"brokerName":"b","queueId":1,"topic":"t"}:5}}'
    assert wrapper.encode() == wrapper.to_json().encode()
    assert OffsetSerializeWrapper().to_json() == '{"offsetTable":{}}'
    assert OffsetSerializeWrapper().to_json(True) == '{\n\t"offsetTable":{}\n}'


@given(table=tables, pretty=st.booleans())
def test_round_trip(table, pretty):
    text = OffsetSerializeWrapper(table).to_json(pretty)
    assert dict(OffsetSerializeWrapper.from_json(text).offset_table) == table


def test_reader_is_lenient_where_fastjson_is():
    mq = MessageQueue("t", "b", 1)
    spaced = ' { "offsetTable" : { { "topic":"t","queueId":1,"brokerName":"b" } : 7 } } '
    assert dict(OffsetSerializeWrapper.from_json(spaced).offset_table) == {mq: 7}
    other = '{"other":[1,{"x":"}"}],"offsetTable":null}'
    assert dict(OffsetSerializeWrapper.from_json(other).offset_table) == {}
    assert dict(OffsetSerializeWrapper.from_json(b"{}").offset_table) == {}


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("", 0),
        ("[]", 0),
        ('{"offsetTable":{1:2}}', 16),
        ('{"offsetTable":{{"topic":"t"}:"x"}}', 30),
        ('{"offsetTable":{{"topic":"t"}:1.5}}', 30),
        ("{} trailing", 3),
        ('{"offsetTable":{{"topic":"t"', 28),
        ('{"offsetTable":{{"topic":"t"}:true}}', 30),
    ],
)
def test_bad_text_names_the_position(text, position):
    with pytest.raises(JsonDecodeError, match=f"at position {position}"):
        OffsetSerializeWrapper.from_json(text)

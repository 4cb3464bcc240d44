"""DelayOffsetSerializeWrapper: the fastjson text of config/delayOffset.json, written and read back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.remoting.protocol.remoting_serializable import JsonDecodeError
from mqlab.store.schedule.delay_offset_serialize_wrapper import DelayOffsetFormatError, DelayOffsetSerializeWrapper

levels = st.integers(-(2**31), 2**31 - 1)
offsets = st.integers(-(2**63), 2**63 - 1)


@pytest.mark.spec("DELAY-9")
@given(st.dictionaries(levels, offsets, max_size=40), st.booleans())
def test_round_trip(table, pretty):
    text = DelayOffsetSerializeWrapper(table).to_json(pretty)
    assert DelayOffsetSerializeWrapper.from_json(text).offset_table == table


@pytest.mark.spec("DELAY-9")
def test_the_written_form_has_bare_keys_in_ascending_order():
    wrapper = DelayOffsetSerializeWrapper({18: 0, 3: 11, 1: 1})
    assert wrapper.to_json() == '{"offsetTable":{1:1,3:11,18:0}}'
    assert wrapper.to_json(True) == '{\n\t"offsetTable":{1:1,3:11,18:0\n\t}\n}'
    assert DelayOffsetSerializeWrapper().to_json(True) == '{\n\t"offsetTable":{}\n}'


@pytest.mark.spec("DELAY-9")
@pytest.mark.parametrize(
    ("text", "table"),
    [
        ('{"offsetTable":{"2":"7"}}', {2: 7}),  # fastjson converts quoted numbers to Integer / Long
        ('{"offsetTable":{}}', {}),
        ("{}", {}),
        ('{"offsetTable":null,"other":1}', {}),
    ],
)
def test_lenient_forms(text, table):
    assert DelayOffsetSerializeWrapper.from_json(text).offset_table == table


@pytest.mark.spec("DELAY-9")
def test_json_null_is_no_wrapper():
    assert DelayOffsetSerializeWrapper.from_json("null") is None


@pytest.mark.spec("DELAY-9")
@pytest.mark.parametrize(
    ("text", "error", "fragment"),
    [
        ('{"offsetTable":{1:5', JsonDecodeError, "end"),
        ('{"offsetTable":{"one":5}}', DelayOffsetFormatError, "'one'"),
        ('{"offsetTable":{1:"five"}}', DelayOffsetFormatError, "offsetTable[1]"),
        ('{"offsetTable":{1:true}}', DelayOffsetFormatError, "offsetTable[1]"),
        ('{"offsetTable":{1:9223372036854775808}}', DelayOffsetFormatError, "Java long"),
        ('{"offsetTable":[1]}', DelayOffsetFormatError, "must be an object"),
        ("[1]", DelayOffsetFormatError, "JSON object"),
    ],
)
def test_bad_content_is_a_value_error_naming_the_problem(text, error, fragment):
    with pytest.raises(error) as caught:
        DelayOffsetSerializeWrapper.from_json(text)
    assert isinstance(caught.value, ValueError)
    assert fragment in str(caught.value)

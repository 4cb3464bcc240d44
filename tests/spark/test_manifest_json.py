"""The manifest writer: json.dumps(obj, indent=1, sort_keys=True), character for character."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqlab.spark import manifest_json

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["}", "},\n  {", '"', "\\", "\n", "é", "\u2028", "{", "[", "]"])
)
_KEYS = st.text(max_size=6) | st.sampled_from(["}", "{", ",", "\n", "a"])
# Rows as a manifest holds them (flat dicts, sometimes with a short list) in lists, inside dicts, nested.
_ROWS = st.dictionaries(_KEYS, _SCALARS | st.lists(_SCALARS, max_size=2) | st.just({}), max_size=5)
_JSON = st.recursive(
    _SCALARS | _ROWS,
    lambda inner: (
        st.lists(inner | _ROWS, max_size=6) | st.tuples(inner, inner) | st.dictionaries(_KEYS, inner, max_size=5)
    ),
    max_leaves=40,
)


def _standard(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=True)


@settings(max_examples=300, deadline=None)
@given(_JSON)
def test_the_text_is_json_dumps_text(obj):
    assert manifest_json.dumps(obj) == _standard(obj)


@pytest.mark.parametrize(
    "obj",
    [
        {"rows": [{"a": 1, "b": "x"}, {"a": 2, "b": "},\n   {"}, {}, {"c": [1]}, {"a": 3}], "n": None},
        [[{"a": 1}], [{"b": 2}, {"b": 3}]],
        {"k": {"deep": [{"x": [1, [2, {}]], "y": ()}]}},
        {"x": math.inf, "y": [math.inf, {"z": -0.0}]},
        {"nan": math.nan, "neg": -math.inf, "big": 2**80, "e": 1e-300},
        [],
        {},
        "just a string",
        (1, (2, 3)),
    ],
)
def test_manifest_shapes_and_edges(obj):
    assert manifest_json.dumps(obj) == _standard(obj)


def test_keys_that_are_not_strings_are_written_as_json_dumps_writes_them():
    for obj in ({1: "a", 2: "b"}, {2.5: [{"r": 1}], 1.5: []}, {True: 1}, {None: {"n": [{"x": 1}]}}):
        assert manifest_json.dumps(obj) == _standard(obj)


@pytest.mark.parametrize(
    ("obj", "error"),
    [
        ({"a": 1, 2: "mixed keys cannot be sorted"}, TypeError),
        ({"rows": [{"a": object()}]}, TypeError),
        ({(1, 2): "a tuple key"}, TypeError),
    ],
)
def test_what_json_dumps_refuses_is_refused(obj, error):
    with pytest.raises(error):
        _standard(obj)
    with pytest.raises(error):
        manifest_json.dumps(obj)


def test_a_circular_reference_is_refused():
    loop: list = [1]
    loop.append([loop])
    with pytest.raises(ValueError, match="Circular reference"):
        manifest_json.dumps(loop)

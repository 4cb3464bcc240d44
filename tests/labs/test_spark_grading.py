"""grade_table: the reader's table against a reference, matched by key, with one deterministic verdict line."""

from __future__ import annotations

import pandas as pd
import pytest

from mqlab.labs.spark.grading import ReferenceTableError, grade_table

EXPECTED = [
    {"group": "cg-a", "queueId": 0, "diff": 3, "ratio": 0.25},
    {"group": "cg-a", "queueId": 1, "diff": 0, "ratio": 0.0},
    {"group": "cg-b", "queueId": 0, "diff": 7, "ratio": 0.5},
]
KEY = ("group", "queueId")


def verdict(capsys, ok: bool) -> str:
    out = capsys.readouterr().out
    assert out.endswith("\n") and out.count("\n") == 1
    assert ok is out.startswith("✓")
    return out.rstrip("\n")


def grade(answer, **kwargs):
    return grade_table(answer, EXPECTED, name="lag", key=KEY, **kwargs)


@pytest.mark.spec("SPEX-1")
def test_a_list_in_any_order_and_a_pandas_frame_pass(capsys):
    assert grade(list(reversed(EXPECTED))) is True
    assert verdict(capsys, True) == "✓ lag: correct"
    assert grade(pd.DataFrame(EXPECTED).sample(frac=1, random_state=3)) is True
    assert verdict(capsys, True) == "✓ lag: correct"


@pytest.mark.spec("SPEX-1")
def test_a_pandas_key_left_in_the_index_counts_as_a_column(capsys):
    frame = pd.DataFrame(EXPECTED).set_index(["group", "queueId"])
    assert grade(frame) is True
    verdict(capsys, True)


@pytest.mark.spec("SPEX-1")
@pytest.mark.parametrize("answer", [None, ...])
def test_an_empty_cell_is_not_answered_yet(capsys, answer):
    assert grade(answer, hint="look at brokerOffset") is False
    assert verdict(capsys, False) == "? lag: not answered yet"


@pytest.mark.spec("SPEX-1")
@pytest.mark.parametrize(
    ("answer", "said"),
    [(3, "got an int (3)"), ("cg-a", "got a str ('cg-a')"), ([("cg-a", 0, 3, 0.25)], "row 0 is a list or tuple")],
)
def test_something_that_is_no_table_is_named(capsys, answer, said):
    assert grade(answer) is False
    assert said in verdict(capsys, False)


@pytest.mark.spec("SPEX-2")
def test_missing_and_unexpected_columns_are_named(capsys):
    rows = [{"group": r["group"], "queueId": r["queueId"], "lag": r["diff"], "ratio": r["ratio"]} for r in EXPECTED]
    assert grade(rows) is False
    assert verdict(capsys, False) == "✗ lag: missing column 'diff'; unexpected column 'lag'"


@pytest.mark.spec("SPEX-2")
def test_extra_columns_are_allowed_when_only_some_columns_are_compared(capsys):
    rows = [{**r, "count": 1} for r in EXPECTED]
    assert grade(rows, columns=["diff"]) is True
    verdict(capsys, True)
    assert grade(rows) is False
    assert verdict(capsys, False) == "✗ lag: unexpected column 'count'"


@pytest.mark.spec("SPEX-3")
def test_missing_and_unexpected_keys_are_counted_with_the_first_in_key_order(capsys):
    rows = [EXPECTED[2], {**EXPECTED[0], "queueId": 9}, {**EXPECTED[0], "queueId": 5}]
    assert grade(rows, hint="one row per group and queue") is False
    assert verdict(capsys, False) == (
        "✗ lag: 2 of 3 expected rows missing (first: group='cg-a', queueId=0); "
        "2 unexpected rows (first: group='cg-a', queueId=5); one row per group and queue"
    )


@pytest.mark.spec("SPEX-3")
def test_a_key_on_several_rows_says_the_aggregation_is_missing(capsys):
    assert grade([*EXPECTED, EXPECTED[1], EXPECTED[1]]) is False
    assert verdict(capsys, False) == "✗ lag: 1 key on more than one row (first: group='cg-a', queueId=1, 3 rows)"


@pytest.mark.spec("SPEX-4")
def test_the_first_wrong_value_is_named_with_its_key_but_the_expected_value_stays_hidden(capsys):
    rows = [{**r, "diff": r["diff"] + 1} for r in EXPECTED]
    assert grade(rows, hint="diff is brokerOffset - consumerOffset") is False
    line = verdict(capsys, False)
    assert line == (
        "✗ lag: 3 wrong values (first: 'diff' at group='cg-a', queueId=0: got 4); diff is brokerOffset - consumerOffset"
    )
    assert "3," not in line.split("got")[1]


@pytest.mark.spec("SPEX-4")
def test_a_value_of_the_wrong_type_says_which_type_was_expected(capsys):
    rows = [{**r, "diff": str(r["diff"])} for r in EXPECTED]
    assert grade(rows) is False
    assert verdict(capsys, False) == (
        "✗ lag: 3 wrong values (first: 'diff' at group='cg-a', queueId=0: expected an int, got a str ('3'))"
    )


@pytest.mark.spec("SPEX-4")
def test_floats_agree_within_tolerance_and_ints_equal_floats_of_the_same_number(capsys):
    rows = [{**r, "diff": float(r["diff"]), "ratio": r["ratio"] * (1 + 1e-12)} for r in EXPECTED]
    assert grade(rows) is True
    verdict(capsys, True)
    rows = [{**r, "ratio": r["ratio"] * 1.01} for r in EXPECTED]
    assert grade(rows) is False
    verdict(capsys, False)
    assert grade(rows, rel_tol=0.1) is True
    verdict(capsys, True)


@pytest.mark.spec("SPEX-4")
def test_a_bool_is_no_int_and_nan_is_null(capsys):
    assert grade([{**r, "diff": bool(r["diff"])} for r in EXPECTED]) is False
    verdict(capsys, False)
    expected = [{"k": 1, "v": None}, {"k": 2, "v": 4}]
    assert grade_table(pd.DataFrame(expected), expected, name="n", key="k") is True
    verdict(capsys, True)


@pytest.mark.spec("SPEX-4")
def test_an_expected_set_accepts_a_list_in_any_order_but_an_expected_list_keeps_order(capsys):
    expected = [{"key": "k1", "groups": frozenset({"a", "b"}), "path": ["x", "y"]}]
    assert grade_table([{"key": "k1", "groups": ["b", "a"], "path": ["x", "y"]}], expected, name="s", key="key")
    verdict(capsys, True)
    assert not grade_table(
        [{"key": "k1", "groups": ["b", "a", "a"], "path": ["x", "y"]}], expected, name="s", key="key"
    )
    verdict(capsys, False)
    assert not grade_table([{"key": "k1", "groups": ["a", "b"], "path": ["y", "x"]}], expected, name="s", key="key")
    verdict(capsys, False)


@pytest.mark.spec("SPEX-5")
@pytest.mark.parametrize(
    ("expected", "kwargs"),
    [
        ([{"queueId": 0}], {"key": "group"}),  # no key column
        ([{"group": "a"}, {"group": "a"}], {"key": "group"}),  # a repeated key
        ([{"group": "a", "diff": 1}], {"key": "group", "columns": ["lag"]}),  # an unknown column
        ({"group": "a"}, {"key": "group"}),  # a dict, not a list of rows
    ],
)
def test_a_malformed_reference_is_an_error_of_the_exercise(expected, kwargs):
    with pytest.raises(ReferenceTableError):
        grade_table([], expected, name="x", **kwargs)


@pytest.mark.spec("SPEX-5")
def test_the_verdict_does_not_depend_on_row_order(capsys):
    rows = [{**r, "diff": -1} for r in EXPECTED] + [{"group": "z", "queueId": 0, "diff": 0, "ratio": 0.0}]
    lines = set()
    for order in (rows, list(reversed(rows)), rows[1:] + rows[:1]):
        grade(order)
        lines.add(verdict(capsys, False))
    assert len(lines) == 1


@pytest.mark.spark
@pytest.mark.spec("SPEX-1")
def test_a_spark_dataframe_is_graded_like_its_rows(capsys, tmp_path):
    from mqlab.spark.datasources import spark_session

    spark = spark_session("test-spark-grading", tmp_path)
    frame = spark.createDataFrame(EXPECTED)
    assert grade(frame) is True
    verdict(capsys, True)
    assert grade(frame.collect()) is True
    verdict(capsys, True)
    assert grade(frame.drop("ratio")) is False
    assert verdict(capsys, False) == "✗ lag: missing column 'ratio'"

"""check(): right answers pass, plausible wrong ones fail with a hint, and the expected value stays hidden."""

import enum
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqlab.teaching import check, check_close, check_that, check_unordered


class Status(enum.Enum):
    PUT_OK = 0
    FLUSH_DISK_TIMEOUT = 1


def verdict(capsys, ok: bool) -> str:
    line = capsys.readouterr().out
    assert line.endswith("\n") and line.count("\n") == 1
    assert ok is (line.startswith("✓"))
    return line.rstrip("\n")


@pytest.mark.spec("TEACH-5")
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (4096, 4096),
        ("TopicTest", "TopicTest"),
        ([0, 201, 402], [0, 201, 402]),
        ((0, 201, 402), [0, 201, 402]),  # a tuple answers a list
        ({1, 2}, frozenset({1, 2})),
        (bytearray(b"\x00\x01"), b"\x00\x01"),
        ({"q0": 3, "q1": 5}, {"q1": 5, "q0": 3}),
        (Status.PUT_OK, Status.PUT_OK),
        (None, None),
        (0.5, 0.5),
        (2, 2.0),  # an int answers a float question
    ],
)
def test_right_answers_pass(capsys, answer, expected):
    assert check(answer, expected, name="offset") is True
    assert verdict(capsys, True) == "✓ offset: correct"


@pytest.mark.spec("TEACH-5")
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (4095, 4096),  # off by one
        (4097, 4096),
        ([0, 201, 403], [0, 201, 402]),
        ([0, 201], [0, 201, 402]),  # too short
        ([402, 201, 0], [0, 201, 402]),  # order matters for a list
        ({"q0": 3}, {"q0": 3, "q1": 5}),
        (Status.FLUSH_DISK_TIMEOUT, Status.PUT_OK),
        ("TopicTest ", "TopicTest"),
        (b"\x00", b"\x00\x01"),
    ],
)
def test_plausible_wrong_answers_fail_with_the_hint_and_without_the_value(capsys, answer, expected):
    assert check(answer, expected, name="offset", hint="count the 91 fixed bytes") is False
    line = verdict(capsys, False)
    assert line.startswith("✗ offset: ") and line.endswith("count the 91 fixed bytes")
    assert repr(expected) not in line


@pytest.mark.spec("TEACH-6")
@pytest.mark.parametrize(
    ("answer", "expected", "why"),
    [
        ("4", 4, "expected an int, got a str ('4')"),
        (True, 1, "expected an int, got a bool (True)"),
        (1, True, "expected a bool, got an int (1)"),
        (2048.0, 2048, "expected an int, got a float (2048.0)"),
        ("PUT_OK", Status.PUT_OK, "expected a Status, got a str ('PUT_OK')"),
        (0, Status.PUT_OK, "expected a Status, got an int (0)"),
        (["0", "201"], [0, 201], "item 1 of 2: expected an int, got a str ('0')"),
        ({"q0": "3"}, {"q0": 3}, "at key 'q0': expected an int, got a str ('3')"),
        ("b'\\x00'", b"\x00", "expected a bytes, got a str"),
        ([1, 2], {1, 2}, "expected a set, got a list or tuple ([1, 2])"),
    ],
)
def test_type_confusion_is_wrong_and_named(capsys, answer, expected, why):
    assert check(answer, expected, name="n") is False
    line = verdict(capsys, False)
    assert line.startswith(f"✗ n: {why}")


@pytest.mark.spec("TEACH-6")
def test_a_type_confusion_keeps_a_specific_hint(capsys):
    check("4", 4, name="n", hint="a count, not text")
    assert verdict(capsys, False) == "✗ n: expected an int, got a str ('4'); a count, not text"


@pytest.mark.spec("TEACH-6")
@pytest.mark.parametrize("placeholder", [None, ...])
@pytest.mark.parametrize(
    "checker",
    [
        lambda a: check(a, 4, name="n"),
        lambda a: check_close(a, 0.5, name="n"),
        lambda a: check_unordered(a, [1, 2], name="n"),
        lambda a: check_that(a, lambda x: True, name="n"),
    ],
)
def test_a_placeholder_is_not_answered_yet(capsys, placeholder, checker):
    assert checker(placeholder) is False
    assert verdict(capsys, False) == "? n: not answered yet"


@pytest.mark.spec("TEACH-5")
def test_reveal_shows_the_expected_value_only_when_asked(capsys):
    check(3, 4, name="n", hint="h", reveal=True)
    assert verdict(capsys, False) == "✗ n: h (expected 4)"
    check(4, 4, name="n", reveal=True)
    assert verdict(capsys, True) == "✓ n: correct"


@pytest.mark.spec("TEACH-5")
@given(st.integers(), st.integers())
def test_two_different_ints_never_pass_and_the_expected_one_is_never_printed(answer, expected):
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        result = check(answer, expected, name="n", hint="h")
    assert result is (answer == expected)
    assert buffer.getvalue() == ("✓ n: correct\n" if answer == expected else "✗ n: h\n")


@pytest.mark.spec("TEACH-7")
def test_check_close(capsys):
    assert check_close(0.1 + 0.2, 0.3) is True
    assert check_close(0.31, 0.3, abs=0.02) is True
    assert check_close(1, 1.0) is True  # an int is a number
    assert check_close(0.31, 0.3) is False
    assert check_close(math.nan, math.nan) is False
    assert check_close("0.3", 0.3) is False
    assert check_close(True, 1.0) is False
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == [
        "✗ answer: expected a number, got a str ('0.3')",
        "✗ answer: expected a number, got a bool (True)",
    ]
    assert all("0.3)" not in line or "str" in line for line in out)


@pytest.mark.spec("TEACH-7")
@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        ([2, 0, 1], True),
        ((1, 2, 0), True),
        ({0, 1, 2}, True),
        ([0, 1], False),  # one missing
        ([0, 1, 2, 2], False),  # one too many
        ([0, 1, 1], False),  # same length, wrong multiplicity
        (["0", "1", "2"], False),  # text, not numbers
        ([0, 1, True], False),  # a bool is no int
        ("012", False),  # a string is not a collection of characters
        (3, False),
    ],
)
def test_check_unordered(capsys, answer, ok):
    assert check_unordered(answer, [0, 1, 2], name="queues") is ok
    verdict(capsys, ok)


@pytest.mark.spec("TEACH-7")
def test_check_unordered_names_a_type_confusion(capsys):
    check_unordered(["0", "1"], [0, 1], name="queues")
    assert verdict(capsys, False) == "✗ queues: the items are each an int, got a str ('0')"
    check_unordered([[1], [0]], [[0], [1]], name="nested")  # unhashable items
    assert verdict(capsys, True) == "✓ nested: correct"


@pytest.mark.spec("TEACH-7")
def test_check_that(capsys):
    def on_broker_a(queue):
        return queue.startswith("broker-a:")

    assert check_that("broker-a:3", on_broker_a, name="queue") is True
    assert check_that("broker-b:3", on_broker_a, name="queue", hint="which broker holds it?") is False
    assert check_that(3, on_broker_a, name="queue", hint="which broker holds it?") is False
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "✓ queue: correct",
        "✗ queue: which broker holds it?",
        "✗ queue: which broker holds it? (AttributeError while checking)",
    ]

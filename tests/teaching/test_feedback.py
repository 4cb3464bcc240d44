"""Feedback that diagnoses: common wrong answers get their own hints, structured answers are told which part is
wrong (never the value), a second wrong try gets a second hint, and ``solution`` proves all of it in the notebook."""

import pytest

from mqlab.teaching import check, check_close, check_that, check_unordered, solution
from mqlab.teaching.checks import SolutionError, diagnose


def lines(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


DELAY_HINTS = [
    (3000, "3 s is the 4.9.1 seed's wait; read DefaultMQProducerImpl in 4.9.3"),
    (3, "that is a count of retries, not a time in milliseconds"),
]


@pytest.mark.spec("TEACH-12")
def test_a_common_wrong_answer_gets_its_own_hint(capsys):
    for wrong, hint in DELAY_HINTS:
        assert check(wrong, 1000, name="delay", hint="how long does the producer wait?", wrong=DELAY_HINTS) is False
        assert lines(capsys) == [f"✗ delay: {hint}"]
    # an answer no one foresaw gets the general hint
    assert check(500, 1000, name="delay", hint="how long does the producer wait?", wrong=DELAY_HINTS) is False
    assert lines(capsys) == ["✗ delay: how long does the producer wait?"]


@pytest.mark.spec("TEACH-12")
def test_the_two_statuses_a_learner_confuses_get_different_hints(capsys):
    wrong = [
        (("NO_MESSAGE", 3), "NO_MESSAGE means the queue had nothing at that offset; here it has three units"),
        (("NO_MATCHED_MESSAGE", 0), "units that do not match are still looked at: the next pull starts after them"),
    ]
    said = []
    for answer in [("NO_MESSAGE", 3), ("NO_MATCHED_MESSAGE", 0)]:
        check(answer, ("NO_MATCHED_MESSAGE", 3), name="TagC pull", wrong=wrong)
        said += lines(capsys)
    assert said == [f"✗ TagC pull: {hint}" for _, hint in wrong]


@pytest.mark.spec("TEACH-12")
def test_a_second_wrong_try_gets_a_second_more_specific_hint(capsys):
    hints = ["the producer retries", "retryTimesWhenSendFailed is 2: how many sends is that in all?"]
    check(1, 3, name="sends", hint=hints)
    check(2, 3, name="sends", hint=hints)
    check(4, 3, name="sends", hint=hints)  # the hints ran out: the last one stays
    assert lines(capsys) == [
        "✗ sends: the producer retries",
        "✗ sends: retryTimesWhenSendFailed is 2: how many sends is that in all?",
        "✗ sends: retryTimesWhenSendFailed is 2: how many sends is that in all?",
    ]


@pytest.mark.spec("TEACH-12")
def test_a_common_wrong_answer_may_escalate_too(capsys):
    wrong = [(16, ["16 is the consumer's maxReconsumeTimes", "this question is about the producer's sends"])]
    check(16, 3, name="sends", wrong=wrong)
    check(16, 3, name="sends", wrong=wrong)
    assert lines(capsys) == [
        "✗ sends: 16 is the consumer's maxReconsumeTimes",
        "✗ sends: this question is about the producer's sends",
    ]


@pytest.mark.spec("TEACH-12")
def test_a_common_wrong_answer_that_is_right_is_refused():
    with pytest.raises(ValueError, match="is a right answer"):
        check(3, 3, name="sends", wrong=[(3, "oops")])


@pytest.mark.spec("TEACH-13")
@pytest.mark.parametrize(
    ("answer", "expected", "parts", "said"),
    [
        ((3, 604), (3, 603), None, "item 2 of 2 is wrong"),
        ((3, 604), (3, 603), ("records dispatched", "reputFromOffset"), "item 2 of 2 (reputFromOffset) is wrong"),
        ((2, 604), (3, 603), None, "all 2 items are wrong"),
        ([0, 201, 403, 605], [0, 201, 402, 603], None, "item 3 and item 4 of 4 are wrong"),
        ([0, 201], [0, 201, 402], None, "expected 3 items, got 2"),
        (
            {"consumer-1": [0], "consumer-2": [1]},
            {"consumer-1": [0], "consumer-2": [1], "consumer-3": [2]},
            None,
            "missing key 'consumer-3'",
        ),
        ({"c1": [0], "c2": [1], "x": []}, {"c1": [0], "c2": [1]}, None, "unexpected key 'x'"),
        ({"c1": [0, 1], "c2": [1]}, {"c1": [0], "c2": [1]}, None, "the value at key 'c1' is wrong"),
    ],
)
def test_a_partly_right_answer_is_told_which_part_without_the_value(capsys, answer, expected, parts, said):
    assert diagnose(answer, expected, parts) == said
    check(answer, expected, name="q", parts=parts)
    (line,) = lines(capsys)
    assert line == f"✗ q: {said}"
    for value in expected.values() if isinstance(expected, dict) else expected:
        if value not in (answer.values() if isinstance(answer, dict) else answer):
            assert repr(value) not in line


@pytest.mark.spec("TEACH-13")
def test_numbers_say_which_way_and_collections_say_how_many(capsys):
    check_close(1.5, 1.0, rel=0.01, name="ratio")
    check_close(0.5, 1.0, rel=0.01, name="ratio")
    check_unordered([0, 1, 7], [0, 1, 2], name="queues")
    check_unordered([0, 1], [0, 1, 2], name="queues")
    assert lines(capsys) == [
        "✗ ratio: too high",
        "✗ ratio: too low",
        "✗ queues: 1 of your 3 items is not expected; 1 expected item missing",
        "✗ queues: 1 expected item missing",
    ]


@pytest.mark.spec("TEACH-14")
def test_the_solution_cell_runs_the_same_check_and_proves_its_feedback(capsys):
    wrong = [((3, 201), "201 is one record's size: where does the offset stand after all three?")]
    check(..., (3, 603), name="one doReput", parts=("records", "reputFromOffset"), wrong=wrong)
    assert lines(capsys) == ["? one doReput: not answered yet"]
    assert solution("one doReput", (3, 603)) is True
    assert lines(capsys) == [
        "✓ one doReput: correct",
        "  (1 common wrong answer gets its own hint; a partly right answer is told which part is wrong)",
    ]


@pytest.mark.spec("TEACH-14")
def test_a_wrong_solution_or_an_unasked_exercise_fails_the_notebook(capsys):
    check(..., 603, name="reput", wrong=[(201, "one record")])
    with pytest.raises(SolutionError, match="does not pass its own check"):
        solution("reput", 604)
    with pytest.raises(KeyError, match="run the exercise cell above first"):
        solution("never asked", 1)


@pytest.mark.spec("TEACH-14")
def test_a_predicate_that_accepts_a_common_wrong_answer_fails_the_exercise(capsys):
    # the notebook's author thought 7 was wrong, but the predicate (any odd number) accepts it
    with pytest.raises(ValueError, match="is a right answer"):
        check_that(..., lambda n: n % 2 == 1, name="odd", wrong=[(7, "7 is the other broker's")])


@pytest.mark.spec("TEACH-14")
def test_the_solution_keeps_the_readers_tries(capsys):
    hints = ["first", "second"]
    check(1, 3, name="tries", hint=hints)
    solution("tries", 3)
    check(2, 3, name="tries", hint=hints)
    assert lines(capsys)[-1] == "✗ tries: second"


@pytest.mark.spec("TEACH-12")
def test_an_experiments_wrong_answer_that_this_setting_makes_right_is_left_out(capsys):
    # the default's result (17) is a common wrong answer, unless the reader's setting gives 17 too
    common = [(17, "that is the default's 16 retries plus the first delivery"), (2, "count the first delivery")]
    check(17, 3, name="payments", wrong=common, experiment=True)
    assert lines(capsys) == ["✗ payments: that is the default's 16 retries plus the first delivery"]
    check(17, 17, name="payments at the default", wrong=common, experiment=True)
    assert lines(capsys) == ["✓ payments at the default: correct"]
    assert solution("payments at the default", 17) is True
    assert lines(capsys) == ["✓ payments at the default: correct", "  (1 common wrong answer gets its own hint)"]
    with pytest.raises(ValueError, match="is a right answer"):
        check(17, 17, name="payments", wrong=common)  # outside an experiment it is the notebook's mistake

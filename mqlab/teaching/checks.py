"""Ask before you show: a notebook asks the reader to predict a value, ``check`` says right or says what is wrong.

Java: none (teaching helper).

Every check prints one deterministic line, ``✓ <name>: correct``, ``✗ <name>: <why>`` or ``? <name>: not answered
yet``, and returns a bool. The expected value stays hidden unless ``reveal=True``. What a wrong answer is told:

- a *common wrong answer* named with ``wrong=[(value, hint), ...]`` gets its own hint, aimed at the misconception
  behind it (the seed's 3 s delay where 4.9.3 waits 1,000 ms; a CommitLog offset for a ConsumeQueue offset);
- a structured answer is told which part is wrong, never the value: ``item 2 of 2 is wrong``, ``missing key
  'consumer-3'``, ``unexpected key 'x'``, ``1 item is not expected``;
- a type confusion says what kind of value was expected (``"4"`` for ``4``, ``True`` for ``1``, ``"PUT_OK"`` for
  ``PutMessageStatus.PUT_OK``);
- ``hint`` may be a list: the first wrong try gets the first hint, the second wrong try the second, more specific
  one (a common wrong answer's hint may be a list too).

An answer left as ``None`` or ``...`` (what an exercise cell holds until it is answered) is "not answered yet".
Each check is remembered by its name, so the notebook's folded *solution* cell runs the same check on the solution
with ``solution(name, value)``; that call also proves, in the notebook's own run, that every common wrong answer is
rejected with its own hint and that a partly right structured answer is told which part is wrong.

In a notebook, assign the result so Jupyter does not echo the returned bool (a trailing ``;`` is not enough under
nbval, which runs cells without IPython's output history)::

    answer = ...  # the physical offset of the third message
    _ = check(answer, wrote_offsets[2], name="third offset", hint="each record starts where the previous one ended",
              wrong=[(91, "91 is the fixed part of one record; the body and properties come on top")])

and, in the solution cell below the fold::

    _ = solution("third offset", 402)
"""

from __future__ import annotations

import enum
import math
import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from typing import Any

CORRECT = "correct"
NOT_ANSWERED = "not answered yet"
DEFAULT_HINT = "not quite; look again"

_SEQUENCES = (list, tuple)
_BYTES = (bytes, bytearray, memoryview)


def _kind(value: object) -> str:
    """A reader's word for a value's type: ``an int``, ``a str``, ``a PutMessageStatus``."""
    if isinstance(value, bool):
        name = "bool"
    elif isinstance(value, _SEQUENCES):
        name = "list or tuple"
    elif isinstance(value, (set, frozenset)):
        name = "set"
    elif isinstance(value, _BYTES):
        name = "bytes"
    else:
        name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _family(value: object) -> object:
    """Values of one family may be compared: list ~ tuple, set ~ frozenset, bytes ~ bytearray; bool is no int."""
    if isinstance(value, bool):
        return bool
    if isinstance(value, enum.Enum):
        return type(value)
    if isinstance(value, _SEQUENCES):
        return list
    if isinstance(value, (set, frozenset)):
        return set
    if isinstance(value, _BYTES):
        return bytes
    if isinstance(value, Mapping):
        return Mapping
    if isinstance(value, numbers.Integral):
        return int
    return type(value)


def type_mismatch(answer: object, expected: object) -> str | None:
    """Why ``answer`` cannot equal ``expected`` by its type alone, anywhere inside (None if the types agree).

    A float answer to an int question is a mismatch (``2048.0`` for ``2048``: the reader divided with ``/``); an int
    answer to a float question is not (``2`` for ``2.0``).
    """
    widened = isinstance(expected, float) and _family(answer) is int
    if _family(answer) is not _family(expected) and not widened:
        return f"expected {_kind(expected)}, got {_kind(answer)} ({answer!r})"
    if isinstance(expected, _SEQUENCES) and len(answer) == len(expected):  # type: ignore[arg-type]
        for index, (mine, theirs) in enumerate(zip(answer, expected, strict=True)):  # type: ignore[call-overload]
            problem = type_mismatch(mine, theirs)
            if problem is not None:
                return f"item {index + 1} of {len(expected)}: {problem}"
    if isinstance(expected, Mapping) and isinstance(answer, Mapping) and set(answer) == set(expected):
        for key in expected:
            problem = type_mismatch(answer[key], expected[key])
            if problem is not None:
                return f"at key {key!r}: {problem}"
    return None


def same(answer: object, expected: object) -> bool:
    """Equal and of the same family all the way down (``[1, 2] ~ (1, 2)``, but ``"4" != 4`` and ``True != 1``)."""
    if type_mismatch(answer, expected) is not None:
        return False
    if isinstance(expected, _SEQUENCES):
        return len(answer) == len(expected) and all(map(same, answer, expected))  # type: ignore[arg-type]
    if isinstance(expected, Mapping):
        return set(answer) == set(expected) and all(same(answer[k], expected[k]) for k in expected)  # type: ignore[index]
    if isinstance(expected, _BYTES):
        return bytes(answer) == bytes(expected)  # type: ignore[call-overload]
    return bool(answer == expected)


def _is_unanswered(answer: object) -> bool:
    return answer is None or answer is Ellipsis


Hints = str | Sequence[str]
WrongAnswers = Iterable[tuple[object, Hints]]


class SolutionError(AssertionError):
    """A solution cell's value is not right, or a checker fails to tell a common wrong answer from a right one."""


def _hint_for(hints: Hints, tries: int) -> str:
    """The hint for a reader's ``tries``-th wrong try (0 for the first): the last hint once they run out."""
    if isinstance(hints, str):
        return hints
    return hints[min(tries, len(hints) - 1)] if hints else DEFAULT_HINT


def report(ok: bool, name: str, why: str) -> bool:
    """Print the verdict line and return ``ok``."""
    print(f"✓ {name}: {CORRECT}" if ok else f"? {name}: {NOT_ANSWERED}" if why == NOT_ANSWERED else f"✗ {name}: {why}")
    return ok


def _part_label(index: int, count: int, parts: Sequence[str] | None) -> str:
    label = f"item {index + 1} of {count}"
    return f"{label} ({parts[index]})" if parts is not None and index < len(parts) else label


def _which_items(indexes: list[int], count: int, parts: Sequence[str] | None) -> str:
    if len(indexes) == 1:
        return f"{_part_label(indexes[0], count, parts)} is wrong"
    if len(indexes) == count:
        return f"all {count} items are wrong"
    labels = [_part_label(i, count, parts).removesuffix(f" of {count}") for i in indexes]
    return f"{', '.join(labels[:-1])} and {labels[-1]} of {count} are wrong"


def diagnose(answer: object, expected: object, parts: Sequence[str] | None = None) -> str | None:
    """Which part of a structured answer is wrong, without saying what the right part is (None: nothing to say).

    For a list or tuple of the right length: the items that differ (``item 2 of 2 is wrong``, named by ``parts``
    when given); of the wrong length: how many items were expected. For a mapping: a missing key, an unexpected
    key, or the keys whose values are wrong (the reader's own keys may be named, the missing ones too: the question
    names them).
    """
    if isinstance(expected, _SEQUENCES) and isinstance(answer, _SEQUENCES):
        if len(answer) != len(expected):
            return f"expected {len(expected)} items, got {len(answer)}"
        wrong = [i for i, (mine, theirs) in enumerate(zip(answer, expected, strict=True)) if not same(mine, theirs)]
        return _which_items(wrong, len(expected), parts) if wrong else None
    if isinstance(expected, Mapping) and isinstance(answer, Mapping):
        missing = [key for key in expected if key not in answer]
        extra = [key for key in answer if key not in expected]
        problems = [f"missing key {key!r}" for key in missing] + [f"unexpected key {key!r}" for key in extra]
        wrong_values = [key for key in expected if key in answer and not same(answer[key], expected[key])]
        if wrong_values:
            keys = ", ".join(repr(key) for key in wrong_values)
            problems.append(
                f"the value at key {keys} is wrong"
                if len(wrong_values) == 1
                else f"the values at keys {keys} are wrong"
            )
        return "; ".join(problems) or None
    return None


class Question:
    """One exercise's check: how an answer is compared with the expected value, and what a wrong one is told.

    ``kind`` is one of ``"equal"`` (``check``), ``"close"`` (``check_close``), ``"unordered"``
    (``check_unordered``) and ``"that"`` (``check_that``: ``expected`` is the predicate). A common wrong answer the
    check accepts is a mistake in the notebook (``ValueError``), unless ``experiment``: there the expected value
    follows a setting the reader changes, and a wrong answer of one setting that is right for this one is left out.
    """

    def __init__(
        self,
        name: str,
        kind: str,
        expected: object,
        *,
        hint: Hints = DEFAULT_HINT,
        wrong: WrongAnswers = (),
        parts: Sequence[str] | None = None,
        reveal: bool = False,
        rel: float = 1e-9,
        abs_tol: float = 0.0,
        experiment: bool = False,
    ) -> None:
        self.name = name
        self.kind = kind
        self.expected = expected
        self.hints = hint
        self.wrong = [(value, hints) for value, hints in wrong]
        self.parts = parts
        self.reveal = reveal
        self.rel = rel
        self.abs_tol = abs_tol
        self.tries = 0  # wrong tries so far: the next one gets the next hint
        right = [value for value, _ in self.wrong if self.accepts(value)]
        if right and not experiment:
            raise ValueError(f"check {name!r}: the common wrong answer {right[0]!r} is a right answer")
        # an experiment's expected value follows the reader's setting: a common wrong answer of one setting (the
        # default's result) is the right one of another, and is then left out
        kept: list[tuple[object, Hints]] = []
        for value, hints in self.wrong:
            if not self.accepts(value) and not any(same(value, other) for other, _ in kept):
                kept.append((value, hints))  # two formulas of one experiment may give the same value: first wins
        self.wrong = kept

    def accepts(self, answer: object) -> bool:
        """Whether ``answer`` is right (no printing, no counting)."""
        if _is_unanswered(answer):
            return _is_unanswered(self.expected) and self.kind == "equal" and answer is self.expected
        if self.kind == "equal":
            return type_mismatch(answer, self.expected) is None and same(answer, self.expected)
        if self.kind == "close":
            return self._number_problem(answer) is None and math.isclose(
                float(answer),  # type: ignore[arg-type]
                float(self.expected),  # type: ignore[arg-type]
                rel_tol=self.rel,
                abs_tol=self.abs_tol,
            )
        if self.kind == "unordered":
            if self._collection_problem(answer) is not None:
                return False
            items = list(answer)  # type: ignore[call-overload]
            expected = list(self.expected)  # type: ignore[call-overload]
            return len(items) == len(expected) and _same_multiset(items, expected)
        try:
            return bool(self.expected(answer))  # type: ignore[operator]
        except Exception:  # a reader's answer of the wrong shape makes the predicate fail
            return False

    def _number_problem(self, answer: object) -> str | None:
        if isinstance(answer, bool) or not isinstance(answer, numbers.Real) or isinstance(self.expected, bool):
            return f"expected a number, got {_kind(answer)} ({answer!r})"
        return None

    def _collection_problem(self, answer: object) -> str | None:
        if isinstance(answer, (str, bytes, Mapping)) or not isinstance(answer, (Iterable, Set)):
            return f"expected a collection, got {_kind(answer)} ({answer!r})"
        return None

    def _common_wrong(self, answer: object) -> Hints | None:
        for value, hints in self.wrong:
            if self.kind == "close" and isinstance(value, numbers.Real) and self._number_problem(answer) is None:
                if math.isclose(float(answer), float(value), rel_tol=self.rel, abs_tol=self.abs_tol):  # type: ignore[arg-type]
                    return hints
            elif self.kind == "unordered" and self._collection_problem(answer) is None:
                if _same_multiset(list(answer), list(value)) and len(list(answer)) == len(list(value)):  # type: ignore[call-overload]
                    return hints
            elif type_mismatch(answer, value) is None and same(answer, value):
                return hints
        return None

    def why(self, answer: object, tries: int = 0) -> str:
        """What a wrong ``answer`` is told on the reader's ``tries``-th wrong try (0: the first)."""
        common = self._common_wrong(answer)
        if common is not None:
            return _hint_for(common, tries)
        hint = _hint_for(self.hints, tries)
        problem = self._problem(answer)
        if problem is None:
            return hint
        return problem if hint == DEFAULT_HINT else f"{problem}; {hint}"

    def _problem(self, answer: object) -> str | None:
        """What is wrong with the answer's type or structure (None: only its value)."""
        if self.kind == "equal":
            return type_mismatch(answer, self.expected) or diagnose(answer, self.expected, self.parts)
        if self.kind == "close":
            problem = self._number_problem(answer)
            if problem is None and not math.isnan(float(answer)):  # type: ignore[arg-type]
                return "too high" if float(answer) > float(self.expected) else "too low"  # type: ignore[arg-type]
            return problem
        if self.kind == "unordered":
            return self._collection_problem(answer) or self._multiset_problem(list(answer))  # type: ignore[call-overload]
        return None

    def _multiset_problem(self, items: list[Any]) -> str | None:
        expected = list(self.expected)  # type: ignore[call-overload]
        families = {_family(item) for item in expected}
        odd = next((item for item in items if _family(item) not in families), None)
        if odd is not None and expected:
            kinds = " or ".join(sorted({_kind(item) for item in expected}))
            return f"the items are each {kinds}, got {_kind(odd)} ({odd!r})"
        remaining = list(expected)
        extra = []
        for item in items:
            match = next((i for i, other in enumerate(remaining) if same(item, other)), None)
            if match is None:
                extra.append(item)
            else:
                remaining.pop(match)
        problems = []
        if extra:
            problems.append(
                f"{len(extra)} of your {len(items)} items {'is' if len(extra) == 1 else 'are'} not expected"
            )
        if remaining:
            problems.append(f"{len(remaining)} expected item{'' if len(remaining) == 1 else 's'} missing")
        return "; ".join(problems) or None

    def ask(self, answer: object) -> bool:
        """Judge a reader's answer: print the verdict line, count a wrong try, return whether it is right."""
        if _is_unanswered(answer) and not self.accepts(answer):
            return report(False, self.name, NOT_ANSWERED)
        if self.accepts(answer):
            return report(True, self.name, CORRECT)
        why = self.why(answer, self.tries)
        self.tries += 1
        if self.reveal:
            shown = self.expected if self.kind != "that" else "a value the predicate accepts"
            why = f"{why} (expected {shown!r})"
        return report(False, self.name, why)

    def partly_right(self) -> tuple[object, str] | None:
        """A structured answer with one part wrong, and what it must be told (None: the answer has no parts)."""
        expected = self.expected
        if self.kind != "equal":
            return None
        if isinstance(expected, _SEQUENCES) and len(expected) >= 2:
            last = len(expected) - 1
            changed = list(expected)
            changed[last] = _another(expected[last])
            return type(expected)(changed) if isinstance(expected, tuple) else changed, _part_label(
                last, len(expected), self.parts
            )
        if isinstance(expected, Mapping) and expected:
            key = list(expected)[-1]
            return {k: v for k, v in expected.items() if k != key}, f"missing key {key!r}"
        return None


def _another(value: object) -> object:
    """A value of the same kind as ``value`` that differs from it (to make a partly right answer)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, numbers.Integral):
        return int(value) + 1
    if isinstance(value, float):
        return value + 1.0
    if isinstance(value, str):
        return value + "?"
    if isinstance(value, _SEQUENCES):
        return [*value, _another(value[-1]) if value else 0]
    return object()


_ASKED: dict[str, Question] = {}


def ask(question: Question, answer: object) -> bool:
    """Remember ``question`` by its name (for ``solution``) and judge ``answer``; keeps a repeated question's tries."""
    previous = _ASKED.get(question.name)
    if previous is not None and previous.kind == question.kind and same(previous.wrong, question.wrong):
        question.tries = previous.tries
    _ASKED[question.name] = question
    return question.ask(answer)


def check(
    answer: object,
    expected: object,
    *,
    hint: Hints = DEFAULT_HINT,
    name: str = "answer",
    reveal: bool = False,
    wrong: WrongAnswers = (),
    parts: Sequence[str] | None = None,
    experiment: bool = False,
) -> bool:
    """Whether ``answer`` equals ``expected`` with the same type (lists and tuples, sets, bytes interchangeable).

    Prints ``✓ name: correct`` or ``✗ name: <why>``: a common wrong answer's own hint, which part of a structured
    answer is wrong, what kind of value was expected, then the hint.

    Args:
        answer: the reader's value (``None`` or ``...``: not answered yet).
        expected: the right value, computed by the notebook (never printed unless ``reveal``).
        hint: what to say when the answer is wrong; a list gives the second wrong try a second hint.
        name: what is being checked, as the reader knows it (``solution(name, value)`` finds the check by it).
        reveal: add the expected value to a failure.
        wrong: common wrong answers, each with the hint (or hints) aimed at the misconception behind it.
        parts: names of the items of a tuple answer, used to say which one is wrong.
        experiment: ``expected`` follows a setting the reader changes; a common wrong answer that is right for
            this setting is left out instead of refused.
    """
    question = Question(
        name, "equal", expected, hint=hint, wrong=wrong, parts=parts, reveal=reveal, experiment=experiment
    )
    return ask(question, answer)


def check_close(
    answer: object,
    expected: float,
    *,
    rel: float = 1e-9,
    abs: float = 0.0,
    hint: Hints = DEFAULT_HINT,
    name: str = "answer",
    reveal: bool = False,
    wrong: WrongAnswers = (),
    experiment: bool = False,
) -> bool:
    """Whether a number is within ``rel`` (relative) or ``abs`` (absolute) of ``expected``.

    A wrong number is told whether it is too high or too low. A string or a bool is never a number here, and NaN
    is never close to anything.
    """
    question = Question(
        name, "close", expected, hint=hint, wrong=wrong, reveal=reveal, rel=rel, abs_tol=abs, experiment=experiment
    )
    return ask(question, answer)


def check_unordered(
    answer: object,
    expected: Iterable[Any],
    *,
    hint: Hints = DEFAULT_HINT,
    name: str = "answer",
    reveal: bool = False,
    wrong: WrongAnswers = (),
    experiment: bool = False,
) -> bool:
    """Whether two collections hold the same items, each as often, in any order (items compared as ``check``).

    A wrong answer is told how many of its items are not expected and how many expected ones are missing (not
    which). A string is not a collection of characters here: ``"ab"`` does not answer ``["a", "b"]``.
    """
    items = expected if isinstance(expected, (list, tuple, set, frozenset)) else list(expected)
    return ask(Question(name, "unordered", items, hint=hint, wrong=wrong, reveal=reveal, experiment=experiment), answer)


def _same_multiset(answer: list[Any], expected: list[Any]) -> bool:
    try:
        keyed = Counter((_family(x), x) for x in answer) == Counter((_family(x), x) for x in expected)
    except TypeError:  # unhashable items: match them one by one
        remaining = list(expected)
        for item in answer:
            match = next((i for i, other in enumerate(remaining) if same(item, other)), None)
            if match is None:
                return False
            remaining.pop(match)
        return True
    return keyed and all(any(same(item, other) for other in expected) for item in answer)


def check_that(
    answer: object,
    predicate: Callable[[Any], bool],
    *,
    hint: Hints = DEFAULT_HINT,
    name: str = "answer",
    wrong: WrongAnswers = (),
    experiment: bool = False,
) -> bool:
    """Whether ``predicate(answer)`` holds; for questions with many right answers (any queue of one broker).

    A predicate that raises counts as a wrong answer (the exception's type is named, its text is not: it may
    give the answer away).
    """
    question = Question(name, "that", predicate, hint=hint, wrong=wrong, experiment=experiment)
    if _is_unanswered(answer):
        _ASKED[name] = question
        return report(False, name, NOT_ANSWERED)
    try:
        predicate(answer)
    except Exception as error:
        _ASKED[name] = question
        return report(False, name, f"{_hint_for(hint, 0)} ({type(error).__name__} while checking)")
    return ask(question, answer)


def solution(name: str, value: object) -> bool:
    """The folded solution cell: run the exercise's own check on ``value`` and prove its feedback.

    Prints ``✓ name: correct``, then one line saying how many common wrong answers were each rejected with their own
    hint (and, for a structured answer, that a partly right one is told which part is wrong). Raises
    ``SolutionError`` if the solution is not right, a common wrong answer gets the general hint instead of its own,
    or a partly right answer is not told its wrong part: nbval then fails the notebook. The reader's count of wrong
    tries is kept as it was.

    Raises:
        KeyError: no check of that name has run (run the exercise cell first).
    """
    question = _ASKED.get(name)
    if question is None:
        raise KeyError(f"no exercise named {name!r} has been checked yet: run the exercise cell above first")
    if not question.accepts(value):
        raise SolutionError(f"the solution of {name!r} does not pass its own check: {question.why(value)}")
    report(True, name, CORRECT)
    for wrong_value, hints in question.wrong:  # each is wrong: Question refuses a right one
        for tries in range(1 if isinstance(hints, str) else len(hints)):
            own = _hint_for(hints, tries)
            if question.why(wrong_value, tries) != own or own == _hint_for(question.hints, tries):
                raise SolutionError(f"{name!r}: the common wrong answer {wrong_value!r} does not get its own hint")
    told = []
    if question.wrong:
        count = len(question.wrong)
        told.append(f"{count} common wrong answer{'s get their' if count > 1 else ' gets its'} own hint")
    partly = question.partly_right()
    if partly is not None:
        answer, part = partly
        if question.accepts(answer) or part not in question.why(answer):
            raise SolutionError(f"{name!r}: a partly right answer is not told that {part} is wrong")
        told.append("a partly right answer is told which part is wrong")
    if told:
        print(f"  ({'; '.join(told)})")
    return True

"""Ask before you show: a notebook asks the reader to predict a value, ``check`` says right or gives a hint.

Java: none (teaching helper).

Every check prints one deterministic line, ``✓ <name>: correct`` or ``✗ <name>: <why>``, and returns a bool. The
expected value stays hidden unless ``reveal=True``: a failed check gives the hint, or says what kind of value was
expected when the answer has the wrong type (``"4"`` for ``4``, ``True`` for ``1``, ``"PUT_OK"`` for
``PutMessageStatus.PUT_OK``). An answer left as ``None`` or ``...`` (what an exercise cell holds until it is
answered) is "not answered yet".

In a notebook, assign the result so Jupyter does not echo the returned bool (a trailing ``;`` is not enough under
nbval, which runs cells without IPython's output history)::

    answer = ...  # the physical offset of the third message
    _ = check(answer, wrote_offsets[2], name="third offset", hint="each record starts where the previous one ended")
"""

from __future__ import annotations

import enum
import math
import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Set
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
                return f"item {index}: {problem}"
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


def report(ok: bool, name: str, why: str) -> bool:
    """Print the verdict line and return ``ok``."""
    print(f"✓ {name}: {CORRECT}" if ok else f"✗ {name}: {why}")
    return ok


def _verdict(
    answer: object, expected: object, ok: bool, *, name: str, hint: str, reveal: bool, mismatch: str | None = None
) -> bool:
    if _is_unanswered(answer) and not _is_unanswered(expected):
        return report(False, name, NOT_ANSWERED)
    why = hint if mismatch is None else f"{mismatch}; {hint}" if hint != DEFAULT_HINT else mismatch
    if reveal and not ok:
        why = f"{why} (expected {expected!r})"
    return report(ok, name, why)


def check(
    answer: object, expected: object, *, hint: str = DEFAULT_HINT, name: str = "answer", reveal: bool = False
) -> bool:
    """Whether ``answer`` equals ``expected`` with the same type (lists and tuples, sets, bytes interchangeable).

    Prints ``✓ name: correct`` or ``✗ name: <hint>``; a type confusion says what kind of value was expected.

    Args:
        answer: the reader's value (``None`` or ``...``: not answered yet).
        expected: the right value, computed by the notebook (never printed unless ``reveal``).
        hint: what to say when the answer is wrong.
        name: what is being checked, as the reader knows it.
        reveal: add the expected value to a failure.
    """
    mismatch = None if _is_unanswered(answer) else type_mismatch(answer, expected)
    ok = mismatch is None and same(answer, expected)
    return _verdict(answer, expected, ok, name=name, hint=hint, reveal=reveal, mismatch=mismatch)


def check_close(
    answer: object,
    expected: float,
    *,
    rel: float = 1e-9,
    abs: float = 0.0,
    hint: str = DEFAULT_HINT,
    name: str = "answer",
    reveal: bool = False,
) -> bool:
    """Whether a number is within ``rel`` (relative) or ``abs`` (absolute) of ``expected``.

    A string or a bool is never a number here, and NaN is never close to anything.
    """
    mismatch = None
    if not _is_unanswered(answer) and (
        isinstance(answer, bool) or not isinstance(answer, numbers.Real) or isinstance(expected, bool)
    ):
        mismatch = f"expected a number, got {_kind(answer)} ({answer!r})"
    ok = mismatch is None and not _is_unanswered(answer)
    ok = ok and math.isclose(float(answer), float(expected), rel_tol=rel, abs_tol=abs)  # type: ignore[arg-type]
    return _verdict(answer, expected, ok, name=name, hint=hint, reveal=reveal, mismatch=mismatch)


def check_unordered(
    answer: object,
    expected: Iterable[Any],
    *,
    hint: str = DEFAULT_HINT,
    name: str = "answer",
    reveal: bool = False,
) -> bool:
    """Whether two collections hold the same items, each as often, in any order (items compared as ``check``).

    A string is not a collection of characters here: ``"ab"`` does not answer ``["a", "b"]``.
    """
    expected_items = list(expected)
    mismatch = None
    if not _is_unanswered(answer) and (
        isinstance(answer, (str, bytes, Mapping)) or not isinstance(answer, (Iterable, Set))
    ):
        mismatch = f"expected a collection, got {_kind(answer)} ({answer!r})"
    ok = False
    if mismatch is None and not _is_unanswered(answer):
        answer_items = list(answer)  # type: ignore[call-overload]
        ok = len(answer_items) == len(expected_items) and _same_multiset(answer_items, expected_items)
        families = {_family(item) for item in expected_items}
        odd = next((item for item in answer_items if _family(item) not in families), None)
        if not ok and odd is not None and expected_items:
            kinds = " or ".join(sorted({_kind(item) for item in expected_items}))
            mismatch = f"the items are each {kinds}, got {_kind(odd)} ({odd!r})"
    shown = expected if isinstance(expected, (list, tuple, set, frozenset)) else expected_items
    return _verdict(answer, shown, ok, name=name, hint=hint, reveal=reveal, mismatch=mismatch)


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
    hint: str = DEFAULT_HINT,
    name: str = "answer",
) -> bool:
    """Whether ``predicate(answer)`` holds; for questions with many right answers (any queue of one broker).

    A predicate that raises counts as a wrong answer (the exception's type is named, its text is not: it may
    give the answer away).
    """
    if _is_unanswered(answer):
        return report(False, name, NOT_ANSWERED)
    try:
        ok = bool(predicate(answer))
    except Exception as error:  # a reader's answer of the wrong shape makes the predicate fail
        return report(False, name, f"{hint} ({type(error).__name__} while checking)")
    return report(ok, name, hint)

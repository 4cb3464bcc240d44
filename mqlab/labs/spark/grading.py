"""Grade a table: the reader's DataFrame against a reference table computed without Spark.

Java: none (teaching helper).

``grade_table(answer, expected, name=..., key=...)`` accepts what a Spark exercise cell naturally produces: a Spark
DataFrame, a pandas DataFrame (a key held in the index counts as a column) or a list of dicts or Spark ``Row``s.
``None`` or ``...`` is "not answered yet". The reference ``expected`` is a list of dicts, one per row.

Rows are matched by ``key``, never by position (Spark promises no order). The verdict is one deterministic line in
the style of :mod:`mqlab.teaching.checks`, ``✓ name: correct`` or ``✗ name: <what differs>``, naming in this order:

1. columns: missing ones, and (when ``columns`` is not given, so the whole table is the answer) unexpected ones;
2. keys shared by several rows of the answer (an aggregation that was not done);
3. how many expected keys are missing and how many answer keys are unexpected, with the first of each;
4. how many values differ in the compared columns, with the first one, its column and its key.

"First" means first in sorted key order, so the line does not depend on how Spark partitioned the answer. A wrong
value is shown as the reader's value, not the expected one: the hint (appended last) says where to look.

Values compare as ``check`` compares them, with three allowances a table needs: an int and a float are equal when
the numbers are (pandas turns an int column with a null into floats, Spark's ``avg`` returns doubles), floats agree
within ``rel_tol`` relative or 1e-9 absolute (Spark sums in another order than Python), and an expected ``set`` or
``frozenset`` accepts a list in any order (``collect_set`` promises none). A NaN in the answer counts as null, which
is what ``toPandas`` makes of one.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence, Set
from typing import Any

# _kind is checks' word for a value's type ("an int"); sharing it keeps the two graders' wording identical.
from mqlab.teaching.checks import NOT_ANSWERED, _kind, report, same, type_mismatch

FLOAT_ABS_TOL = 1e-9

Key = tuple[Any, ...]


class ReferenceTableError(ValueError):
    """The expected table given to ``grade_table`` is malformed (a bug in the exercise, not in the answer)."""


class _Unreadable(Exception):
    """The answer is not a table; the message says what it is instead."""


def grade_table(
    answer: Any,
    expected: Sequence[Mapping[str, Any]],
    *,
    name: str,
    key: str | Sequence[str],
    columns: Sequence[str] | None = None,
    rel_tol: float = 0.0,
    hint: str | None = None,
) -> bool:
    """Whether ``answer`` holds the rows of ``expected``, matched by ``key``; prints the verdict line.

    Args:
        answer: a Spark DataFrame, a pandas DataFrame or a list of dicts/Rows (``None`` or ``...``: not answered).
        expected: the reference rows, computed without Spark.
        name: what is being graded, as the reader knows it.
        key: the column or columns identifying a row.
        columns: the columns whose values are compared (default: every column of ``expected`` but the key); when
            given, the answer may carry other columns too.
        rel_tol: relative tolerance for floats.
        hint: appended to a failure.

    Raises:
        ReferenceTableError: ``expected`` lacks a key column, repeats a key, or ``columns`` names an unknown column.
    """
    keys = (key,) if isinstance(key, str) else tuple(key)
    if isinstance(expected, (str, bytes, Mapping)) or not isinstance(expected, Iterable):
        raise ReferenceTableError(f"expected must be a list of dicts, got {_kind(expected)}")
    expected = list(expected)  # a generator would be spent by the first pass
    reference_columns = _reference_columns(expected, keys, columns)
    compared = [c for c in (columns if columns is not None else reference_columns) if c not in keys]
    reference = _index_reference(expected, keys)
    if answer is None or answer is Ellipsis:
        return report(False, name, NOT_ANSWERED)
    try:
        answer_columns, rows = _read_answer(answer, keys)
    except _Unreadable as error:
        return report(False, name, _with_hint(str(error), hint))
    problems = _column_problems(answer_columns, keys, compared, reference_columns, whole_table=columns is None)
    if not any(c not in answer_columns for c in keys):
        problems += _row_problems(rows, reference, keys, [c for c in compared if c in answer_columns], rel_tol)
    return report(not problems, name, _with_hint("; ".join(problems), hint))


def _with_hint(why: str, hint: str | None) -> str:
    return why if not hint else f"{why}; {hint}"


def _reference_columns(expected: Sequence[Mapping[str, Any]], keys: Key, columns: Sequence[str] | None) -> list[str]:
    seen: dict[str, None] = dict.fromkeys(keys)
    for index, row in enumerate(expected):
        if not isinstance(row, Mapping):
            raise ReferenceTableError(f"expected row {index} is {_kind(row)}, not a dict")
        absent = [c for c in keys if c not in row]
        if absent:
            raise ReferenceTableError(f"expected row {index} has no key column {absent[0]!r}")
        seen.update(dict.fromkeys(row))
    unknown = [c for c in columns or () if c not in seen and expected]
    if unknown:
        raise ReferenceTableError(f"columns names {unknown[0]!r}, which the expected rows do not have")
    return list(seen) if expected else [*keys, *(columns or ())]


def _index_reference(expected: Sequence[Mapping[str, Any]], keys: Key) -> dict[Key, Mapping[str, Any]]:
    reference: dict[Key, Mapping[str, Any]] = {}
    for row in expected:
        row_key = tuple(_plain(row[c]) for c in keys)
        if row_key in reference:
            raise ReferenceTableError(f"expected rows repeat the key {_show_key(keys, row_key)}")
        reference[row_key] = row
    return reference


def _read_answer(answer: Any, keys: Key) -> tuple[list[str], list[dict[str, Any]]]:
    """The answer's column names and rows as plain dicts, whatever kind of table it is."""
    if _is_spark_dataframe(answer):
        names = list(answer.columns)
        return names, [_row_dict(row, index) for index, row in enumerate(answer.collect())]
    if _is_pandas_dataframe(answer):
        if any(n in keys for n in answer.index.names if n is not None) and not all(c in answer.columns for c in keys):
            answer = answer.reset_index()
        names = [str(c) for c in answer.columns]
        return names, [dict(zip(names, values, strict=True)) for values in answer.itertuples(index=False, name=None)]
    if isinstance(answer, (str, bytes, Mapping)) or not isinstance(answer, Iterable):
        raise _Unreadable(
            f"expected a table (a Spark or pandas DataFrame, or a list of rows), got {_kind(answer)} ({answer!r:.60})"
        )
    rows = [_row_dict(row, index) for index, row in enumerate(answer)]
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    return list(names), rows


def _is_spark_dataframe(value: object) -> bool:
    module = type(value).__module__
    return module.startswith("pyspark.sql") and hasattr(value, "collect") and hasattr(value, "columns")


def _is_pandas_dataframe(value: object) -> bool:
    return hasattr(value, "itertuples") and hasattr(value, "columns") and hasattr(value, "index")


def _row_dict(row: object, index: int) -> dict[str, Any]:
    if hasattr(row, "asDict"):  # a Spark Row (a tuple subclass that knows its field names)
        return dict(row.asDict(recursive=True))  # type: ignore[attr-defined]
    if isinstance(row, Mapping):
        return dict(row)
    raise _Unreadable(f"row {index} is {_kind(row)} ({row!r:.60}); give each row as a dict or a Spark Row")


def _column_problems(
    present: list[str], keys: Key, compared: list[str], reference_columns: list[str], *, whole_table: bool
) -> list[str]:
    problems = []
    repeated = sorted(n for n, count in Counter(present).items() if count > 1)
    if repeated:
        problems.append(f"{_noun(len(repeated), 'column')} named twice: {_names(repeated)}")
    missing = [c for c in (*keys, *compared) if c not in present]
    if missing:
        problems.append(f"missing {_noun(len(missing), 'column')} {_names(missing)}")
    extra = [c for c in dict.fromkeys(present) if c not in reference_columns] if whole_table else []
    if extra:
        problems.append(f"unexpected {_noun(len(extra), 'column')} {_names(extra)}")
    return problems


def _row_problems(
    rows: list[dict[str, Any]], reference: dict[Key, Mapping[str, Any]], keys: Key, compared: list[str], rel_tol: float
) -> list[str]:
    problems = []
    by_key: dict[Key, dict[str, Any]] = {}
    counts: Counter[Key] = Counter()
    for row in rows:
        row_key = tuple(_plain(row.get(c)) for c in keys)
        counts[row_key] += 1
        by_key.setdefault(row_key, row)
    repeated = _sorted_keys(k for k, count in counts.items() if count > 1)
    if repeated:
        first = repeated[0]
        problems.append(
            f"{_plural(len(repeated), 'key')} on more than one row (first: {_show_key(keys, first)}, "
            f"{counts[first]} rows)"
        )
    missing = _sorted_keys(k for k in reference if k not in by_key)
    if missing:
        what = f"{len(missing)} of {len(reference)} expected rows missing"
        problems.append(f"{what} (first: {_show_key(keys, missing[0])})")
    unexpected = _sorted_keys(k for k in by_key if k not in reference)
    if unexpected:
        problems.append(f"{_plural(len(unexpected), 'unexpected row')} (first: {_show_key(keys, unexpected[0])})")
    wrong = [
        (row_key, column, by_key[row_key].get(column), reference[row_key].get(column))
        for row_key in _sorted_keys(k for k in reference if k in by_key)
        for column in compared
        if not _same_value(by_key[row_key].get(column), reference[row_key].get(column), rel_tol)
    ]
    if wrong:
        row_key, column, value, right = wrong[0]
        mismatch = type_mismatch(_plain(value), _plain(right)) if value is not None and right is not None else None
        shown = f"got {_plain(value)!r:.60}" if mismatch is None or _numeric_pair(value, right) else mismatch
        problems.append(
            f"{_plural(len(wrong), 'wrong value')} (first: {column!r} at {_show_key(keys, row_key)}: {shown})"
        )
    return problems


def _numeric_pair(a: object, b: object) -> bool:
    def number(v: object) -> bool:
        return isinstance(v, numbers.Real) and not isinstance(v, bool)

    return number(_plain(a)) and number(_plain(b))


def _same_value(answer: object, expected: object, rel_tol: float) -> bool:
    answer, expected = _plain(answer), _plain(expected)
    if answer is None or expected is None:
        return answer is None and expected is None
    if _numeric_pair(answer, expected):
        if isinstance(answer, float) or isinstance(expected, float):
            return math.isclose(answer, expected, rel_tol=rel_tol, abs_tol=FLOAT_ABS_TOL)  # type: ignore[arg-type]
        return answer == expected
    if isinstance(expected, (set, frozenset)) and isinstance(answer, (list, tuple, set, frozenset)):
        return len(set(answer)) == len(answer) and set(answer) == set(expected)
    if isinstance(expected, (list, tuple)) and isinstance(answer, (list, tuple)):
        return len(answer) == len(expected) and all(
            _same_value(a, e, rel_tol) for a, e in zip(answer, expected, strict=True)
        )
    if isinstance(expected, Mapping) and isinstance(answer, Mapping):
        return set(answer) == set(expected) and all(_same_value(answer[k], expected[k], rel_tol) for k in expected)
    return same(answer, expected)


def _plain(value: object) -> Any:
    """A numpy scalar or array as the Python value it holds; NaN as None (how pandas shows a null)."""
    if hasattr(value, "tolist") and not isinstance(value, (list, tuple, Set)):
        value = value.tolist()  # type: ignore[union-attr]
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _sorted_keys(keys: Iterable[Key]) -> list[Key]:
    """Keys in a deterministic order even when they mix None, ints and strings."""

    def order(row_key: Key) -> tuple[Any, ...]:
        return tuple(
            (v is None, type(v).__name__ if not isinstance(v, numbers.Real) else "", 0 if v is None else v)
            for v in row_key
        )

    items = list(keys)
    try:
        return sorted(items, key=order)
    except TypeError:
        return sorted(items, key=repr)


def _show_key(keys: Key, row_key: Key) -> str:
    return ", ".join(f"{c}={v!r}" for c, v in zip(keys, row_key, strict=True))


def _names(columns: Iterable[str]) -> str:
    return ", ".join(repr(c) for c in columns)


def _plural(count: int, noun: str) -> str:
    return f"{count} {_noun(count, noun)}"


def _noun(count: int, noun: str) -> str:
    return noun if count == 1 else f"{noun}s"

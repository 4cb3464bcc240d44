"""Plain-text tables for notebook output: columns padded to their widest cell, numbers on the right.

Java: none (teaching helper).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence

_MISSING = object()  # a short row's missing cells print as nothing, a None as "-"


def _cell(value: object) -> str:
    return "" if value is _MISSING else "-" if value is None else str(value)


def format_table(
    rows: Iterable[Sequence[object]],
    headers: Sequence[str] | None = None,
    *,
    align: str | None = None,
    gap: int = 2,
) -> str:
    """The rows as aligned text, one line per row, a header line first when ``headers`` is given.

    Args:
        rows: the cells, row by row (``None`` prints as ``-``; a short row leaves its last cells empty).
        headers: the column titles.
        align: one letter per column, ``l`` or ``r`` (default: ``r`` for columns of numbers, ``l`` otherwise).
        gap: spaces between columns.
    """
    rows = [list(row) for row in rows]
    width = max([len(row) for row in rows] + [len(headers or [])] or [0])
    if align is not None and (len(align) != width or set(align) - {"l", "r"}):
        raise ValueError(f"align needs one of 'l'/'r' per column ({width}), got {align!r}")
    columns = [[row[i] if i < len(row) else _MISSING for row in rows] for i in range(width)]
    if align is None:
        align = "".join(
            "r" if column and all(isinstance(v, numbers.Number) or v is None or v is _MISSING for v in column) else "l"
            for column in columns
        )
    texts = [[_cell(value) for value in column] for column in columns]
    titles = list(headers or [])
    widths = [max([len(t) for t in texts[i]] + ([len(titles[i])] if i < len(titles) else [0])) for i in range(width)]

    def line(cells: Sequence[str]) -> str:
        padded = [cell.rjust(widths[i]) if align[i] == "r" else cell.ljust(widths[i]) for i, cell in enumerate(cells)]
        return (" " * gap).join(padded).rstrip()

    lines = [line([*titles, *[""] * (width - len(titles))])] if headers else []
    lines += [line([texts[i][r] for i in range(width)]) for r in range(len(rows))]
    return "\n".join(lines)


def print_table(
    rows: Iterable[Sequence[object]],
    headers: Sequence[str] | None = None,
    *,
    align: str | None = None,
    gap: int = 2,
) -> None:
    """Print ``format_table(...)``."""
    print(format_table(rows, headers, align=align, gap=gap))

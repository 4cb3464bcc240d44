"""One summary table for ``make bench``: every case of every benchmark, its figure, its ratio, its target, met or not.

Java: none (teaching helper). Each benchmark module prints its own detailed report and, when the environment
variable ``MQLAB_BENCH_SUMMARY`` names a file, appends one JSON line per headline case to it (``record``).
``python -m bench`` runs the modules one after the other with that variable set and ends with ``format_summary``
over the file: a module that crashed is a row of its own (``FAILED``), so a broken benchmark cannot hide behind the
others' figures.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

SUMMARY_ENV = "MQLAB_BENCH_SUMMARY"


@dataclass(frozen=True, slots=True)
class SummaryRow:
    """One headline case: ``figure`` in ``unit``, ``ratio`` against the in-run ``baseline``, and the verdict."""

    bench: str
    case: str
    figure: float | None
    unit: str
    ratio: float | None = None
    baseline: str = ""
    target: str = ""
    met: bool | None = None  # None: no target, or not judged at this size


def record(rows: list[SummaryRow]) -> None:
    """Append ``rows`` to the summary file named by ``MQLAB_BENCH_SUMMARY`` (nothing when it is unset)."""
    target = os.environ.get(SUMMARY_ENV)
    if not target:
        return
    with Path(target).open("a", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(asdict(row)) + "\n")


def load(path: Path) -> list[SummaryRow]:
    """The rows recorded in ``path`` (none when it does not exist)."""
    if not path.exists():
        return []
    return [SummaryRow(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _figure(row: SummaryRow) -> str:
    if row.figure is None:
        return ""
    return f"{row.figure:,.0f} {row.unit}" if abs(row.figure) >= 100 else f"{row.figure:,.2f} {row.unit}"


def verdict(met: bool | None) -> str:
    """``met``, ``NOT MET`` or ``-`` (no target, or not judged)."""
    return "-" if met is None else ("met" if met else "NOT MET")


def format_summary(rows: list[SummaryRow]) -> list[str]:
    """The rows as one fixed-width table, in the order they were recorded, and a count of targets met."""
    head = f"{'bench':<10} {'case':<50} {'figure':>18} {'ratio':>7} {'baseline':<24} {'target':<22} result"
    lines = [head, "-" * len(head)]
    for row in rows:
        ratio = f"{row.ratio:.2f}x" if row.ratio is not None else ""
        lines.append(
            f"{row.bench:<10} {row.case:<50} {_figure(row):>18} {ratio:>7} {row.baseline:<24} {row.target:<22} "
            f"{verdict(row.met)}"
        )
    judged = [row for row in rows if row.met is not None]
    met = sum(1 for row in judged if row.met)
    lines.append(f"targets met: {met} of {len(judged)} judged ({len(rows)} cases)")
    return lines

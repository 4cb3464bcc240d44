"""The Java → mqlab map: ``docs/reference/java-map.csv`` (``java_fqcn,python``), merged from parts and checked.

Each row names a RocketMQ 4.9.3 class by its Java binary name and the Python object that mirrors it::

    org.apache.rocketmq.store.CommitLog,mqlab.store.commit_log.CommitLog
    org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService,mqlab.store.reput_message_service.ReputMessageService
    org.apache.rocketmq.common.MixAll,mqlab.common.mix_all

Inner classes use ``$`` as in Java binary names (``Outer#Inner`` in a part is rewritten to ``Outer$Inner`` by
``merge``). The Python side is ``module.Class``, or just a module when the Java class only holds static members
(``MixAll`` → ``mqlab.common.mix_all``).

Contributors drop header-less parts in ``docs/reference/java-map.csv.parts/*.csv``; ``merge`` folds them into the
table (sorted by Java name, duplicates removed, conflicting mappings refused); ``check`` validates the table.

Command line: ``python -m tools.java_map merge`` and ``python -m tools.java_map check [--no-import]``.

Java: none (repository tooling).
"""

from __future__ import annotations

import argparse
import csv
import importlib
import inspect
import io
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

HEADER = ("java_fqcn", "python")
CSV_PATH = Path("docs/reference/java-map.csv")
PARTS_DIR = Path("docs/reference/java-map.csv.parts")

_JAVA_SEGMENT = r"[A-Z][A-Za-z0-9_]*"
FQCN_RE = re.compile(rf"^org\.apache\.rocketmq(?:\.[a-z][a-z0-9_]*)+\.{_JAVA_SEGMENT}(?:\${_JAVA_SEGMENT})*$")
PYTHON_RE = re.compile(r"^mqlab(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")
_HASH_INNER_RE = re.compile(rf"#(?={_JAVA_SEGMENT}(?:[#$]|$))")


@dataclass(frozen=True, slots=True, order=True)
class Row:
    """One mapping: a Java binary class name and the dotted path of its Python mirror."""

    java_fqcn: str
    python: str


@dataclass(frozen=True, slots=True)
class Located:
    """A row and where it was read (file and 1-based line), for messages."""

    row: Row
    source: str
    line: int

    def where(self) -> str:
        """``file:line``."""
        return f"{self.source}:{self.line}"


class MergeConflict(ValueError):
    """One Java class mapped to two different Python objects."""


def normalize(row: Row) -> Row:
    """Strip blanks and write inner classes with ``$`` (``Outer#Inner`` → ``Outer$Inner``)."""
    return Row(_HASH_INNER_RE.sub("$", row.java_fqcn.strip()), row.python.strip())


def read_rows(path: Path, *, header: bool) -> list[Located]:
    """The rows of one csv file; with ``header`` the first row must be ``java_fqcn,python`` and is skipped."""
    text = Path(path).read_text(encoding="utf-8")
    rows = []
    for number, fields in enumerate(csv.reader(io.StringIO(text)), start=1):
        if header and number == 1:
            if tuple(field.strip() for field in fields) != HEADER:
                raise ValueError(f"{path}:1: header must be {','.join(HEADER)!r}, found {','.join(fields)!r}")
            continue
        if not fields or all(not field.strip() for field in fields):
            continue
        if len(fields) != 2:
            raise ValueError(f"{path}:{number}: expected 2 fields (java_fqcn,python), found {len(fields)}: {fields}")
        rows.append(Located(Row(fields[0], fields[1]), str(path), number))
    return rows


def merged(rows: Iterable[Row]) -> list[Row]:
    """Normalized, deduplicated rows sorted by Java name; raises MergeConflict if one class maps two ways."""
    unique = sorted({normalize(row) for row in rows})
    targets: dict[str, list[str]] = {}
    for row in unique:
        targets.setdefault(row.java_fqcn, []).append(row.python)
    conflicts = {java: pythons for java, pythons in targets.items() if len(pythons) > 1}
    if conflicts:
        detail = "; ".join(f"{java} -> {' | '.join(pythons)}" for java, pythons in sorted(conflicts.items()))
        raise MergeConflict(f"conflicting mappings: {detail}")
    return unique


def to_csv(rows: Iterable[Row]) -> str:
    """The table's text: header, then one line per row, Unix line ends."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(HEADER)
    writer.writerows((row.java_fqcn, row.python) for row in rows)
    return buffer.getvalue()


def merge(csv_path: Path, parts_dir: Path) -> list[Row]:
    """Fold ``parts_dir/*.csv`` into ``csv_path`` (keeping its rows) and rewrite it in canonical form."""
    csv_path, parts_dir = Path(csv_path), Path(parts_dir)
    rows = [located.row for located in read_rows(csv_path, header=True)] if csv_path.exists() else []
    for part in sorted(parts_dir.glob("*.csv")) if parts_dir.is_dir() else []:
        rows.extend(located.row for located in read_rows(part, header=False))
    result = merged(rows)
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    csv_path.write_text(to_csv(result), encoding="utf-8")
    return result


def resolve(python: str) -> object:
    """Import the longest module prefix of ``python`` and return the object it names.

    Raises:
        LookupError: nothing importable, or a missing attribute (the message says which part).
    """
    parts = python.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            target: object = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            # Only "this very module does not exist" means try a shorter prefix; a failing import inside it is real.
            if error.name is not None and (module_name == error.name or module_name.startswith(error.name + ".")):
                continue
            raise
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                raise LookupError(f"{module_name} has no attribute {attribute!r} (resolving {python})")
            target = getattr(target, attribute)
        return target
    raise LookupError(f"no importable module in {python}")


def check_rows(rows: list[Located], *, import_python: bool = True) -> list[str]:
    """Problems with the table's rows (empty when it is sound)."""
    problems = []
    seen_rows: dict[Row, Located] = {}
    seen_java: dict[str, Located] = {}
    for located in rows:
        row, where = located.row, located.where()
        if row != normalize(row):
            problems.append(f"{where}: not in canonical form ({row.java_fqcn!r}); run `python -m tools.java_map merge`")
        elif not FQCN_RE.match(row.java_fqcn):
            problems.append(
                f"{where}: {row.java_fqcn!r} is not a Java binary class name below org.apache.rocketmq "
                "(inner classes as Outer$Inner)"
            )
        if not PYTHON_RE.match(row.python):
            problems.append(f"{where}: {row.python!r} is not a dotted path below mqlab")
        elif import_python:
            try:
                target = resolve(row.python)
            except LookupError as error:
                problems.append(f"{where}: {error}")
            else:
                if not (inspect.isclass(target) or inspect.ismodule(target)):
                    problems.append(f"{where}: {row.python} is a {type(target).__name__}, not a class or module")
        if row in seen_rows:
            problems.append(f"{where}: duplicate of the row at {seen_rows[row].where()}")
        elif row.java_fqcn in seen_java:
            problems.append(f"{where}: {row.java_fqcn} is already mapped at {seen_java[row.java_fqcn].where()}")
        seen_rows.setdefault(row, located)
        seen_java.setdefault(row.java_fqcn, located)
    ordered = [located.row for located in rows]
    if ordered != sorted(ordered):
        problems.append("rows are not sorted by Java name; run `python -m tools.java_map merge`")
    return problems


def check(csv_path: Path, *, import_python: bool = True) -> list[str]:
    """Problems with the table file (a missing file is one problem)."""
    csv_path = Path(csv_path)
    if not csv_path.exists():
        return [f"{csv_path}: missing"]
    try:
        rows = read_rows(csv_path, header=True)
    except ValueError as error:
        return [str(error)]
    return check_rows(rows, import_python=import_python)


def render_markdown(rows: list[Row], link_for: Callable[[str], str | None], *, csv_link: str) -> str:
    """The generated page: the table, the Python side linked to its API entry when ``link_for`` finds one."""
    lines = [
        "# Java → mqlab map",
        "",
        "Every RocketMQ 4.9.3 class mqlab mirrors, by Java binary name (inner classes as `Outer$Inner`), and the "
        "Python object that mirrors it. Grep a name in one tree, find its twin in the other. The table is "
        f"[java-map.csv]({csv_link}); `tests/docs/test_java_map.py` imports every Python side.",
        "",
    ]
    if not rows:
        lines.append("No rows yet.")
        return "\n".join([*lines, ""])
    lines += [f"**{len(rows)}** classes.", "", "| Java class | mqlab |", "| --- | --- |"]
    for row in rows:
        target = link_for(row.python)
        python = f"[`{row.python}`]({target})" if target else f"`{row.python}`"
        lines.append(f"| `{row.java_fqcn}` | {python} |")
    return "\n".join([*lines, ""])


def main(argv: list[str] | None = None) -> int:
    """Merge the parts into the Java map, or check it."""
    parser = argparse.ArgumentParser(prog="python -m tools.java_map", description=main.__doc__)
    parser.add_argument("command", choices=["merge", "check"])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1], help="repository root")
    parser.add_argument("--no-import", action="store_true", help="check: skip importing the Python side")
    args = parser.parse_args(argv)
    csv_path, parts_dir = args.root / CSV_PATH, args.root / PARTS_DIR
    if args.command == "merge":
        try:
            rows = merge(csv_path, parts_dir)
        except ValueError as error:  # MergeConflict included
            print(f"merge refused: {error}", file=sys.stderr)
            return 1
        print(f"{csv_path}: {len(rows)} rows")
        return 0
    if str(args.root) not in sys.path:
        sys.path.insert(0, str(args.root))
    problems = check(csv_path, import_python=not args.no_import)
    for problem in problems:
        print(problem)
    print(f"{csv_path}: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

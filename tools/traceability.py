"""Spec statement ids (``docs/spec``) matched against the tests that enforce them (``tests``).

A spec page states the contract; a statement that tests enforce starts with its id in bold::

    - **MSG-3** The record's TOTALSIZE counts itself.

(a table row whose first cell is the bold id counts too). A test claims statements with a marker::

    @pytest.mark.spec("MSG-3", "MSG-4")
    def test_total_size_counts_itself(): ...

Markers on a class apply to all its tests, ``pytestmark = pytest.mark.spec(...)`` (or a list holding it) applies
to the whole module or class. Tests are read statically with :mod:`ast`, so a marker must be written literally as
``pytest.mark.spec("ID", ...)`` (or ``mark.spec`` after ``from pytest import mark``) with string literals.

Used by the docs hook that generates ``reference/traceability.md`` and by ``tests/docs/test_traceability.py``.
Command line: ``python -m tools.traceability [--root DIR]`` prints the report and exits 1 on any gap.

Java: none (repository tooling).
"""

from __future__ import annotations

import argparse
import ast
import posixpath
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ID_PATTERN = r"[A-Z][A-Z0-9]*-\d+"
# The pattern spec pages use for an id anywhere in their text.
SPEC_ID_RE = re.compile(rf"\*\*({ID_PATTERN})\*\*")
_ID_ONLY_RE = re.compile(rf"^{ID_PATTERN}$")
# A definition: the bold id opens a list item or a paragraph line.
_DEFINITION_RE = re.compile(rf"^(?P<lead>\s*(?:(?:[-*+]|\d+[.)])\s+)?)\*\*(?P<id>{ID_PATTERN})\*\*(?P<rest>.*)$")
# A definition in a table: the bold id is the whole first cell.
_TABLE_DEFINITION_RE = re.compile(rf"^(?P<lead>\s*\|\s*)\*\*(?P<id>{ID_PATTERN})\*\*(?P<rest>\s*\|.*)$")
_FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})")
_BLOCK_START_RE = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#|\||>|`{3,}|~{3,})")
_INLINE_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_CODE_SPAN_RE = re.compile(r"(`+[^`]*`+)")
_INLINE_ATTRS_RE = re.compile(r"\{[:#.][^}]*\}")

TRACEABILITY_PAGE = "reference/traceability.md"


@dataclass(frozen=True, slots=True)
class SpecStatement:
    """One id defined on a spec page: where it is and what it says."""

    id: str
    page: str  # path below docs_dir, posix style: "spec/message.md"
    line: int  # 1-based line of the definition
    text: str  # the statement after the id, whitespace collapsed


@dataclass(frozen=True, slots=True)
class SpecReference:
    """One test claiming one spec id."""

    id: str
    test: str  # pytest node id: "tests/store/test_commit_log.py::TestAppend::test_total_size"
    path: str  # file below the root, posix style
    line: int


@dataclass(frozen=True, slots=True)
class Problem:
    """A marker the collector cannot read (not a literal, malformed id, file that does not parse)."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(slots=True)
class Traceability:
    """Spec statements, test references and the gaps between them."""

    statements: list[SpecStatement] = field(default_factory=list)
    references: list[SpecReference] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def by_id(self) -> dict[str, SpecStatement]:
        """Each id's statement (its first definition when an id is defined twice)."""
        found: dict[str, SpecStatement] = {}
        for statement in self.statements:
            found.setdefault(statement.id, statement)
        return found

    def duplicates(self) -> dict[str, list[SpecStatement]]:
        """Ids defined more than once, with every definition."""
        seen: dict[str, list[SpecStatement]] = {}
        for statement in self.statements:
            seen.setdefault(statement.id, []).append(statement)
        return {key: value for key, value in seen.items() if len(value) > 1}

    def tests_for(self, spec_id: str) -> list[str]:
        """Node ids of the tests that claim ``spec_id``, sorted, without repeats."""
        return sorted({reference.test for reference in self.references if reference.id == spec_id})

    def uncovered(self) -> list[SpecStatement]:
        """Statements no test claims."""
        claimed = {reference.id for reference in self.references}
        return [statement for statement in self.by_id().values() if statement.id not in claimed]

    def unknown_references(self) -> list[SpecReference]:
        """References to ids that no spec page defines."""
        known = self.by_id()
        return [reference for reference in self.references if reference.id not in known]

    def is_complete(self) -> bool:
        """Whether every id is covered, unique, and every reference and marker is sound."""
        return not (self.uncovered() or self.unknown_references() or self.duplicates() or self.problems)


# --- spec pages ----------------------------------------------------------------------------------------------------


def _unfenced_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based number, line) of the lines outside fenced code blocks."""
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        match = _FENCE_RE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                continue
            yield number, line
        elif match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
            fence = None


def _match_definition(line: str) -> re.Match[str] | None:
    return _DEFINITION_RE.match(line) or _TABLE_DEFINITION_RE.match(line)


def parse_statements(text: str, page: str) -> list[SpecStatement]:
    """The statements defined in one page's markdown ``text`` (``page`` names it in the results)."""
    lines = list(_unfenced_lines(text))
    statements = []
    for index, (number, line) in enumerate(lines):
        match = _match_definition(line)
        if match is None:
            continue
        rest = match.group("rest")
        if match.re is _TABLE_DEFINITION_RE:
            # The other cells of the row, joined: "| **ID** | statement | note |" -> "statement — note".
            cells = [cell.strip() for cell in rest.strip().strip("|").split("|")]
            parts = [" — ".join(cell for cell in cells if cell)]
        else:
            parts = [rest]
            # Continuation lines of the same paragraph or list item (up to a blank line or a new block).
            for next_number, next_line in lines[index + 1 :]:
                if next_number != number + len(parts) or not next_line.strip():
                    break
                if _BLOCK_START_RE.match(next_line) or _match_definition(next_line):
                    break
                parts.append(next_line)
        statements.append(SpecStatement(match.group("id"), page, number, " ".join(" ".join(parts).split())))
    return statements


def collect_spec_statements(spec_dir: Path, *, docs_dir: Path | None = None) -> list[SpecStatement]:
    """Every statement on the ``*.md`` pages below ``spec_dir``, in page then line order.

    Pages are named relative to ``docs_dir`` (default: the parent of ``spec_dir``), e.g. ``spec/message.md``.
    """
    spec_dir = Path(spec_dir)
    docs_dir = Path(docs_dir) if docs_dir is not None else spec_dir.parent
    statements: list[SpecStatement] = []
    if not spec_dir.is_dir():
        return statements
    for path in sorted(spec_dir.rglob("*.md")):
        page = path.relative_to(docs_dir).as_posix()
        statements.extend(parse_statements(path.read_text(encoding="utf-8"), page))
    return statements


def link_definitions(text: str, link_for: Callable[[str], str | None]) -> str:
    """Give each definition's bold id an anchor (``#ID``) and, when ``link_for(id)`` is not None, a link there.

    Used on spec pages at build time: ``**MSG-3**`` becomes ``[**MSG-3**](<link>){#MSG-3}`` on definition lines only
    (mentions elsewhere and code blocks are left alone), so the traceability table can point at the statement.
    """
    lines = text.splitlines(keepends=True)
    for number, line in _unfenced_lines(text):
        match = _match_definition(line.rstrip("\r\n"))
        if match is None:
            continue
        spec_id = match.group("id")
        target = link_for(spec_id)
        bold = f"**{spec_id}**"
        anchored = f"[{bold}]({target}){{#{spec_id}}}" if target else f"{bold}{{#{spec_id}}}"
        original = lines[number - 1]
        start = match.start("id") - 2
        lines[number - 1] = original[:start] + anchored + original[start + len(bold) :]
    return "".join(lines)


# --- tests ---------------------------------------------------------------------------------------------------------


def _is_spec_marker(func: ast.expr) -> bool:
    """``pytest.mark.spec`` or ``mark.spec`` (after ``from pytest import mark``)."""
    if not (isinstance(func, ast.Attribute) and func.attr == "spec"):
        return False
    owner = func.value
    if isinstance(owner, ast.Attribute):
        return owner.attr == "mark" and isinstance(owner.value, ast.Name) and owner.value.id == "pytest"
    return isinstance(owner, ast.Name) and owner.id == "mark"


class _TestScanner:
    """Walks one test module's syntax tree and records which tests claim which ids."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.references: list[SpecReference] = []
        self.problems: list[Problem] = []

    def ids_in(self, nodes: Iterable[ast.AST]) -> list[str]:
        """Ids of every spec marker call inside ``nodes`` (decorators, ``pytestmark`` values, ``pytest.param``)."""
        ids: list[str] = []
        for node in nodes:
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and _is_spec_marker(call.func):
                    ids.extend(self.marker_ids(call))
        return ids

    def marker_ids(self, call: ast.Call) -> list[str]:
        if not call.args or call.keywords:
            self.problems.append(Problem(self.path, call.lineno, "pytest.mark.spec takes only spec ids as arguments"))
        ids = []
        for arg in call.args:
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                self.problems.append(
                    Problem(
                        self.path, arg.lineno, f"pytest.mark.spec argument is not a string literal: {ast.unparse(arg)}"
                    )
                )
            elif not _ID_ONLY_RE.match(arg.value):
                self.problems.append(Problem(self.path, arg.lineno, f"malformed spec id {arg.value!r}"))
            else:
                ids.append(arg.value)
        return ids

    def pytestmark_ids(self, body: list[ast.stmt]) -> list[str]:
        """Ids from ``pytestmark = ...`` assignments directly in ``body``."""
        values = []
        for statement in body:
            if isinstance(statement, ast.Assign):
                targets = statement.targets
            elif isinstance(statement, ast.AnnAssign | ast.AugAssign) and statement.value is not None:
                targets = [statement.target]
            else:
                continue
            if any(isinstance(target, ast.Name) and target.id == "pytestmark" for target in targets):
                values.append(statement.value)
        return self.ids_in(values)

    def claim(self, test: str, ids: Iterable[str], line: int) -> None:
        for spec_id in dict.fromkeys(ids):
            self.references.append(SpecReference(spec_id, test, self.path, line))

    def scan_module(self, tree: ast.Module) -> None:
        module_ids = self.pytestmark_ids(tree.body)
        self.scan_body(tree.body, prefix=self.path, inherited=module_ids)
        # A test class made elsewhere (e.g. a hypothesis state machine's ``TestCase``) and marked by assignment:
        # ``TestStore = pytest.mark.spec("S-1")(StoreMachine.TestCase)`` or ``TestStore.pytestmark = [...]``.
        for statement in tree.body:
            if not isinstance(statement, ast.Assign):
                continue
            for target in statement.targets:
                name = None
                if isinstance(target, ast.Name) and target.id.startswith("Test"):
                    name = target.id
                elif (
                    isinstance(target, ast.Attribute)
                    and target.attr == "pytestmark"
                    and isinstance(target.value, ast.Name)
                ):
                    name = target.value.id
                if name is None:
                    continue
                ids = self.ids_in([statement.value])
                if ids:
                    self.claim(f"{self.path}::{name}", [*module_ids, *ids], statement.lineno)

    def scan_body(self, body: list[ast.stmt], *, prefix: str, inherited: list[str]) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                ids = [*inherited, *self.ids_in(node.decorator_list), *self.pytestmark_ids(node.body)]
                self.scan_body(node.body, prefix=f"{prefix}::{node.name}", inherited=ids)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                own = self.ids_in(node.decorator_list)
                if own and not node.name.startswith("test"):
                    self.problems.append(
                        Problem(self.path, node.lineno, f"spec marker on {node.name}, which pytest does not collect")
                    )
                if node.name.startswith("test"):
                    self.claim(f"{prefix}::{node.name}", [*inherited, *own], node.lineno)


def scan_test_source(source: str, path: str) -> tuple[list[SpecReference], list[Problem]]:
    """References and problems in one test module's ``source``; ``path`` prefixes the node ids."""
    scanner = _TestScanner(path)
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as error:
        return [], [Problem(path, error.lineno or 0, f"does not parse: {error.msg}")]
    scanner.scan_module(tree)
    return scanner.references, scanner.problems


def collect_test_references(tests_dir: Path, *, root: Path | None = None) -> tuple[list[SpecReference], list[Problem]]:
    """Every spec reference in ``tests_dir/**/*.py``, named relative to ``root`` (default: parent of ``tests_dir``)."""
    tests_dir = Path(tests_dir)
    root = Path(root) if root is not None else tests_dir.parent
    references: list[SpecReference] = []
    problems: list[Problem] = []
    if not tests_dir.is_dir():
        return references, problems
    for path in sorted(tests_dir.rglob("*.py")):
        found, trouble = scan_test_source(path.read_text(encoding="utf-8"), path.relative_to(root).as_posix())
        references.extend(found)
        problems.extend(trouble)
    return references, problems


def build(root: Path) -> Traceability:
    """Traceability of the repository at ``root`` (``docs/spec`` against ``tests``)."""
    root = Path(root)
    statements = collect_spec_statements(root / "docs" / "spec", docs_dir=root / "docs")
    references, problems = collect_test_references(root / "tests", root=root)
    return Traceability(statements, references, problems)


# --- the generated page --------------------------------------------------------------------------------------------


def _cell(text: str) -> str:
    """Statement text fit for a table cell: links reduced to their text, attribute lists dropped, pipes escaped.

    The links' targets are relative to the spec page, not to the traceability page.
    """
    text = _INLINE_LINK_RE.sub(r"\1", text)
    text = _INLINE_ATTRS_RE.sub("", text)
    # Escape pipes outside code spans only: inside backticks the table extension keeps them, and an escape would show.
    parts = _CODE_SPAN_RE.split(text)
    return "".join(part if index % 2 else part.replace("|", r"\|") for index, part in enumerate(parts)).strip()


def _link(from_page: str, page: str, anchor: str | None = None) -> str:
    target = posixpath.relpath(page, posixpath.dirname(from_page) or ".")
    return f"{target}#{anchor}" if anchor else target


def _tests_cell(tests: list[str]) -> str:
    """Tests grouped by file: the file once, then each test's name within it."""
    if not tests:
        return "**none**"
    by_file: dict[str, list[str]] = {}
    for test in tests:
        path, _, name = test.partition("::")
        by_file.setdefault(path, []).append(name)
    return "<br>".join(
        f"`{path}`<br>" + "<br>".join(f"&nbsp;&nbsp;`{name}`" for name in names) for path, names in by_file.items()
    )


def render_markdown(trace: Traceability, *, page: str = TRACEABILITY_PAGE) -> str:
    """The traceability page as markdown; links are relative to ``page`` (its path below docs_dir)."""
    by_id = trace.by_id()
    uncovered = trace.uncovered()
    unknown = trace.unknown_references()
    duplicates = trace.duplicates()
    covered = len(by_id) - len(uncovered)
    out = [
        "# Traceability",
        "",
        "Each statement a spec page marks with a bold id (**MSG-3**) is a promise the tests keep. A test claims "
        'statements with `@pytest.mark.spec("MSG-3", ...)`; this page is generated from the spec pages and the '
        "test sources at every build, and `tests/docs/test_traceability.py` fails when a statement has no test, a "
        "test names an unknown id, or an id is defined twice.",
        "",
        f"**{len(by_id)}** statements, **{covered}** covered by tests, **{len(uncovered)}** uncovered; "
        f"**{len(trace.references)}** test references, **{len(unknown)}** to unknown ids.",
        "",
        "## Statements",
        "",
    ]
    if by_id:
        # The wrapper's class lets docs/stylesheets/extra.css give the tests column room.
        out += [
            '<div class="mqlab-traceability" markdown>',
            "",
            "| Id | Page | Statement | Tests |",
            "| --- | --- | --- | --- |",
        ]
        for spec_id in sorted(by_id, key=_id_sort_key):
            statement = by_id[spec_id]
            id_cell = f"[**{spec_id}**]({_link(page, statement.page, spec_id)}){{#{spec_id}}}"
            page_name = statement.page.removeprefix("spec/").removesuffix(".md")
            page_cell = f"[{page_name}]({_link(page, statement.page)})"
            out.append(
                f"| {id_cell} | {page_cell} | {_cell(statement.text)} | {_tests_cell(trace.tests_for(spec_id))} |"
            )
        out += ["", "</div>"]
    else:
        out.append("No spec page defines an id yet.")
    out += ["", "## Uncovered statements", ""]
    if uncovered:
        out += [
            f"- [**{s.id}**](#{s.id}) ([{s.page}]({_link(page, s.page)}) line {s.line})"
            for s in sorted(uncovered, key=_key)
        ]
    else:
        out.append("None: every statement is claimed by at least one test.")
    out += ["", "## References to unknown ids", ""]
    if unknown:
        out += [f"- `{r.id}` in `{r.test}` (line {r.line})" for r in sorted(unknown, key=lambda r: (r.id, r.test))]
    else:
        out.append("None: every id the tests name is defined on a spec page.")
    if duplicates:
        out += ["", "## Ids defined more than once", ""]
        for spec_id in sorted(duplicates, key=_id_sort_key):
            places = ", ".join(f"{s.page} line {s.line}" for s in duplicates[spec_id])
            out.append(f"- **{spec_id}**: {places}")
    if trace.problems:
        out += ["", "## Markers that could not be read", ""]
        out += [f"- `{problem}`" for problem in trace.problems]
    out.append("")
    return "\n".join(out)


def _id_sort_key(spec_id: str) -> tuple[str, int]:
    prefix, _, number = spec_id.rpartition("-")
    return prefix, int(number)


def _key(statement: SpecStatement) -> tuple[str, int]:
    return _id_sort_key(statement.id)


# --- command line --------------------------------------------------------------------------------------------------


def report(trace: Traceability) -> list[str]:
    """One line per gap, for the command line and test failure messages."""
    lines = [f"uncovered: {s.id} ({s.page}:{s.line}) {s.text}" for s in trace.uncovered()]
    lines += [f"unknown id: {r.id} in {r.test} ({r.path}:{r.line})" for r in trace.unknown_references()]
    for spec_id, places in trace.duplicates().items():
        lines.append(f"duplicate id: {spec_id} at " + ", ".join(f"{s.page}:{s.line}" for s in places))
    lines += [f"unreadable marker: {problem}" for problem in trace.problems]
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print the traceability gaps of a repository; exit 1 if there are any."""
    parser = argparse.ArgumentParser(prog="python -m tools.traceability", description=main.__doc__)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1], help="repository root")
    parser.add_argument("--markdown", action="store_true", help="print the generated page instead")
    args = parser.parse_args(argv)
    trace = build(args.root)
    if args.markdown:
        print(render_markdown(trace))
        return 0
    gaps = report(trace)
    print(f"{len(trace.by_id())} spec ids, {len(trace.references)} test references, {len(gaps)} gaps")
    for line in gaps:
        print(line)
    return 1 if gaps else 0


if __name__ == "__main__":
    sys.exit(main())

"""Compute ``docs/reference/java-lines.csv``: where each mirrored Java class and each cited method starts.

Given a local git directory of RocketMQ's source, for every class of ``docs/reference/java-map.csv`` this finds its
file at tag ``rocketmq-all-4.9.3`` and the line of its declaration, and for every ``Class#member`` that mqlab's
docstrings cite, the line of the member's first declaration (the first overload; a constructor when the member is
the class's own name; a field or enum constant for an UPPER_CASE member). Classes that docstrings cite but the map
does not list are added when their name is unique in the source, and so are the classes whose whole file a docs
page or a notebook links to (the docs build gives those links the class's line). The table holds only (path, line)
pairs, nothing of the Java text, so the docs build and the tests read it without the source or the network::

    java,path,line
    org.apache.rocketmq.store.CommitLog,store/src/main/java/org/apache/rocketmq/store/CommitLog.java,56
    org.apache.rocketmq.store.CommitLog#recoverNormally,store/src/main/java/org/apache/rocketmq/store/CommitLog.java,209

The Java reader is deliberately small: comments and literals are blanked out, braces give each type's body, and a
member counts when its name is declared directly in that body (not in a nested or anonymous class). A member a
class inherits is looked up in its superclass (``extends``) when that class is in the same file or the table; one
that mqlab folds in from a nested handler class (``NettyRemotingClient#userEventTriggered``) in its nested types;
an enum's ``valueOf``/``values`` is the enum's own line.

Citations that do not resolve are printed; ``KNOWN_UNRESOLVED`` lists the ones that cannot (methods 4.9.3 does not
have under that name), and ``tests/docs/test_java_lines.py`` fails on any other.

Command line: ``python -m tools.java_lines --git-dir DIR [--tag rocketmq-all-4.9.3]``.

Java: none (repository tooling).
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script: make mqlab importable
    sys.path.insert(0, str(ROOT))

from mqlab.teaching import java_links  # noqa: E402
from mqlab.teaching.java_links import CitedObject  # noqa: E402
from tools import java_map  # noqa: E402

CSV_PATH = Path("docs/reference/java-lines.csv")
PACKAGE = "mqlab"
TAG = java_links.TAG

# Citations mqlab's docstrings make that name no member of 4.9.3's class (or of its superclasses in the table):
# python object -> the citation as written. Each entry is a docstring to correct; the test fails when one resolves
# (remove it) or when a citation not listed here does not.
KNOWN_UNRESOLVED: dict[str, str] = {
    # On purpose: the docstring says 4.9.3 has no such method and names the 5.x one.
    "mqlab.client.impl.factory.mq_client_instance.MQClientInstance.get_any_broker_addr_by_name": (
        "MQClientInstance#getBrokerAddrByName"
    ),
    # PermName in 4.9.3 has isReadable, isWriteable, isInherited; the priority bit has no test method.
    "mqlab.common.constant.perm_name.is_priority": "PermName#isPriority",
}

# Rows of java-map.csv whose Java name is not where 4.9.3 declares the class: mapped name -> the real one. The table
# still gets a line for the mapped name (from the real file); the test fails on any other misplaced row.
KNOWN_MISPLACED: dict[str, str] = {
    # 4.9.3 keeps this body class in the header package.
    "org.apache.rocketmq.common.protocol.body.GetConsumerListByGroupResponseBody": (
        "org.apache.rocketmq.common.protocol.header.GetConsumerListByGroupResponseBody"
    ),
}

# Methods every enum has without declaring them.
ENUM_IMPLICIT = frozenset({"valueOf", "values", "name", "ordinal"})
_TYPE_DECL_RE = re.compile(r"(?<![\w.@])(class|interface|enum|@interface)\s+([A-Za-z_]\w*)")
_EXTENDS_RE = re.compile(r"\bextends\s+([A-Za-z_][\w.]*)")
_IDENT_BEFORE_RE = re.compile(r"([\w>\]])\s*$")
_ANNOTATION_RE = re.compile(r"@\w+(?:\.\w+)*(?:\s*\([^()]*\))?")


# --- reading Java --------------------------------------------------------------------------------------------------


def blank_comments_and_literals(text: str) -> str:
    """``text`` with comments, string and char literals replaced by spaces (newlines kept, so lines still count)."""
    out = []
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        two = text[index : index + 2]
        if two == "//":
            end = text.find("\n", index)
            end = length if end < 0 else end
        elif two == "/*":
            end = text.find("*/", index + 2)
            end = length if end < 0 else end + 2
        elif char in "\"'":
            if text.startswith('"""', index):  # a text block (Java 15+); not in 4.9.3, but cheap to get right
                end = text.find('"""', index + 3)
                end = length if end < 0 else end + 3
            else:
                end = index + 1
                while end < length and text[end] != char and text[end] != "\n":
                    end += 2 if text[end] == "\\" else 1
                end = min(end + 1, length)
        else:
            out.append(char)
            index += 1
            continue
        out.append("".join(c if c == "\n" else " " for c in text[index:end]))
        index = end
    return "".join(out)


@dataclass(slots=True)
class JavaType:
    """A type declared in a file: its nested name (``CommitLog$GroupCommitService``) and where its body is."""

    name: str
    kind: str
    line: int
    body_start: int  # offset of "{"
    body_end: int = -1  # offset of the matching "}"
    superclass: str | None = None
    enum_constants_end: int = -1  # for an enum: offset of the ";" (or "}") that ends its constants


@dataclass(slots=True)
class JavaFile:
    """One source file, read: its blanked text and its types."""

    text: str
    types: dict[str, JavaType] = field(default_factory=dict)
    # offset -> the innermost type whose body directly holds that offset (None: a method body, an anonymous class)
    _owner: list[str | None] = field(default_factory=list)

    def line_of(self, offset: int) -> int:
        """1-based line of a character offset."""
        return self.text.count("\n", 0, offset) + 1


def parse_java(source: str) -> JavaFile:
    """Find every named type of a file and which type's body each character directly belongs to."""
    text = blank_comments_and_literals(source)
    parsed = JavaFile(text)
    owner: list[str | None] = [None] * len(text)
    stack: list[str | None] = []  # per open brace: the type whose body it opens, or None for any other block
    pending: list[tuple[str, str, int, str | None]] = []  # declarations waiting for their "{"
    declarations = {match.start(): match for match in _TYPE_DECL_RE.finditer(text)}
    index = 0
    while index < len(text):
        match = declarations.get(index)
        if match is not None:
            outer = next((name for name in reversed(stack) if name is not None), None)
            direct = stack[-1] if stack else None
            if not stack or direct is not None:  # a member type, not a local class inside a method
                name = f"{outer}${match.group(2)}" if outer else match.group(2)
                header_end = text.find("{", match.end())
                extends = _EXTENDS_RE.search(text, match.end(), header_end if header_end >= 0 else None)
                superclass = extends.group(1).split("<")[0] if extends and match.group(1) == "class" else None
                pending.append((name, match.group(1), parsed.line_of(match.start()), superclass))
        char = text[index]
        owner[index] = stack[-1] if stack else None
        if char == "{":
            if pending:
                name, kind, line, superclass = pending.pop()
                parsed.types[name] = JavaType(name, kind.lstrip("@"), line, index, superclass=superclass)
                stack.append(name)
            else:
                stack.append(None)
        elif char == "}" and stack:
            closed = stack.pop()
            if closed is not None:
                parsed.types[closed].body_end = index
        elif char == ";" and stack and stack[-1] is not None:
            declared = parsed.types[stack[-1]]
            if declared.kind == "enum" and declared.enum_constants_end < 0:
                declared.enum_constants_end = index
        index += 1
    for declared in parsed.types.values():
        if declared.kind == "enum" and declared.enum_constants_end < 0:
            declared.enum_constants_end = declared.body_end
    parsed._owner = owner
    return parsed


def _statement_start(text: str, owner: list[str | None], type_name: str, offset: int) -> int:
    """Offset just after the ";" of this body, or the brace (a sibling block's end, the body's start), before it."""
    index = offset - 1
    while index >= 0:
        if text[index] in "{}" or (text[index] == ";" and owner[index] == type_name):
            return index + 1
        index -= 1
    return 0


def member_offset(parsed: JavaFile, type_name: str, member: str) -> int | None:
    """Offset of the first declaration of ``member`` directly in ``type_name``'s body (None if not declared).

    A camelCase name is looked up as a method first (``DefaultMessageStore#shutdown`` is the method, not the flag
    of the same name), an UPPER_CASE one as a constant or enum constant first.
    """
    declared = parsed.types[type_name]
    text, owner = parsed.text, parsed._owner
    simple = type_name.rsplit("$", 1)[-1]
    methods: list[int] = []
    fields: list[int] = []
    for match in re.finditer(rf"(?<![\w$.]){re.escape(member)}(?![\w$])", text):
        start = match.start()
        if not (declared.body_start < start < declared.body_end) or owner[start] != type_name:
            continue
        after = text[match.end() : match.end() + 200].lstrip()
        statement = _ANNOTATION_RE.sub(" ", text[_statement_start(text, owner, type_name, start) : start])
        if declared.kind == "enum" and start < declared.enum_constants_end:
            if not statement.strip(" \t\n,") or statement.rstrip().endswith(","):
                fields.append(start)  # an enum constant
            continue
        if "=" in statement or "(" in statement:  # inside an initializer or an argument list
            continue
        before = _IDENT_BEFORE_RE.search(statement)
        last_word = statement.split()[-1:]
        if after.startswith("("):
            if member == simple and last_word != ["new"]:
                methods.append(start)  # a constructor
            elif before is not None and last_word[0] not in {"new", "return", "throw"}:
                methods.append(start)  # a method: a type (or a generic's ">", an array's "]") before its name
        elif after[:1] in ("=", ";", ",") and before is not None:
            fields.append(start)
    preferred = (fields, methods) if member.isupper() else (methods, fields)
    return next((found[0] for found in preferred if found), None)


# --- reading the repository ----------------------------------------------------------------------------------------


class GitSource:
    """Files of one tag of a local git directory (bare or not), read with ``git``."""

    def __init__(self, git_dir: Path, tag: str = TAG):
        self.git_dir = Path(git_dir)
        self.tag = tag
        self._cache: dict[str, JavaFile] = {}
        # A mapped name -> where 4.9.3 really declares that class (filled by ``compute`` for misplaced rows).
        self.aliases: dict[str, str] = {}
        listing = self._git("ls-tree", "-r", "--name-only", tag)
        self.paths = [line for line in listing.splitlines() if line.endswith(".java") and "/src/main/java/" in line]

    def _git(self, *args: str) -> str:
        return subprocess.run(
            ["git", f"--git-dir={self.git_dir}", *args], check=True, capture_output=True, text=True
        ).stdout

    def read(self, path: str) -> JavaFile:
        """The parsed file at the tag."""
        if path not in self._cache:
            self._cache[path] = parse_java(self._git("show", f"{self.tag}:{path}"))
        return self._cache[path]

    def path_of(self, fqcn: str) -> str | None:
        """The file declaring the top-level class of ``fqcn`` (its own file, else a sibling that declares it)."""
        top = fqcn.split("$")[0]
        suffix = "/src/main/java/" + top.replace(".", "/") + ".java"
        exact = sorted(path for path in self.paths if path.endswith(suffix))
        if exact:
            return exact[0]
        package_dir = suffix.rsplit("/", 1)[0] + "/"
        simple = top.rsplit(".", 1)[-1]
        for path in sorted(p for p in self.paths if package_dir in p and "/" not in p.split(package_dir, 1)[1]):
            if simple in self.read(path).types:
                return path
        return None

    def find_unique(self, name: str) -> str | None:
        """The binary name of the one class called ``name`` (``Simple`` or ``Outer$Inner``) in the source, if any."""
        outer = name.split("$")[0]
        matches = [path for path in self.paths if path.endswith(f"/{outer}.java")]
        if len(matches) != 1:
            return None
        path = matches[0]
        if name not in self.read(path).types:
            return None
        package = path.split("/src/main/java/", 1)[1].rsplit("/", 1)[0].replace("/", ".")
        return f"{package}.{name}"


# --- the table -----------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Result:
    """What a run computed: the rows, and what it could not resolve."""

    rows: dict[str, tuple[str, int]]
    missing_classes: list[str]
    misplaced: dict[str, str]  # mapped binary name -> the name 4.9.3 declares it under
    unresolved: dict[str, list[str]]  # python object -> citations as written


def locate(source: GitSource, fqcn: str) -> tuple[str, JavaFile, str] | None:
    """(path, parsed file, nested type name) of a class (a misplaced mapped class where it really is)."""
    fqcn = source.aliases.get(fqcn, fqcn)
    path = source.path_of(fqcn)
    if path is None:
        return None
    parsed = source.read(path)
    nested = fqcn.rsplit(".", 1)[-1]
    return (path, parsed, nested) if nested in parsed.types else None


def find_member(
    source: GitSource, fqcn: str, member: str, classes: Mapping[str, str], seen: frozenset[str] = frozenset()
) -> tuple[str, int] | None:
    """(path, line) of ``member`` declared in ``fqcn`` or, failing that, in its superclasses."""
    found = locate(source, fqcn)
    if found is None or fqcn in seen:
        return None
    path, parsed, nested = found
    offset = member_offset(parsed, nested, member)
    if offset is not None:
        return path, parsed.line_of(offset)
    declared = parsed.types[nested]
    if declared.kind == "enum" and member in ENUM_IMPLICIT:
        return path, declared.line  # the compiler writes these: the enum itself is the place to read
    hit = _find_in_superclass(source, fqcn, member, classes, seen, path, parsed, nested)
    if hit is not None:
        return hit
    # mqlab flattens handler classes into their owner (NettyRemotingClient#userEventTriggered is declared in
    # one of its inner handlers): the first nested type, in file order, that declares the member.
    for inner in sorted((t for t in parsed.types.values() if t.name.startswith(nested + "$")), key=lambda t: t.line):
        offset = member_offset(parsed, inner.name, member)
        if offset is not None:
            return path, parsed.line_of(offset)
    return None


def _find_in_superclass(
    source: GitSource,
    fqcn: str,
    member: str,
    classes: Mapping[str, str],
    seen: frozenset[str],
    path: str,
    parsed: JavaFile,
    nested: str,
) -> tuple[str, int] | None:
    parent = parsed.types[nested].superclass
    if parent is None:
        return None
    parent_simple = parent.rsplit(".", 1)[-1]
    outer = nested.split("$")[0]
    candidates = [f"{fqcn.rsplit('.', 1)[0]}.{outer}${parent_simple}"] if parent_simple != outer else []
    resolved = java_links.resolve_class(parent_simple, classes, fqcn)
    candidates += [resolved] if resolved else []
    same_package = f"{fqcn.rsplit('.', 1)[0]}.{parent_simple}"
    candidates.append(same_package)
    for candidate in candidates:
        if candidate.rsplit(".", 1)[-1] in source.read(path).types or source.path_of(candidate):
            hit = find_member(source, candidate, member, classes, seen | {fqcn})
            if hit is not None:
                return hit
    return None


def compute(source: GitSource, mapped: Iterable[str], cited: list[CitedObject], linked: Iterable[str] = ()) -> Result:
    """Lines of every mapped class, of the cited (or ``linked``) classes the map lacks, and of every cited member."""
    rows: dict[str, tuple[str, int]] = {}
    missing = []
    classes = {fqcn: fqcn for fqcn in mapped}
    misplaced: dict[str, str] = {}
    for fqcn in sorted(classes):
        found = locate(source, fqcn)
        if found is None:
            # The map may name the wrong package; a class whose name is unique in the source is still found.
            real = source.find_unique(fqcn.rsplit(".", 1)[-1])
            if real is None:
                missing.append(fqcn)
                continue
            source.aliases[fqcn] = misplaced[fqcn] = real
            found = locate(source, fqcn)
            assert found is not None
        path, parsed, nested = found
        rows[fqcn] = (path, parsed.types[nested].line)
    # Cited classes the map lacks (BrokerStartup#createBrokerController): added when unique in the source.
    for item in cited:
        named = [java_links.Citation(item.cited_class)] if item.cited_class and item.java_class is None else []
        for citation in [*named, *item.citations]:
            if not citation.java_class or java_links.resolve_citation(citation, classes, item.context):
                continue
            name = java_links.normalize_class(citation.java_class)
            if name.startswith(java_links.JAVA_PACKAGE):
                extra = name if source.path_of(name) else None
            elif "." in name or any(fqcn.endswith(("." + name, "$" + name)) for fqcn in classes):
                continue  # another package's class, or a name the map has (ambiguous here)
            else:
                extra = source.find_unique(name)
            found = locate(source, extra) if extra else None
            if found is not None:
                path, parsed, nested = found
                classes[extra] = extra
                rows[extra] = (path, parsed.types[nested].line)
    for fqcn in linked:
        found = locate(source, fqcn) if fqcn not in rows else None
        if found is not None:
            path, parsed, nested = found
            rows[fqcn] = (path, parsed.types[nested].line)
    unresolved: dict[str, list[str]] = {}
    for item in cited:
        for citation, key in zip(item.citations, item.keys(classes), strict=True):
            if key is None or key in rows:
                continue
            fqcn, member = key.split("#", 1)
            hit = find_member(source, fqcn, member, classes)
            if hit is None and member == fqcn.rsplit(".", 1)[-1].split("$")[-1]:
                hit = rows.get(fqcn)  # a constructor Java leaves implicit: the class line
            if hit is None:
                unresolved.setdefault(item.python, []).append(str(citation))
            else:
                rows[key] = hit
    return Result(dict(sorted(rows.items())), missing, misplaced, unresolved)


def to_csv(rows: Mapping[str, tuple[str, int]]) -> str:
    """The table's text, sorted by key, Unix line ends."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(java_links.JAVA_LINES_HEADER)
    writer.writerows((key, path, line) for key, (path, line) in sorted(rows.items()))
    return buffer.getvalue()


def mapped_classes(root: Path) -> list[str]:
    """The Java classes of ``java-map.csv``."""
    return [located.row.java_fqcn for located in java_map.read_rows(root / java_map.CSV_PATH, header=True)]


def python_to_java(root: Path) -> dict[str, str]:
    """``java-map.csv`` turned around."""
    return {
        located.row.python: located.row.java_fqcn
        for located in java_map.read_rows(root / java_map.CSV_PATH, header=True)
    }


_LINKED_FILE_RE = re.compile(
    rf"{re.escape(java_links.BLOB_URL)}[\w/.-]*?/src/main/java/(org/apache/rocketmq/[\w/]+)\.java"
)
LINKING_DIRS = ("docs", "notebooks", "spark")


def linked_classes(root: Path) -> list[str]:
    """Classes whose whole file the docs and notebooks link to at the tag (their links get the class's line)."""
    found: set[str] = set()
    for directory in LINKING_DIRS:
        for path in sorted((root / directory).rglob("*")) if (root / directory).is_dir() else []:
            if path.suffix in {".md", ".ipynb"} and path.is_file():
                text = path.read_text(encoding="utf-8")
                found.update(match.group(1).replace("/", ".") for match in _LINKED_FILE_RE.finditer(text))
    return sorted(found)


def citations(root: Path, known: Iterable[str]) -> list[CitedObject]:
    """Every object of the package with its citations, resolved against ``known`` classes."""
    return java_links.package_citations(root / PACKAGE, frozenset(known), python_to_java(root))


# --- using the table in the docs build -----------------------------------------------------------------------------

_MAP_ROW_RE = re.compile(r"^\| `(?P<java>org\.apache\.rocketmq\.[^`]+)` \|", re.M)
_BARE_JAVA_LINK_RE = re.compile(rf'href="(?P<url>{re.escape(java_links.BLOB_URL)}(?P<path>[^"#?]+\.java))"')


def link_java_classes(markdown: str, tables: java_links.JavaTables) -> str:
    """The Java → mqlab map page with each Java class linked to its declaration (classes without a line unchanged)."""

    def linked(match: re.Match[str]) -> str:
        url = tables.url(match.group("java"))
        return match.group(0) if url is None else f"| [`{match.group('java')}`]({url}) |"

    return _MAP_ROW_RE.sub(linked, markdown)


def file_lines(tables: java_links.JavaTables) -> dict[str, int]:
    """Source path → the line of the class the file is named after (for links to a whole file)."""
    lines: dict[str, int] = {}
    for key, (path, line) in tables.lines.items():
        if "#" not in key and "$" not in key and path.endswith("/" + key.rsplit(".", 1)[-1] + ".java"):
            lines[path] = line
    return lines


def anchor_java_links(page_html: str, lines: Mapping[str, int]) -> str:
    """Give links to a whole Java file at the tag the line of the class it is named after (``#L<line>``)."""

    def anchored(match: re.Match[str]) -> str:
        line = lines.get(match.group("path"))
        return match.group(0) if line is None else f'href="{match.group("url")}#L{line}"'

    return _BARE_JAVA_LINK_RE.sub(anchored, page_html)


def main(argv: list[str] | None = None) -> int:
    """Compute the Java line table from a local git directory of RocketMQ."""
    parser = argparse.ArgumentParser(prog="python -m tools.java_lines", description=main.__doc__)
    parser.add_argument("--git-dir", type=Path, required=True, help="a clone (or bare git dir) of apache/rocketmq")
    parser.add_argument("--tag", default=TAG)
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root")
    parser.add_argument("--out", type=Path, default=None, help=f"output (default: <root>/{CSV_PATH})")
    args = parser.parse_args(argv)
    source = GitSource(args.git_dir, args.tag)
    mapped = mapped_classes(args.root)
    result = compute(source, mapped, citations(args.root, mapped), linked_classes(args.root))
    out = args.out or args.root / CSV_PATH
    out.write_text(to_csv(result.rows), encoding="utf-8")
    for fqcn in result.missing_classes:
        print(f"no source for mapped class {fqcn}", file=sys.stderr)
    for mapped, real in sorted(result.misplaced.items()):
        known = " (known)" if KNOWN_MISPLACED.get(mapped) == real else ""
        print(f"java-map.csv names {mapped}, 4.9.3 declares {real}{known}", file=sys.stderr)
    for python, cited in sorted(result.unresolved.items()):
        known = " (known)" if python in KNOWN_UNRESOLVED else ""
        print(f"unresolved: {python}: {', '.join(cited)}{known}", file=sys.stderr)
    shown = out.relative_to(args.root) if out.is_relative_to(args.root) else out
    print(f"{shown}: {len(result.rows)} rows, {len(result.unresolved)} objects with unresolved citations")
    return 1 if result.missing_classes else 0


if __name__ == "__main__":
    sys.exit(main())

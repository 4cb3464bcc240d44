"""Links from mqlab's docstrings to RocketMQ 4.9.3's Java source, down to the line.

Java: none (teaching helper).

Every mirrored object names its Java twin in its docstring (see the house style): a module or class by its
binary name (``Java: org.apache.rocketmq.store.CommitLog (rocketmq-all-4.9.3)``, ``Java: SendMessageRequestHeader.``),
a function by ``Class#method`` (``Java: CommitLog#recoverNormally``; ``#method`` alone means the class at hand).
This module reads those citations, resolves each class against the classes RocketMQ has, and turns the result into
a GitHub link at tag ``rocketmq-all-4.9.3`` with a line anchor.

The lines come from ``docs/reference/java-lines.csv`` (``java,path,line``; ``java`` is ``FQCN`` or
``FQCN#member``), computed once from the source by ``tools/java_lines.py`` and committed, so nothing here needs the
network. The same parsing serves the live objects of a notebook (``java_url``) and, statically through
:mod:`ast`, the documentation build and the tool (``static_citations``).
"""

from __future__ import annotations

import ast
import csv
import functools
import inspect
import io
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

TAG = "rocketmq-all-4.9.3"
REPOSITORY = "https://github.com/apache/rocketmq"
BLOB_URL = f"{REPOSITORY}/blob/{TAG}/"
JAVA_PACKAGE = "org.apache.rocketmq."

# The tables live in the source checkout beside the package (docs/reference); an installed copy without them
# gives no links rather than wrong ones.
REFERENCE_DIR = Path(__file__).resolve().parents[2] / "docs" / "reference"
JAVA_LINES_CSV = REFERENCE_DIR / "java-lines.csv"
JAVA_MAP_CSV = REFERENCE_DIR / "java-map.csv"
JAVA_LINES_HEADER = ("java", "path", "line")

# A Java class as docstrings write it: an optional package, a capitalised name, nested names after "." or "$".
CLASS_PATTERN = r"(?:[a-z][a-z0-9_]*\.)*[A-Z]\w*(?:[.$][A-Z]\w*)*"
# "Class#member" or "#member": members are methods (camelCase) or constants (UPPER_CASE). The look-behind keeps
# "topic#key" and "ISSUE #3940" out: a citation starts a word.
_MEMBER_RE = re.compile(rf"(?<![\w.$#/])({CLASS_PATTERN})?#([a-z_]\w*|[A-Z][A-Z0-9_]*)(?![\w$])")
_CLASS_LEAD_RE = re.compile(rf"^[\s`]*({CLASS_PATTERN})(?![\w#$])")
_CITATION_RE = re.compile(rf"^\s*({CLASS_PATTERN})?(?:#(\w+))?\s*$")
_JAVA_PARAGRAPH_RE = re.compile(r"(?<!`)Java:(.*?)(?:\n[ \t]*\n|\Z)", re.S)  # ``Java: X`` in code is an example


@dataclass(frozen=True, slots=True)
class Citation:
    """One ``Class#member`` (or class) citation as written; ``java_class`` is "" for a relative ``#member``."""

    java_class: str
    member: str | None = None

    def __str__(self) -> str:
        return f"{self.java_class}#{self.member}" if self.member else self.java_class


# --- reading docstrings --------------------------------------------------------------------------------------------


def java_paragraphs(docstring: str | None) -> list[str]:
    """The text after each ``Java:`` up to the end of its paragraph, whitespace collapsed."""
    if not docstring:
        return []
    return [" ".join(match.group(1).split()) for match in _JAVA_PARAGRAPH_RE.finditer(docstring)]


def member_citations(docstring: str | None) -> list[Citation]:
    """Every ``Class#member`` in the docstring's ``Java:`` paragraphs, in order, without repeats.

    A bare ``#member`` belongs to the class cited last in the same paragraph (``CommitLog#recoverAbnormally (and
    #isMappedFileMatchedRecover)``), or to the object's own class when the paragraph names none (``java_class`` "").
    """
    found: list[Citation] = []
    for paragraph in java_paragraphs(docstring):
        last_class = ""
        for match in _MEMBER_RE.finditer(paragraph):
            java_class, member = match.group(1), match.group(2)
            if java_class:
                last_class = java_class
            citation = Citation(java_class or last_class, member)
            if citation not in found:
                found.append(citation)
    return found


def class_citation(docstring: str | None) -> str | None:
    """The class a docstring's first ``Java:`` paragraph opens with (``SendMessageRequestHeader``), if any."""
    for paragraph in java_paragraphs(docstring)[:1]:
        match = _CLASS_LEAD_RE.match(paragraph)
        if match:
            return match.group(1)
    return None


def parse_citation(text: str) -> Citation | None:
    """``"CommitLog#recoverNormally"``, ``"CommitLog"`` or ``"#load"`` as a Citation (None if it is not one)."""
    match = _CITATION_RE.match(text)
    if match is None or not (match.group(1) or match.group(2)):
        return None
    return Citation(match.group(1) or "", match.group(2))


# --- resolving class names -----------------------------------------------------------------------------------------


def normalize_class(name: str) -> str:
    """Write nested classes with ``$`` (``DefaultMessageStore.ReputMessageService`` → ``...$ReputMessageService``).

    Package parts stay dotted: ``org.apache.rocketmq.store.DefaultMessageStore.ReputMessageService`` becomes
    ``org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService``.
    """
    parts = name.replace("$", ".").split(".")
    first_class = next((index for index, part in enumerate(parts) if part[:1].isupper()), len(parts))
    package, classes = parts[:first_class], parts[first_class:]
    return ".".join([*package, "$".join(classes)]) if package else "$".join(classes)


def _package(fqcn: str) -> list[str]:
    return fqcn.split("$")[0].split(".")[:-1]


def resolve_class(name: str, known: Collection[str], context: str | None = None) -> str | None:
    """The binary name in ``known`` that ``name`` (simple, ``Outer$Inner``, ``Outer.Inner`` or full) means.

    Several classes may share a simple name (``PullRequest`` in the broker and in the client): the one nearest the
    ``context`` class wins (same outer class, then the longest common package). ``None`` when nothing matches or the
    tie cannot be broken.
    """
    name = normalize_class(name)
    if name.startswith(JAVA_PACKAGE):
        return name if name in known else None
    if "." in name:  # another package (java.lang.String): not RocketMQ's
        return None
    candidates = [fqcn for fqcn in known if fqcn.endswith("." + name) or fqcn.endswith("$" + name)]
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    if context is None:
        return None

    def nearness(fqcn: str) -> tuple[bool, int]:
        same_outer = fqcn.split("$")[0] == context.split("$")[0]
        common = 0
        for mine, theirs in zip(_package(fqcn), _package(context), strict=False):
            if mine != theirs:
                break
            common += 1
        return same_outer, common

    ranked = sorted(candidates, key=nearness, reverse=True)
    return ranked[0] if nearness(ranked[0]) != nearness(ranked[1]) else None


def resolve_citation(citation: Citation, known: Collection[str], context: str | None) -> str | None:
    """The table key a citation points at: ``FQCN`` or ``FQCN#member`` (None when its class is not known)."""
    if citation.java_class:
        fqcn = resolve_class(citation.java_class, known, context)
    else:
        fqcn = context if context in known else None
    if fqcn is None:
        return None
    return f"{fqcn}#{citation.member}" if citation.member else fqcn


# --- the tables ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)  # not slotted: ``classes`` is cached in the instance's __dict__
class JavaTables:
    """The Java line table and the Java → mqlab map, as lookups.

    Attributes:
        lines: ``FQCN`` or ``FQCN#member`` → (path in the repository, 1-based line) at the tag.
        python_to_java: dotted Python path (``mqlab.store.commit_log.CommitLog``) → the Java class it mirrors.
    """

    lines: Mapping[str, tuple[str, int]] = field(default_factory=dict)
    python_to_java: Mapping[str, str] = field(default_factory=dict)

    @functools.cached_property
    def classes(self) -> frozenset[str]:
        """Every Java class with a line (mapped classes and the others mqlab cites)."""
        return frozenset(key for key in self.lines if "#" not in key)

    def url(self, key: str | None) -> str | None:
        """``https://github.com/apache/rocketmq/blob/rocketmq-all-4.9.3/<path>#L<line>`` for a table key."""
        if key is None or key not in self.lines:
            return None
        path, line = self.lines[key]
        return f"{BLOB_URL}{path}#L{line}"


def read_java_lines(text: str) -> dict[str, tuple[str, int]]:
    """Parse the text of ``java-lines.csv``.

    Raises:
        ValueError: a wrong header or a malformed row (the message names the row).
    """
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    if header is None or tuple(header) != JAVA_LINES_HEADER:
        raise ValueError(f"java-lines.csv: header must be {','.join(JAVA_LINES_HEADER)!r}, found {header!r}")
    table: dict[str, tuple[str, int]] = {}
    for number, row in enumerate(rows, start=2):
        if not row:
            continue
        if len(row) != 3 or not row[2].isdigit():
            raise ValueError(f"java-lines.csv:{number}: expected java,path,line, found {row!r}")
        table[row[0]] = (row[1], int(row[2]))
    return table


def read_python_to_java(text: str) -> dict[str, str]:
    """``java-map.csv`` (``java_fqcn,python``) turned around: Python path → Java class."""
    rows = list(csv.reader(io.StringIO(text)))
    return {row[1].strip(): row[0].strip() for row in rows[1:] if len(row) == 2}


def load_tables(lines_csv: Path = JAVA_LINES_CSV, map_csv: Path = JAVA_MAP_CSV) -> JavaTables:
    """Read both tables (a missing file reads as empty)."""
    lines = read_java_lines(lines_csv.read_text(encoding="utf-8")) if lines_csv.is_file() else {}
    python_to_java = read_python_to_java(map_csv.read_text(encoding="utf-8")) if map_csv.is_file() else {}
    return JavaTables(lines, python_to_java)


@functools.cache
def default_tables() -> JavaTables:
    """The committed tables of this checkout (read once)."""
    return load_tables()


# --- live objects --------------------------------------------------------------------------------------------------


def unwrap(obj: object) -> object:
    """The function behind a property, staticmethod, classmethod, bound method or decorator."""
    if isinstance(obj, property):
        obj = obj.fget
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if inspect.ismethod(obj):
        obj = obj.__func__
    return inspect.unwrap(obj) if callable(obj) else obj


def _module_java(module: object, tables: JavaTables) -> str | None:
    name = getattr(module, "__name__", "")
    if name in tables.python_to_java:
        return tables.python_to_java[name]
    cited = class_citation(inspect.getdoc(module))
    return resolve_class(cited, tables.classes) if cited else None


def _class_java(cls: type, tables: JavaTables) -> str | None:
    dotted = f"{cls.__module__}.{cls.__qualname__}"
    if dotted in tables.python_to_java:
        return tables.python_to_java[dotted]
    module = inspect.getmodule(cls)
    context = _module_java(module, tables) if module is not None else None
    cited = class_citation(cls.__doc__)
    if cited:
        return resolve_class(cited, tables.classes, context)
    if context is not None and normalize_class(context).rsplit(".", 1)[-1].split("$")[-1] == cls.__name__:
        return context
    return None


def _owner_class(function: object) -> type | None:
    module = inspect.getmodule(function)
    owner: object = module
    for part in getattr(function, "__qualname__", "").split(".")[:-1]:
        if part == "<locals>":
            return None
        owner = getattr(owner, part, None)
    return owner if inspect.isclass(owner) else None


def java_key(target: object, tables: JavaTables | None = None) -> str | None:
    """The line-table key (``FQCN`` or ``FQCN#member``) of a module, class, function or citation string."""
    tables = tables if tables is not None else default_tables()
    if isinstance(target, str):
        if "Java:" in target:
            found = member_citations(target)
            citation = found[0] if found else parse_citation(class_citation(target) or "")
        else:
            citation = parse_citation(target)
        key = resolve_citation(citation, tables.classes, None) if citation else None
        return key if key in tables.lines else None
    target = unwrap(target)
    if inspect.ismodule(target):
        return _module_java(target, tables)
    if inspect.isclass(target):
        return _class_java(target, tables)
    if not callable(target):
        return None
    owner = _owner_class(target)
    module = inspect.getmodule(target)
    context = _class_java(owner, tables) if owner is not None else None
    if context is None and module is not None:
        context = _module_java(module, tables)
    for citation in member_citations(inspect.getdoc(target)):
        key = resolve_citation(citation, tables.classes, context)
        if key in tables.lines:
            return key
    return None


def java_url(target: object, *, tables: JavaTables | None = None) -> str | None:
    """The Java twin of ``target`` at tag ``rocketmq-all-4.9.3``, with a line anchor.

    ``target`` is a Python module, class, function or method of mqlab (its docstring's ``Java:`` line decides), or
    a citation string such as ``"CommitLog#recoverNormally"`` or ``"DefaultMessageStore$ReputMessageService"``.
    Returns ``https://github.com/apache/rocketmq/blob/rocketmq-all-4.9.3/<path>#L<line>``, or ``None`` when the
    object has no Java twin (a teaching helper) or the twin is not in the line table.
    """
    tables = tables if tables is not None else default_tables()
    return tables.url(java_key(target, tables))


# --- static reading (docs build, tools) ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CitedObject:
    """A module, class or function of a source file and the Java it cites.

    Attributes:
        python: dotted path (``mqlab.store.commit_log.CommitLog.recover_normally``).
        kind: ``"module"``, ``"class"`` or ``"function"``.
        line: where it is defined in the Python file (1 for a module).
        java_class: for a module or class, the Java class it mirrors (resolved), else None.
        cited_class: for a module or class, the class its docstring's Java line opens with, as written.
        context: the Java class a relative ``#member`` means (the enclosing class's or module's twin).
        citations: the ``Class#member`` citations of its docstring, relative ones with ``java_class`` "".
    """

    python: str
    kind: str
    line: int
    java_class: str | None
    context: str | None
    citations: tuple[Citation, ...]
    cited_class: str | None = None

    def keys(self, known: Collection[str]) -> list[str | None]:
        """Each citation resolved to a table key (None where its class is not in ``known``)."""
        return [resolve_citation(citation, known, self.context) for citation in self.citations]


def static_citations(
    module: str, source: str, known: Collection[str], python_to_java: Mapping[str, str]
) -> list[CitedObject]:
    """Every module, class and function of ``source`` (the module ``module``) with its Java citations.

    Read with :mod:`ast`, nothing imported. ``known`` are the Java classes citations may resolve to.
    """
    tree = ast.parse(source)
    module_doc = ast.get_docstring(tree)
    module_java = python_to_java.get(module)
    module_cited = class_citation(module_doc)
    if module_java is None and module_cited:
        module_java = resolve_class(module_cited, known)
    found = [
        CitedObject(module, "module", 1, module_java, module_java, tuple(member_citations(module_doc)), module_cited)
    ]

    def visit(body: Iterable[ast.stmt], prefix: str, context: str | None) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                dotted = f"{prefix}.{node.name}"
                doc = ast.get_docstring(node)
                java = python_to_java.get(dotted)
                cited = class_citation(doc)
                if java is None and cited:
                    java = resolve_class(cited, known, context)
                if java is None and module_java and module_java.replace("$", ".").rsplit(".", 1)[-1] == node.name:
                    java = module_java
                inner_context = java or context
                citations = tuple(member_citations(doc))
                found.append(CitedObject(dotted, "class", node.lineno, java, inner_context, citations, cited))
                visit(node.body, dotted, inner_context)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                dotted = f"{prefix}.{node.name}"
                doc = ast.get_docstring(node)
                found.append(CitedObject(dotted, "function", node.lineno, None, context, tuple(member_citations(doc))))

    visit(tree.body, module, module_java)
    return found


def module_name(path: Path, package_dir: Path) -> str:
    """``mqlab/store/commit_log.py`` → ``mqlab.store.commit_log`` (``__init__.py`` is its package)."""
    relative = Path(path).relative_to(Path(package_dir).parent).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


def package_citations(
    package_dir: Path, known: Collection[str], python_to_java: Mapping[str, str]
) -> list[CitedObject]:
    """``static_citations`` over every ``.py`` file below ``package_dir``, in path order."""
    found = []
    for path in sorted(Path(package_dir).rglob("*.py")):
        found += static_citations(
            module_name(path, package_dir), path.read_text(encoding="utf-8"), known, python_to_java
        )
    return found


def static_links(cited: Iterable[CitedObject], tables: JavaTables) -> dict[str, tuple[str, str]]:
    """Python path → (Java key, URL) for every object whose twin has a line.

    A class or module links to its own Java class, a function to its first citation that resolves.
    """
    links: dict[str, tuple[str, str]] = {}
    for item in cited:
        keys = [item.java_class] if item.kind != "function" else item.keys(tables.classes)
        for key in keys:
            url = tables.url(key)
            if key is not None and url is not None:
                links[item.python] = (key, url)
                break
    # Mapped objects the walk does not see as classes (``Version = Enum(...)``).
    for python, fqcn in tables.python_to_java.items():
        url = tables.url(fqcn)
        if url is not None:
            links.setdefault(python, (fqcn, url))
    return links

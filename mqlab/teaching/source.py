"""The source on screen: ``show(obj)`` prints the mqlab twin's code where a walkthrough reaches it.

Java: none (teaching helper).

The view names the object, gives the file and lines relative to the repository (``mqlab/store/commit_log.py:530``,
never a machine path) and links the Java twin at tag ``rocketmq-all-4.9.3``. In Jupyter it renders as highlighted
HTML (pygments, styles inline so it needs no stylesheet); elsewhere as plain text. Both are deterministic, so a
notebook that shows code passes a strict nbval run.
"""

from __future__ import annotations

import html
import inspect
import textwrap
from dataclasses import dataclass
from pathlib import Path

from mqlab.teaching.java_links import JavaTables, default_tables, java_key, unwrap

PACKAGE_DIR = Path(__file__).resolve().parents[1]


class SourceNotFoundError(LookupError):
    """``show`` was given something whose source cannot be read (a builtin, a value), or a part that is empty."""


@dataclass(frozen=True, slots=True)
class SourceView:
    """What ``show`` displays.

    Attributes:
        name: the dotted name (``mqlab.store.commit_log.CommitLog.recover_normally``).
        path: the file relative to the repository root (``mqlab/store/commit_log.py``), or the module's name when
            the object is not part of mqlab (a function defined in a notebook).
        first_line: the first line shown (1-based, in the file); 0 when there is no file.
        code: the lines shown, dedented.
        java: the Java twin as a table key (``org.apache.rocketmq.store.CommitLog#recoverNormally``) or None.
        java_url: its link, or None.
    """

    name: str
    path: str
    first_line: int
    code: str
    java: str | None
    java_url: str | None

    @property
    def last_line(self) -> int:
        """The last line shown."""
        return self.first_line + self.code.count("\n") - (1 if self.code.endswith("\n") else 0)

    @property
    def location(self) -> str:
        """``mqlab/store/commit_log.py:530-560`` (just the path when there are no file lines)."""
        if not self.first_line:
            return self.path
        span = str(self.first_line) if self.last_line == self.first_line else f"{self.first_line}-{self.last_line}"
        return f"{self.path}:{span}"

    @property
    def java_label(self) -> str | None:
        """``CommitLog#recoverNormally``: the Java key without its package."""
        return self.java.rsplit(".", 1)[-1] if self.java else None

    def _numbered(self) -> str:
        lines = self.code.rstrip("\n").split("\n")
        if not self.first_line:
            return "\n".join(lines)
        width = len(str(self.first_line + len(lines) - 1))
        return "\n".join(f"{self.first_line + i:>{width}}  {line}".rstrip() for i, line in enumerate(lines))

    def __str__(self) -> str:
        header = [f"{self.name}  ({self.location})"]
        header.append(f"Java: {self.java_label}  {self.java_url}" if self.java_url else "Java: no twin")
        return "\n".join([*header, "", self._numbered()])

    def __repr__(self) -> str:
        return str(self)

    def _repr_markdown_(self) -> str:
        java = f"[Java: `{self.java_label}`]({self.java_url})" if self.java_url else "Java: no twin"
        return f"**`{self.name}`** (`{self.location}`) · {java}\n\n```python\n{self.code.rstrip()}\n```\n"

    def _repr_html_(self) -> str:
        java = (
            f'<a href="{html.escape(self.java_url)}" target="_blank" rel="noopener">'
            f"Java: <code>{html.escape(self.java_label or '')}</code></a>"
            if self.java_url
            else "Java: no twin"
        )
        header = (
            f'<div class="mqlab-source-header"><strong><code>{html.escape(self.name)}</code></strong> '
            f"(<code>{html.escape(self.location)}</code>) · {java}</div>"
        )
        return f'<div class="mqlab-source">{header}{highlight_html(self.code, self.first_line)}</div>'


def highlight_html(code: str, first_line: int = 0) -> str:
    """Python code as HTML with inline styles and line numbers from ``first_line`` (none when it is 0)."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
    except ImportError:  # pragma: no cover - pygments comes with the docs tools; plain text still teaches
        return f"<pre>{html.escape(code)}</pre>"
    options = {"linenos": "inline", "linenostart": first_line} if first_line else {}
    return highlight(code, PythonLexer(), HtmlFormatter(noclasses=True, style="default", **options))


def _location(obj: object) -> tuple[str, bool]:
    """The path to print for ``obj``'s file, and whether it is a file of this repository."""
    try:
        source_file = inspect.getsourcefile(obj)  # type: ignore[arg-type]
    except TypeError:
        source_file = None
    if source_file:
        path = Path(source_file).resolve()
        if path.is_relative_to(PACKAGE_DIR):
            return path.relative_to(PACKAGE_DIR.parent).as_posix(), True
    module = inspect.getmodule(obj)
    return (module.__name__ if module is not None else "<unknown>"), False


def _select(lines: list[str], first: int, part: tuple[int, int] | None, start: str | None, end: str | None):
    """Cut a part of an object's lines; returns (lines, first file line).

    ``part`` is 1-based and inclusive, counted from the object's first line; ``start`` and ``end`` narrow it to
    the first line holding ``start`` and the next one holding ``end``.
    """
    begin, stop = 0, len(lines)
    if part is not None:
        low, high = part
        if not (1 <= low <= high):
            raise SourceNotFoundError(f"lines=(first, last) counts from 1 with first <= last, got {part}")
        begin, stop = low - 1, min(high, len(lines))
    if start is not None:
        begin = next((i for i in range(begin, stop) if start in lines[i]), -1)
        if begin < 0:
            raise SourceNotFoundError(f"no line holds {start!r}")
    if end is not None:
        found = next((i for i in range(begin, stop) if end in lines[i]), -1)
        if found < 0:
            raise SourceNotFoundError(f"no line after the start holds {end!r}")
        stop = found + 1
    if begin >= stop:
        raise SourceNotFoundError("the selected part is empty")
    return lines[begin:stop], first + begin


def show(
    obj: object,
    lines: tuple[int, int] | None = None,
    *,
    start: str | None = None,
    end: str | None = None,
    tables: JavaTables | None = None,
) -> SourceView:
    """The source of an mqlab module, class, function or method, with its Java twin's link.

    Jupyter displays the returned view when it ends a cell (``display(show(...))`` elsewhere).

    Args:
        obj: what to show (a bound method, property, staticmethod or decorated function shows the code behind it).
        lines: only these lines, 1-based and inclusive, counted from the object's first line (its ``def``).
        start: begin at the first line containing this text (within ``lines`` if given).
        end: stop at the first line from ``start`` on that contains this text.
        tables: the Java tables (default: the committed ones).

    Raises:
        SourceNotFoundError: no source for ``obj`` (a builtin, a value), or the selection is empty.
    """
    tables = tables if tables is not None else default_tables()
    target = unwrap(obj)
    try:
        source_lines, first = inspect.getsourcelines(target)  # type: ignore[arg-type]
    except (OSError, TypeError) as error:
        raise SourceNotFoundError(f"no source for {obj!r}: {error}") from None
    path, in_repository = _location(target)
    first = max(first, 1)
    if lines is not None or start is not None or end is not None:
        source_lines, first = _select(source_lines, first, lines, start, end)
    if isinstance(target, type) or inspect.ismodule(target):
        name = target.__name__ if inspect.ismodule(target) else f"{target.__module__}.{target.__qualname__}"
    else:
        name = f"{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', repr(target))}"
    key = java_key(target, tables)
    return SourceView(
        name=name,
        path=path,
        first_line=first if in_repository else 0,
        code=textwrap.dedent("".join(source_lines)),
        java=key,
        java_url=tables.url(key),
    )

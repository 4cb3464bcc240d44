"""Small rewrites of each page's rendered HTML: notebook diagrams, exercise and solution cells, long dotted names.

- **Mermaid on notebook pages.** mkdocs-jupyter copies a ```` ```mermaid ```` block into ``<pre class="mermaid">``
  with ``>`` and ``&`` escaped but inline HTML left as markup, so a label's ``<br/>`` becomes a real ``<br>``
  element. Material hands mermaid the block's ``textContent``, in which an element has no text: the break vanished
  and "putMessageLock taken<br/>STORETIMESTAMP" was drawn as "putMessageLock takenSTORETIMESTAMP". The block's text
  is therefore re-escaped as a whole, as Markdown pages already have it.
- **Exercises and solutions** (the teaching layer, ``docs/learn`` and ``mqlab.teaching.checks``). A code cell tagged
  ``solution`` (mkdocs-jupyter puts ``celltag_<tag>`` on the cell's ``<div>``) is folded into a closed
  ``<details class="mqlab-solution">``, so the stored ``✓`` line stays below a fold as in JupyterLab; a cell tagged
  ``exercise`` is wrapped in ``<div class="mqlab-exercise">``, which the stylesheet labels "Exercise".
- **Dotted names in tables.** A table cell's ``<code>mqlab.client.impl.consumer.pull_request</code>`` gets a
  ``<wbr>`` after each dot, so a narrow column breaks the name between its parts rather than inside one.

``tools/check_site.py`` checks all three in the built site.

Java: none (docs build tooling).
"""

from __future__ import annotations

import html
import re

NOTEBOOK_DIRS = ("notebooks", "spark")  # as docs/hooks/notebooks.py publishes them

SOLUTION_SUMMARY = "Checked solution"

_MERMAID_BLOCK = re.compile(r'(<pre class="mermaid">)(.*?)(</pre>)', re.DOTALL)
_DIV_TAG = re.compile(r"<(/?)div\b[^>]*>", re.IGNORECASE)
_CELL_START = re.compile(r'<div\b[^>]*\bclass="(?P<classes>[^"]*)"[^>]*>')
_TABLE_CELL = re.compile(r"(<td\b[^>]*>)(.*?)(</td>)", re.DOTALL)
_DOTTED_CODE = re.compile(r"<code>([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$#]*){2,})</code>")


def is_notebook_page(src_uri: str) -> bool:
    """Whether a page's source is one of the published notebooks (``notebooks/*.ipynb``, ``spark/*.ipynb``)."""
    folder, _, name = src_uri.partition("/")
    return folder in NOTEBOOK_DIRS and name.endswith(".ipynb") and "/" not in name


def escape_mermaid_sources(markup: str) -> str:
    """Make every ``<pre class="mermaid">`` hold its diagram source as text (markup inside it escaped).

    Blocks whose body is a ``<code>`` element (Markdown pages) are left alone: their text is escaped already.
    """

    def escape(match: re.Match[str]) -> str:
        body = match.group(2)
        if body.lstrip().startswith("<code"):
            return match.group(0)
        return match.group(1) + html.escape(html.unescape(body), quote=False) + match.group(3)

    return _MERMAID_BLOCK.sub(escape, markup)


class UnbalancedCellError(ValueError):
    """A tagged notebook cell's ``<div>`` has no matching end tag in the page."""


def _element_end(markup: str, start: int) -> int:
    """The index just past the ``</div>`` that closes the ``<div>`` opening at ``start``."""
    depth = 0
    for tag in _DIV_TAG.finditer(markup, start):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return tag.end()
    raise UnbalancedCellError(f"the <div> at character {start} ({markup[start : start + 80]!r}) is never closed")


def wrap_tagged_cells(markup: str, tag: str, before: str, after: str) -> tuple[str, int]:
    """Wrap each outermost notebook cell carrying ``celltag_<tag>`` in ``before`` ... ``after``; return the count.

    mkdocs-jupyter nests one cell ``<div>`` in another and tags both; only the outer one is wrapped.
    """
    pieces, position, count = [], 0, 0
    for match in _CELL_START.finditer(markup):
        if match.start() < position:
            continue  # inside a cell already wrapped
        classes = match.group("classes").split()
        if "jp-Cell" not in classes or f"celltag_{tag}" not in classes:
            continue
        end = _element_end(markup, match.start())
        pieces += [markup[position : match.start()], before, markup[match.start() : end], after]
        position, count = end, count + 1
    pieces.append(markup[position:])
    return "".join(pieces), count


def fold_solution_cells(markup: str) -> str:
    """Fold every ``solution`` cell into a closed ``<details class="mqlab-solution">``."""
    before = f'<details class="mqlab-solution"><summary>{SOLUTION_SUMMARY}</summary>'
    return wrap_tagged_cells(markup, "solution", before, "</details>")[0]


def mark_exercise_cells(markup: str) -> str:
    """Wrap every ``exercise`` cell in ``<div class="mqlab-exercise">`` (labelled "Exercise" by the stylesheet)."""
    return wrap_tagged_cells(markup, "exercise", '<div class="mqlab-exercise">', "</div>")[0]


def break_dotted_names(markup: str) -> str:
    """Let a table cell's dotted name (``a.b.c`` in ``<code>``, three parts or more) wrap after its dots only."""

    def cell(match: re.Match[str]) -> str:
        body = _DOTTED_CODE.sub(
            lambda code: "<code>" + code.group(1).replace(".", ".<wbr>") + "</code>", match.group(2)
        )
        return match.group(1) + body + match.group(3)

    return _TABLE_CELL.sub(cell, markup)


def on_page_content(html_content: str, page, config, files) -> str:
    """Apply the rewrites: all three on notebook pages, the table one everywhere."""
    if is_notebook_page(page.file.src_uri):
        html_content = mark_exercise_cells(fold_solution_cells(escape_mermaid_sources(html_content)))
    return break_dotted_names(html_content)

"""Look at a built site the way a reader's browser does: offline, with scripts run, diagrams drawn.

Serves the built ``site/`` directory on 127.0.0.1 (an ephemeral port), opens pages in headless Chromium with every
other host unresolvable (so anything fetched from a CDN fails, as it would offline) and checks the rendered DOM:

- every page with mermaid diagrams (the home page always): each diagram was drawn as an SVG and no diagram source is
  left as text;
- every notebook in ``notebooks/*.ipynb`` and ``spark/*.ipynb``: its page exists, renders its cells and carries the
  notebook's title, shows at least three passed exercise checks (``✓``) with their folded solutions, and draws every
  figure it stores (each ``<img>`` decoded by the browser);
- every diagram's labels: each label of the diagram's source (flowchart nodes, edges and subgraphs; sequence
  messages, notes and participants) is drawn with the same text and the same line breaks (``<br/>``). On a notebook
  page the sources are read from the notebook itself, so a page that lost a break in the build is caught;
- every notebook page's exercises: no ``exercise`` cell shows a passed check (``✓``), every ``solution`` cell sits in
  a closed ``<details>``, and no other cell prints a passed check line (``✓ <name>: correct``);
- Chinese text is drawn with glyphs, not the empty boxes of a missing font: on every checked page with CJK text, two
  different characters of it, drawn on a canvas in the font of the element holding them, must differ (a missing
  font's boxes are all the same); and ``fc-list :lang=zh`` must list a font before the check starts;
- the learning pages (``learn/``) are opened in a 1,400 px wide window, and none of their tables is wider than the
  column that holds it;
- no page asks the server for a file the site does not have;
- every link to Java source (a ``.java`` file of github.com/apache/rocketmq) points at tag ``rocketmq-all-4.9.3``
  with a line anchor (``#L<n>``), so a reader lands on the class or method, not on a file of another version;
- every API page that documents code shows it (mkdocstrings' source blocks), and one of them is opened in the
  browser to see the blocks and the Java links rendered.

Material draws each diagram inside a closed shadow root, which ``--dump-dom`` does not serialize. The check server
therefore adds a small probe script to the HTML it serves (never to the site's files): it keeps a reference to each
shadow root Material attaches and writes the number of ``<svg>`` elements inside it to the host's
``data-check-svg`` attribute, where the dumped DOM shows it.

Screenshots of the checked pages go to ``site-check/`` for a human to look at.

The probe also writes each drawn diagram's label texts (``data-check-labels``, a JSON list; a ``<br>`` in a label
as a line break), whether CJK text was drawn with glyphs (``data-check-cjk`` on ``<html>``), and how far each table
sticks out of its column (``data-check-overflow``).

Usage: ``python tools/check_site.py site [--notebooks notebooks spark] [--out site-check]``; exit status 0 when every
check passes, 1 when one fails (each failure printed), 2 when the site, Chromium or a CJK font is missing.

Java: none (repository tooling).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import html.parser
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import urllib.parse
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    # Every host but the check server fails to resolve: the page must work offline.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--virtual-time-budget=10000",
]
# The width readers reported the glossary's tables overflowing at; pages are laid out and photographed at it.
WINDOW_SIZE = "1400,1600"
BROWSER_TIMEOUT_S = 120

JAVA_SOURCE_PREFIX = "https://github.com/apache/rocketmq/blob/rocketmq-all-4.9.3/"
# A link to RocketMQ's Java source, at any version: the check wants each at the tag, with a line anchor.
JAVA_LINK_RE = re.compile(r"^https?://github\.com/apache/rocketmq/[^#?]*\.java(?:[?#].*)?$")
LINE_ANCHOR_RE = re.compile(r"#L\d+(?:-L\d+)?$")
API_DIR = "api"
LEARN_DIR = "learn"  # the learning pages: opened in the browser for their tables and their Chinese text

PROBE_SCRIPT = r"""<script>/* site check probe: not part of the site */
(function () {
  var attach = Element.prototype.attachShadow, roots = [];
  Element.prototype.attachShadow = function (init) {
    var root = attach.call(this, init);
    roots.push([this, root]);
    return root;
  };
  function lines(el) {
    var copy = el.cloneNode(true);
    copy.querySelectorAll("br").forEach(function (br) { br.replaceWith("\n"); });
    var rows = copy.querySelectorAll("tspan.text-outer-tspan");
    if (rows.length) return Array.prototype.map.call(rows, function (row) { return row.textContent; }).join("\n");
    var spans = el.tagName.toLowerCase() === "text" ? copy.querySelectorAll("tspan") : [];
    if (spans.length > 1) return Array.prototype.map.call(spans, function (s) { return s.textContent; }).join("\n");
    return copy.textContent;
  }
  var LABELS = "span.nodeLabel, span.edgeLabel, g.label > text, text.messageText, text.noteText, text.actor";
  function labels(root) {
    return JSON.stringify(Array.prototype.map.call(root.querySelectorAll(LABELS), lines));
  }
  function ink(ch, family) {
    var canvas = document.createElement("canvas"), ctx;
    canvas.width = canvas.height = 64;
    ctx = canvas.getContext("2d");
    ctx.font = "48px " + family;
    ctx.textBaseline = "top";
    ctx.fillText(ch, 4, 4);
    return Array.prototype.join.call(ctx.getImageData(0, 0, 64, 64).data);
  }
  var CJK = /[\u3400-\u9fff]/g, cjkDone = false;
  function glyphs() {
    var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT), node, found;
    while ((node = walker.nextNode())) {
      var chars = Array.from(new Set(node.data.match(CJK) || []));
      if (chars.length >= 2 && node.parentElement.getClientRects().length) { found = [node, chars]; break; }
    }
    if (!found) return "none";
    var family = getComputedStyle(found[0].parentElement).fontFamily;
    var a = ink(found[1][0], family), b = ink(found[1][1], family), blank = ink(" ", family);
    var verdict = a === blank || b === blank ? "blank" : a === b ? "tofu" : "glyphs";
    return verdict + " " + found[1][0] + found[1][1] + " " + family;
  }
  function mark() {
    roots.forEach(function (pair) {
      pair[0].setAttribute("data-check-svg", String(pair[1].querySelectorAll("svg").length));
      pair[0].setAttribute("data-check-labels", labels(pair[1]));
    });
    document.querySelectorAll("img").forEach(function (img) {
      img.setAttribute("data-check-img", img.complete ? String(img.naturalWidth) : "0");
    });
    document.querySelectorAll("article table").forEach(function (table) {
      var box = table.closest(".md-typeset__scrollwrap") || table.parentElement;
      var width = Math.max(table.scrollWidth, table.getBoundingClientRect().width);
      table.setAttribute("data-check-overflow", String(Math.max(0, Math.round(width - box.clientWidth))));
    });
    if (!cjkDone && document.body && document.readyState === "complete") {
      document.documentElement.setAttribute("data-check-cjk", glyphs());
      cjkDone = true;
    }
  }
  setInterval(mark, 50);
})();
</script>"""

# Diagram types; a <pre>/<code> whose first line is one of these (plus a direction or a title) is diagram source
# left undrawn.
MERMAID_KEYWORDS = frozenset(
    {
        "graph",
        "flowchart",
        "sequenceDiagram",
        "classDiagram",
        "stateDiagram",
        "stateDiagram-v2",
        "erDiagram",
        "gantt",
        "pie",
        "journey",
        "gitGraph",
        "mindmap",
        "timeline",
        "packet-beta",
        "block-beta",
        "sankey-beta",
        "xychart-beta",
        "quadrantChart",
        "requirementDiagram",
        "C4Context",
        "architecture-beta",
        "kanban",
    }
)
_IGNORED_MISSING = {"/favicon.ico"}


# --- reading HTML --------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class DomReport:
    """What the checks need from one page's HTML (static file or rendered DOM)."""

    title: str = ""
    h1: list[str] = field(default_factory=list)
    mermaid_sources: int = 0  # <pre class="mermaid"> blocks (static: diagrams to draw; rendered: left undrawn)
    drawn_diagrams: int = 0  # <div class="mermaid"> hosts whose shadow root holds an <svg>
    undrawn_hosts: int = 0  # <div class="mermaid"> hosts without one (yet)
    raw_sources: list[str] = field(default_factory=list)  # <pre>/<code> text that is diagram source
    notebook_cells: int = 0  # jp-Cell elements (notebook pages)
    links: list[str] = field(default_factory=list)  # every <a href>, in page order
    documented_objects: int = 0  # mkdocstrings headings of classes, functions and methods
    source_blocks: int = 0  # mkdocstrings' "Source code in ..." blocks
    java_twin_links: int = 0  # the API pages' links to an object's Java twin
    images_drawn: int = 0  # <img> the browser decoded (rendered DOM: data-check-img > 0)
    images_broken: int = 0  # <img> it could not draw
    check_marks: int = 0  # "✓ " in the text: a mqlab.teaching.check that passed (notebook outputs)
    solutions: int = 0  # <details> whose <summary> says "Solution"
    mermaid_texts: list[str] = field(default_factory=list)  # text of each <pre class="mermaid">, in page order
    diagram_labels: list[list[str]] = field(default_factory=list)  # drawn diagrams' label texts (data-check-labels)
    cells: list[CellReport] = field(default_factory=list)  # notebook cells (outermost jp-Cell elements)
    cjk_characters: int = 0  # CJK ideographs in the page's text
    cjk_glyphs: str = ""  # the probe's verdict on them: "glyphs", "tofu", "blank", "none" (+ characters and font)
    table_overflows: list[int] = field(default_factory=list)  # px each table sticks out of its column (0: fits)


@dataclass(slots=True)
class CellReport:
    """One notebook cell of a page: its name, its tags, whether it is folded away, and the text of its outputs."""

    name: str  # the cell's id (``cell-id=<id>`` on the page), else ``#<n>``: its position among the page's cells
    tags: set[str] = field(default_factory=set)  # from mkdocs-jupyter's ``celltag_<tag>`` classes
    folded: bool = False  # inside a <details> that is closed (no ``open`` attribute)
    output: list[str] = field(default_factory=list)  # text inside its output areas


@dataclass(slots=True)
class _Open:
    """An element the parser is inside."""

    tag: str
    capture: bool = False  # its text is being collected (``_CAPTURED``)
    cell: bool = False  # it is the outermost element of a notebook cell
    output: bool = False  # it is a cell's output area
    closed_details: bool = False  # a <details> without ``open``


_CAPTURED = frozenset({"title", "h1", "pre", "code", "summary"})  # elements whose text the checks read
CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


class _DomParser(html.parser.HTMLParser):
    # Void elements never get an end tag; they must not be pushed on the open-element stack.
    VOID = frozenset(
        {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.report = DomReport()
        self._stack: list[_Open] = []
        self._capture: list[tuple[str, list[str], bool]] = []  # (tag, text parts, mermaid source?) being collected
        self._cell: CellReport | None = None  # the notebook cell the parser is inside
        self._outputs = 0  # open output areas

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "html" and attributes.get("data-check-cjk"):
            self.report.cjk_glyphs = attributes["data-check-cjk"] or ""
        if tag == "pre" and "mermaid" in classes:
            self.report.mermaid_sources += 1
        if tag == "div" and "mermaid" in classes:
            svg = attributes.get("data-check-svg")
            if svg is not None and svg.isdigit() and int(svg) > 0:
                self.report.drawn_diagrams += 1
                self.report.diagram_labels.append(_json_strings(attributes.get("data-check-labels")))
            else:
                self.report.undrawn_hosts += 1
        if tag == "table" and (attributes.get("data-check-overflow") or "").isdigit():
            self.report.table_overflows.append(int(attributes["data-check-overflow"] or 0))
        if tag == "div" and "jp-Cell" in classes:
            self.report.notebook_cells += 1
        if tag == "a" and attributes.get("href"):
            self.report.links.append(attributes["href"] or "")
        if tag == "span" and {"doc-class-name", "doc-function-name"} & set(classes):
            self.report.documented_objects += 1
        if tag == "details" and "mkdocstrings-source" in classes:
            self.report.source_blocks += 1
        if tag == "p" and "mqlab-java-twin" in classes:
            self.report.java_twin_links += 1
        if tag == "img" and "data-check-img" in attributes:
            drawn = attributes.get("data-check-img") or "0"
            if drawn.isdigit() and int(drawn) > 0:
                self.report.images_drawn += 1
            else:
                self.report.images_broken += 1
        if tag in self.VOID:
            return
        element = _Open(tag, capture=tag in _CAPTURED, closed_details=tag == "details" and "open" not in attributes)
        if "jp-Cell" in classes:
            self._enter_cell(element, classes, attributes.get("id") or "")
        if self._cell is not None and "jp-OutputArea-output" in classes:
            element.output = True
            self._outputs += 1
        self._stack.append(element)
        if element.capture:
            self._capture.append((tag, [], tag == "pre" and "mermaid" in classes))

    def _enter_cell(self, element: _Open, classes: list[str], cell_id: str) -> None:
        tags = {name.removeprefix("celltag_") for name in classes if name.startswith("celltag_")}
        cell_id = cell_id.removeprefix("cell-id=")
        if self._cell is None:
            folded = any(open_element.closed_details for open_element in self._stack)
            self._cell = CellReport(cell_id or f"#{len(self.report.cells) + 1}", tags, folded)
            self.report.cells.append(self._cell)
            element.cell = True
        else:  # mkdocs-jupyter nests a code cell's <div> in another; both describe one cell
            self._cell.tags |= tags
            if cell_id and self._cell.name.startswith("#"):
                self._cell.name = cell_id

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID or all(element.tag != tag for element in self._stack):
            return
        while self._stack:
            element = self._stack.pop()
            if element.capture and self._capture and self._capture[-1][0] == element.tag:
                self._finish(*self._capture.pop())
            if element.output:
                self._outputs -= 1
            if element.cell:
                self._cell = None
            if element.tag == tag:
                break

    def handle_data(self, data: str) -> None:
        self.report.check_marks += data.count("\u2713 ")
        self.report.cjk_characters += len(CJK_RE.findall(data))
        if self._cell is not None and self._outputs:
            self._cell.output.append(data)
        for _, parts, _ in self._capture:
            parts.append(data)

    def _finish(self, tag: str, parts: list[str], mermaid: bool) -> None:
        text = "".join(parts)
        if mermaid:
            self.report.mermaid_texts.append(text)
        if tag == "title" and not self.report.title:
            self.report.title = " ".join(text.split())
        elif tag == "h1":
            self.report.h1.append(" ".join(text.replace("¶", "").split()))
        elif tag == "summary":
            if "Solution" in text:
                self.report.solutions += 1
        elif tag in {"pre", "code"} and is_mermaid_source(text):
            excerpt = " ".join(text.split())[:60]
            if excerpt not in self.report.raw_sources:  # <pre><code> is one block, not two
                self.report.raw_sources.append(excerpt)


def _json_strings(value: str | None) -> list[str]:
    """A JSON list of strings written by the probe; anything else reads as no labels."""
    try:
        loaded = json.loads(value or "[]")
    except json.JSONDecodeError:
        return []
    return [item for item in loaded if isinstance(item, str)] if isinstance(loaded, list) else []


def is_mermaid_source(text: str) -> bool:
    """Whether ``text`` reads as a mermaid diagram's source (its first line names a diagram type)."""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("%%") or line == "---":
            continue
        words = line.split()
        return words[0] in MERMAID_KEYWORDS and len(words) <= 3 and not any(c in line for c in "=(;")
    return False


def analyse_html(markup: str) -> DomReport:
    """Read the facts the checks use from one page's HTML."""
    parser = _DomParser()
    parser.feed(markup)
    parser.close()
    return parser.report


def check_diagrams(static: DomReport, rendered: DomReport) -> list[str]:
    """Problems with a page's diagrams: ``static`` is the built file, ``rendered`` the DOM after scripts ran."""
    problems = []
    expected = static.mermaid_sources
    if rendered.drawn_diagrams < expected:
        problems.append(
            f"{expected} mermaid diagram(s) in the page, {rendered.drawn_diagrams} drawn as SVG "
            f'({rendered.mermaid_sources} still <pre class="mermaid">, {rendered.undrawn_hosts} empty containers)'
        )
    if rendered.mermaid_sources:
        problems.append(f'{rendered.mermaid_sources} <pre class="mermaid"> block(s) left undrawn')
    for text in rendered.raw_sources:
        problems.append(f"diagram source left as text: {text!r}")
    return problems


# --- diagram labels: the source's text against what mermaid drew ---------------------------------------------------

_LABEL_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)
_LABEL_TAG = re.compile(r"<[^>]*>")
_MERMAID_ENTITY = re.compile(r"#(\w+);")  # mermaid's escape for characters its syntax reserves: #quot;, #35;
_FENCE = re.compile(r"^(?:```|~~~)mermaid[ \t]*\n(.*?)^(?:```|~~~)[ \t]*$", re.MULTILINE | re.DOTALL)
_FLOW_SKIP = re.compile(r"^(?:%%|classDef\b|class\b|style\b|linkStyle\b|click\b|direction\b|end$)")
_SUBGRAPH = re.compile(r"^subgraph\s+(?:[\w-]+\s*\[\s*(?P<titled>.*?)\s*\]|(?P<bare>.+?))\s*$")
_PIPE_LABEL = re.compile(r'\|\s*(?:"(?P<quoted>[^"]*)"|(?P<plain>[^|]*?))\s*\|')
_INLINE_EDGE_LABEL = re.compile(
    r'(?:--|==|-\.)\s*(?:"(?P<quoted>[^"]*)"|(?P<plain>[^\s>=.\-"][^>"]*?))\s*(?:-->|---|==>|===|\.->|-\.-)'
)
_NODE = re.compile(
    r"(?<![\w\"])[A-Za-z0-9_][\w-]*?\s*"
    r"(?:\(\(\(|\(\[|\[\[|\[\(|\(\(|\{\{|\[/|\[\\|\[|\(|\{)"
    r'(?:"(?P<quoted>[^"]*)"|(?P<plain>[^"\[\](){}|]*?))'
    r"(?:\)\)\)|\]\)|\]\]|\)\]|\)\)|\}\}|/\]|\\\]|\]|\)|\})"
)
_PARTICIPANT = re.compile(r"^(?:participant|actor)\s+(?P<id>\S+?)(?:\s+as\s+(?P<alias>.+?))?\s*$")
_MESSAGE = re.compile(r"^[^\s:>+-][^:>]*?\s*(?:<<)?-{1,2}(?:>>|>|x|\))\s*[+-]?\s*[^:]+?\s*:(?P<text>.*)$")
_NOTE = re.compile(r"^note\s+(?:over|left of|right of)\s+[^:]+:(?P<text>.*)$", re.IGNORECASE)


def label_lines(text: str) -> tuple[str, ...]:
    """A label as mermaid draws it: entity codes decoded, one entry per line (``<br/>`` breaks), spaces collapsed."""

    def decode(match: re.Match[str]) -> str:
        code = match.group(1)
        return html.unescape(f"&#{code};" if code.isdigit() else f"&{code};")

    text = _MERMAID_ENTITY.sub(decode, text)
    lines = [" ".join(_LABEL_TAG.sub("", line).split()) for line in _LABEL_BREAK.split(text)]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return tuple(lines)


def _drawn_lines(text: str) -> tuple[str, ...]:
    lines = [" ".join(line.split()) for line in text.strip().split("\n")]
    return tuple(lines)


def mermaid_labels(source: str) -> list[tuple[str, ...]]:
    """The labels a diagram's source asks for, each as its lines.

    Flowcharts: node texts (``A["..."]``, ``B(...)``, ``C[("...")]`` and the other shapes), edge texts
    (``-->|...|``, ``-- "..." -->``) and subgraph titles. Sequence diagrams: participant aliases, message texts and
    notes. Other diagram types, and lines of these two that are not labels, ask for nothing.
    """
    lines = [line.strip() for line in source.splitlines()]
    lines = [line for line in lines if line and not line.startswith("%%") and line != "---"]
    if not lines:
        return []
    kind, body = lines[0].split()[0], lines[1:]
    labels: list[tuple[str, ...]] = []
    if kind in {"flowchart", "graph"}:
        for line in body:
            if _FLOW_SKIP.match(line):
                continue
            subgraph = _SUBGRAPH.match(line)
            if subgraph:
                title = subgraph.group("titled") if subgraph.group("titled") is not None else subgraph.group("bare")
                labels.append(label_lines(title.strip('"')))
                continue
            for pattern in (_PIPE_LABEL, _INLINE_EDGE_LABEL):
                for match in pattern.finditer(line):
                    labels.append(label_lines(match.group("quoted") or match.group("plain") or ""))
                line = pattern.sub(" --- ", line)
            for match in _NODE.finditer(line):
                labels.append(label_lines(match.group("quoted") or match.group("plain") or ""))
    elif kind == "sequenceDiagram":
        for line in body:
            participant = _PARTICIPANT.match(line)
            if participant:
                labels.append(label_lines(participant.group("alias") or participant.group("id")))
                continue
            found = _NOTE.match(line) or _MESSAGE.match(line)
            if found:
                labels.append(label_lines(found.group("text")))
    return [label for label in labels if label]


def _is_drawn(label: tuple[str, ...], drawn: list[tuple[str, ...]]) -> bool:
    """Whether ``label`` is one drawn label, or (sequence diagrams: one <text> per line) a run of one-line labels."""
    if label in drawn:
        return True
    size = len(label)
    return size > 1 and any(
        all(len(drawn[start + k]) == 1 and drawn[start + k][0] == label[k] for k in range(size))
        for start in range(len(drawn) - size + 1)
    )


def check_diagram_labels(sources: Sequence[str], drawn_labels: Sequence[Sequence[str]]) -> list[str]:
    """Problems with diagrams' labels: each label of each source must be drawn with its text and its line breaks.

    ``sources`` and ``drawn_labels`` are in page order, one entry per diagram.
    """
    if len(sources) != len(drawn_labels):
        return [f"{len(sources)} diagram source(s), {len(drawn_labels)} diagram(s) drawn with labels"]
    problems = []
    for number, (source, texts) in enumerate(zip(sources, drawn_labels, strict=True), start=1):
        drawn = [_drawn_lines(text) for text in texts]
        for label in mermaid_labels(source):
            if _is_drawn(label, drawn):
                continue
            wanted = "\n".join(label)
            squeezed = "".join(label)
            merged = next((lines for lines in drawn if "".join(lines) == squeezed), None)
            if merged is not None:
                shown = "\n".join(merged)
                problems.append(f"diagram {number}: label {wanted!r} drawn as {shown!r} (its line breaks lost)")
            else:
                problems.append(f"diagram {number}: label {wanted!r} not drawn")
    return problems


def notebook_diagram_sources(notebook: dict) -> list[str]:
    """The mermaid blocks of a notebook in page order: markdown cells' fences and code cells' markdown outputs."""
    sources = []
    for cell in notebook.get("cells", []):
        texts = [cell.get("source", "")] if cell.get("cell_type") == "markdown" else []
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            texts.append((output.get("data") or {}).get("text/markdown", ""))
        for text in texts:
            text = "".join(text) if isinstance(text, list) else text
            sources += [match.group(1) for match in _FENCE.finditer(text)]
    return sources


# --- notebook exercises, Chinese glyphs, tables -----------------------------------------------------------------

# A line mqlab.teaching.checks prints for a right answer: "✓ <name>: correct".
CHECK_PASSED_RE = re.compile(r"^[ \t]*\u2713 (?P<name>[^\n]+?): correct\b.*$", re.MULTILINE)


def check_exercise_cells(report: DomReport) -> list[str]:
    """Problems with a notebook page's exercises: an answer shown above its fold.

    An ``exercise`` cell must not show a passed check (``✓``); a ``solution`` cell must sit inside a closed
    ``<details>``; any other cell must not print a passed check line (``✓ <name>: correct``).
    """
    problems = []
    for cell in report.cells:
        text = "".join(cell.output)
        if "exercise" in cell.tags:
            if "\u2713" in text:
                line = next(line.strip() for line in text.splitlines() if "\u2713" in line)
                problems.append(f"exercise cell {cell.name} shows a passed check: {line!r}")
        elif "solution" in cell.tags:
            if not cell.folded:
                problems.append(f"solution cell {cell.name} is not folded in a closed <details>")
        else:
            problems += [
                f"cell {cell.name} prints a passed check outside a solution cell: {match.group(0).strip()!r}"
                for match in CHECK_PASSED_RE.finditer(text)
            ]
    return problems


def check_glyphs(report: DomReport) -> list[str]:
    """Problems with a page's Chinese text: drawn as a missing font's empty boxes (or not drawn at all)."""
    if not report.cjk_characters:
        return []
    verdict = report.cjk_glyphs.split(" ", 1)
    if verdict[0] == "glyphs":
        return []
    if not verdict[0]:
        return [f"{report.cjk_characters} CJK character(s) in the page, the probe did not report how they were drawn"]
    detail = verdict[1] if len(verdict) > 1 else ""
    return [f"CJK text drawn as {verdict[0]} (two characters and the font: {detail}); install a CJK font"]


def check_tables(report: DomReport) -> list[str]:
    """Problems with a page's layout: a table wider than the column holding it (cut off, or scrolled sideways)."""
    return [
        f"table {number} is {overflow} px wider than its column at a {WINDOW_SIZE.split(',')[0]} px window"
        for number, overflow in enumerate(report.table_overflows, start=1)
        if overflow > 1
    ]


def cjk_fonts() -> list[str]:
    """The font families fontconfig offers for Chinese (``fc-list :lang=zh``); empty when there is none."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return []
    listed = subprocess.run([fc_list, ":lang=zh", "family"], capture_output=True, text=True, check=False).stdout
    return sorted({line.strip() for line in listed.splitlines() if line.strip()})


def notebook_title(path: Path) -> str | None:
    """The first level-1 markdown heading of a notebook (the title mkdocs-jupyter gives its page), if any."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else source
        in_fence = False
        for line in text.splitlines():
            if line.lstrip().startswith(("```", "~~~")):
                in_fence = not in_fence
            elif not in_fence and line.startswith("# "):
                return line[2:].strip().rstrip("#").strip()
    return None


# Every flow notebook asks at least this many checked questions (the teaching layer: "ask before you show").
MIN_EXERCISES = 3


def notebook_figures(notebook: dict) -> int:
    """How many image outputs (PNG or SVG figures) a notebook's stored outputs hold."""
    return sum(
        1
        for cell in notebook.get("cells", [])
        for output in cell.get("outputs", [])
        if {"image/png", "image/svg+xml"} & set(output.get("data") or {})
    )


def check_notebook(title: str | None, cells: int, rendered: DomReport, figures: int = 0) -> list[str]:
    """Problems with a notebook page's rendered DOM: title, cells, exercises with solutions, figures drawn.

    The exercises: at least ``MIN_EXERCISES`` passed checks and explained solutions, and none shown above its fold
    (``check_exercise_cells``).
    """
    problems = []
    if rendered.notebook_cells < cells:
        problems.append(f"{cells} cell(s) in the notebook, {rendered.notebook_cells} rendered")
    if rendered.check_marks < MIN_EXERCISES or rendered.solutions < MIN_EXERCISES:
        problems.append(
            f"{rendered.check_marks} passed check(s) and {rendered.solutions} folded solution(s) shown, "
            f"at least {MIN_EXERCISES} of each expected"
        )
    problems += check_exercise_cells(rendered)
    if rendered.images_broken:
        problems.append(f"{rendered.images_broken} image(s) the browser could not draw")
    if rendered.images_drawn < figures:
        problems.append(f"{figures} figure(s) in the notebook, {rendered.images_drawn} drawn")
    if title is not None:
        if not rendered.title.startswith(title):
            problems.append(f"page title is {rendered.title!r}, expected it to start with {title!r}")
        if title not in rendered.h1:
            problems.append(f"no <h1> reads {title!r} (found {rendered.h1})")
    return problems


def check_java_links(report: DomReport) -> list[str]:
    """Problems with a page's links to Java source: each must be at the tag and carry a line anchor."""
    problems = []
    for link in dict.fromkeys(report.links):  # each distinct link once, in page order
        if not JAVA_LINK_RE.match(link):
            continue
        if not link.startswith(JAVA_SOURCE_PREFIX):
            problems.append(f"Java link not at tag rocketmq-all-4.9.3: {link}")
        elif not LINE_ANCHOR_RE.search(link):
            problems.append(f"Java link without a line anchor (#L<n>): {link}")
    return problems


def check_api_sources(report: DomReport) -> list[str]:
    """Problems with an API page: it documents classes or functions but shows none of their source."""
    if report.documented_objects and not report.source_blocks:
        return [f"{report.documented_objects} documented object(s), no source shown (show_source off?)"]
    return []


def check_api_page(static: DomReport, rendered: DomReport) -> list[str]:
    """Problems with an API page in the browser: its source blocks and Java links must survive the scripts."""
    problems = []
    if rendered.source_blocks < static.source_blocks:
        problems.append(f"{static.source_blocks} source block(s) in the page, {rendered.source_blocks} rendered")
    if rendered.java_twin_links < static.java_twin_links:
        problems.append(f"{static.java_twin_links} Java link(s) in the page, {rendered.java_twin_links} rendered")
    return problems


def static_problems(site: Path) -> list[str]:
    """What the built files show without a browser: Java links on every page, source on every API page."""
    problems = []
    for path in sorted(site.rglob("*.html")):
        report = analyse_html(path.read_text(encoding="utf-8"))
        label = "/" + _url_path(site, path)
        found = check_java_links(report)
        if path.relative_to(site).parts[0] == API_DIR:
            found += check_api_sources(report)
        problems += [f"{label}: {problem}" for problem in found]
    return problems


# --- serving and browsing ------------------------------------------------------------------------------------------


class _Handler(SimpleHTTPRequestHandler):
    """Serves the site; adds the probe to HTML; records requests for files the site lacks."""

    missing: list[str]

    def send_head(self):
        """Serve HTML pages with the probe added; everything else (and redirects, errors) as the base class does."""
        request_path = urllib.parse.urlsplit(self.path).path
        path = Path(self.translate_path(self.path))
        target = path / "index.html" if path.is_dir() else path
        if not target.is_file():
            if request_path not in _IGNORED_MISSING:
                self.missing.append(request_path)
            return super().send_head()
        if target.suffix != ".html" or (path.is_dir() and not request_path.endswith("/")):
            return super().send_head()
        body = target.read_bytes()
        body = body.replace(b"<head>", b"<head>" + PROBE_SCRIPT.encode(), 1)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return _BytesFile(body)

    def log_message(self, format, *args):
        """Keep the check's output to its findings."""


class _BytesFile:
    def __init__(self, body: bytes) -> None:
        self.body = body

    def read(self, *_args) -> bytes:
        body, self.body = self.body, b""
        return body

    def close(self) -> None:
        pass


@contextlib.contextmanager
def serve(site: Path) -> Iterator[tuple[str, list[str]]]:
    """Serve ``site`` on 127.0.0.1 in a thread; yield the base URL and the list that collects missing paths."""
    missing: list[str] = []
    handler = type("Handler", (_Handler,), {"missing": missing})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, name="site-check-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", missing
    finally:
        server.shutdown()
        server.server_close()


def run_chromium(chromium: str, url: str, *extra: str) -> str:
    """Run headless Chromium on ``url`` with a fresh profile; return its stdout."""
    with tempfile.TemporaryDirectory(prefix="site-check-profile-") as profile:
        command = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra, url]
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
        )
        try:
            stdout, stderr = process.communicate(timeout=BROWSER_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise RuntimeError(f"chromium did not finish in {BROWSER_TIMEOUT_S} s on {url}") from None
        if process.returncode != 0:
            raise RuntimeError(f"chromium exited {process.returncode} on {url}: {stderr.strip()[-500:]}")
        return stdout


def dump_dom(chromium: str, url: str) -> str:
    """The page's DOM after its scripts ran (up to the virtual time budget), laid out in a ``WINDOW_SIZE`` window."""
    return run_chromium(chromium, url, "--dump-dom", f"--window-size={WINDOW_SIZE}")


def screenshot(chromium: str, url: str, png: Path) -> None:
    """A picture of the page's top for a human reader."""
    png.parent.mkdir(parents=True, exist_ok=True)
    run_chromium(chromium, url, f"--screenshot={png.resolve()}", f"--window-size={WINDOW_SIZE}", "--hide-scrollbars")


# --- the check -----------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class PageCheck:
    """One page to open, and what to expect of it."""

    url_path: str  # below the site root, "" for the home page, "notebooks/00-x/" or "spark/01-x/" for a notebook
    file: Path  # the built HTML file
    notebook: Path | None = None
    api: bool = False  # an API page: its source blocks and Java links are checked in the rendered DOM
    layout: bool = False  # a learning page: its tables must fit the window (``check_tables``)


def pages_to_check(site: Path, notebooks: Sequence[Path]) -> tuple[list[PageCheck], list[str]]:
    """The home page, every page with a diagram, every notebook's page, one API page, the learning pages.

    Also returns the problems found without a browser.

    A notebook ``<dir>/<name>.ipynb`` is rendered at ``<dir>/<name>/`` (``docs/hooks/notebooks.py``).
    """
    problems = []
    checks = [PageCheck("", site / "index.html")]
    for path in sorted(site.rglob("*.html")):
        if path == site / "index.html" or path.name == "404.html":
            continue
        if b'class="mermaid"' in path.read_bytes():
            checks.append(PageCheck(_url_path(site, path), path))
    found = [notebook for folder in notebooks if folder.is_dir() for notebook in sorted(folder.glob("*.ipynb"))]
    for notebook in found:
        built = site / notebook.parent.name / notebook.stem / "index.html"
        if not built.is_file():
            where = f"{notebook.parent.name}/{notebook.name}"
            problems.append(f"{where}: no page in the site (expected {built.relative_to(site)})")
            continue
        existing = next((check for check in checks if check.file == built), None)
        if existing is not None:
            existing.notebook = notebook
        else:
            checks.append(PageCheck(_url_path(site, built), built, notebook))
    # One API page in the browser (the first that shows source) stands for all: they share their markup.
    api_pages = sorted((site / API_DIR).rglob("*.html")) if (site / API_DIR).is_dir() else []
    shown = next((path for path in api_pages if b"mkdocstrings-source" in path.read_bytes()), None)
    if shown is not None:
        existing = next((check for check in checks if check.file == shown), None)
        if existing is not None:
            existing.api = True
        else:
            checks.append(PageCheck(_url_path(site, shown), shown, api=True))
    learn_pages = sorted((site / LEARN_DIR).rglob("*.html")) if (site / LEARN_DIR).is_dir() else []
    for path in learn_pages:
        existing = next((check for check in checks if check.file == path), None)
        if existing is not None:
            existing.layout = True
        else:
            checks.append(PageCheck(_url_path(site, path), path, layout=True))
    return checks, problems


def _url_path(site: Path, path: Path) -> str:
    relative = path.relative_to(site).as_posix()
    return relative[: -len("index.html")] if relative.endswith("index.html") else relative


def _png_name(url_path: str) -> str:
    return (url_path.strip("/").replace("/", "-") or "index") + ".png"


# Pages are checked two at a time: each check is mostly two Chromium processes (the DOM dump, the screenshot), so
# two in flight keep both cores busy. Results are printed and collected in page order.
PAGE_WORKERS = 2


def check_page(check, base: str, out: Path | None, chromium: str) -> tuple[list[str], str]:
    """The problems of one page (prefixed with its path) and its progress line."""
    url = base + check.url_path
    label = "/" + check.url_path
    static = analyse_html(check.file.read_text(encoding="utf-8"))
    problems = [] if static.title else [f"{label}: the built file has no <title>"]
    rendered = analyse_html(dump_dom(chromium, url))
    found = check_diagrams(static, rendered)
    sources = static.mermaid_texts
    if check.notebook is not None:
        notebook = json.loads(check.notebook.read_text(encoding="utf-8"))
        cells = len(notebook.get("cells", []))
        found += check_notebook(notebook_title(check.notebook), cells, rendered, notebook_figures(notebook))
        # The notebook, not the built page, says what each label reads: a build that mangles one is caught.
        sources = notebook_diagram_sources(notebook)
        if len(sources) != static.mermaid_sources:
            found.append(f"{len(sources)} diagram(s) in the notebook, {static.mermaid_sources} in its page")
    if len(sources) == rendered.drawn_diagrams:
        found += check_diagram_labels(sources, rendered.diagram_labels)
    found += check_glyphs(rendered)
    if check.api:
        found += check_api_page(static, rendered)
    if check.layout:
        found += check_tables(rendered)
    problems += [f"{label}: {problem}" for problem in found]
    if out is not None:
        screenshot(chromium, url, out / _png_name(check.url_path))
    status = "ok" if not found else "FAILED"
    line = (
        f"checked {label}: {static.mermaid_sources} diagram(s), {rendered.drawn_diagrams} drawn, "
        f"{sum(len(labels) for labels in rendered.diagram_labels)} label(s), "
        f"{rendered.notebook_cells} notebook cell(s), {rendered.source_blocks} source block(s): {status}"
    )
    return problems, line


def check_site(site: Path, notebooks: Sequence[Path], out: Path | None, chromium: str) -> list[str]:
    """Every problem found on the built site (empty when it passes)."""
    checks, problems = pages_to_check(site, notebooks)
    problems += static_problems(site)
    with serve(site) as (base, missing), ThreadPoolExecutor(max_workers=PAGE_WORKERS) as pool:
        for found, line in pool.map(lambda check: check_page(check, base, out, chromium), checks):
            problems += found
            print(line, flush=True)
        problems += [f"requested but missing from the site: {path}" for path in sorted(set(missing))]
    return problems


def main(argv: list[str] | None = None) -> int:
    """Check a built site in headless Chromium."""
    root = Path(__file__).resolve().parents[1]
    parser = argparse.ArgumentParser(prog="python tools/check_site.py", description=main.__doc__)
    parser.add_argument("site", type=Path, nargs="?", default=root / "site", help="the built site (default: site)")
    parser.add_argument(
        "--notebooks",
        type=Path,
        nargs="+",
        default=[root / "notebooks", root / "spark"],
        help="folders of notebooks the site must render (default: notebooks spark)",
    )
    parser.add_argument("--out", type=Path, default=root / "site-check", help="where screenshots go")
    parser.add_argument("--no-screenshots", action="store_true", help="skip the screenshots")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"site check: {args.site} has no index.html; build the site first (mkdocs build)", file=sys.stderr)
        return 2
    chromium = shutil.which(args.chromium)
    if chromium is None:
        print(
            f"site check: no Chromium at {args.chromium} (apt-get install chromium, or set CHROMIUM)", file=sys.stderr
        )
        return 2
    if not cjk_fonts():
        print(
            "site check: no font for Chinese text (fc-list :lang=zh lists none); apt-get install fonts-noto-cjk",
            file=sys.stderr,
        )
        return 2
    out = None if args.no_screenshots else args.out
    try:
        problems = check_site(args.site, args.notebooks, out, chromium)
    except RuntimeError as error:
        print(f"site check: {error}", file=sys.stderr)
        return 2
    for problem in problems:
        print(f"site check FAILED: {problem}", file=sys.stderr)
    if problems:
        return 1
    print("site check passed" + (f"; screenshots in {out}" if out else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

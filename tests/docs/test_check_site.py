"""The built-site checker: reading rendered DOMs, and (with Chromium) a whole run on a tiny synthetic site."""

import json
import shutil
from pathlib import Path

import pytest

from tools import check_site

ROOT = Path(__file__).resolve().parents[2]
MERMAID_JS = ROOT / "docs" / "javascripts" / "mermaid.min.js"

STATIC_PAGE = """<!doctype html><html><head><title>Home - mqlab</title></head><body>
<h1>Home<a class="headerlink">¶</a></h1>
<pre class="mermaid"><code>flowchart LR
  A --> B</code></pre>
<pre><code>graph = build_graph()</code></pre>
<img src="x.png"><br>
</body></html>"""


def test_analyse_html_reads_title_headings_and_diagrams():
    report = check_site.analyse_html(STATIC_PAGE)
    assert report.title == "Home - mqlab"
    assert report.h1 == ["Home"]
    assert report.mermaid_sources == 1
    assert report.raw_sources == ["flowchart LR A --> B"]  # one block, though both <pre> and <code> hold it
    assert report.drawn_diagrams == 0


def test_a_drawn_diagram_passes_and_an_undrawn_one_fails():
    static = check_site.analyse_html(STATIC_PAGE)
    drawn = check_site.analyse_html('<html><body><div class="mermaid" data-check-svg="1"></div></body></html>')
    assert check_site.check_diagrams(static, drawn) == []
    empty = check_site.analyse_html('<html><body><div class="mermaid"></div></body></html>')
    assert check_site.check_diagrams(static, empty) == [
        '1 mermaid diagram(s) in the page, 0 drawn as SVG (0 still <pre class="mermaid">, 1 empty containers)'
    ]
    problems = check_site.check_diagrams(static, static)
    assert len(problems) == 3
    assert problems[-1] == "diagram source left as text: 'flowchart LR A --> B'"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("flowchart LR\n  A --> B", True),
        ("graph TD\nA-->B", True),
        ("%% a comment\nsequenceDiagram\n  A->>B: hi", True),
        ("graph = build_graph()", False),
        ("pie(slices)", False),
        ("print('flowchart')", False),
        ("", False),
    ],
)
def test_is_mermaid_source(text, expected):
    assert check_site.is_mermaid_source(text) is expected


def write_notebook(path: Path, cells: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def test_notebook_title_is_the_first_level_one_heading(tmp_path):
    notebook = write_notebook(
        tmp_path / "n.ipynb",
        [
            {"cell_type": "code", "source": "# not markdown", "metadata": {}, "outputs": [], "execution_count": None},
            {"cell_type": "markdown", "source": ["```\n", "# in a fence\n", "```\n", "## Sub\n"], "metadata": {}},
            {"cell_type": "markdown", "source": "# Anatomy of a message\n", "metadata": {}},
        ],
    )
    assert check_site.notebook_title(notebook) == "Anatomy of a message"
    assert check_site.notebook_title(write_notebook(tmp_path / "m.ipynb", [])) is None


EXERCISES = "".join(
    f"<pre>\u2713 q{i}: correct</pre><details><summary>Solution</summary><p>because</p></details>" for i in range(3)
)


def test_check_notebook_wants_the_title_and_every_cell():
    rendered = check_site.analyse_html(
        "<html><head><title>Anatomy - mqlab</title></head><body><h1>Anatomy</h1>"
        '<div class="jp-Cell jp-MarkdownCell"></div><div class="jp-Cell jp-CodeCell"></div>'
        f"{EXERCISES}</body></html>"
    )
    assert check_site.check_notebook("Anatomy", 2, rendered) == []
    assert check_site.check_notebook("Other", 3, rendered) == [
        "3 cell(s) in the notebook, 2 rendered",
        "page title is 'Anatomy - mqlab', expected it to start with 'Other'",
        "no <h1> reads 'Other' (found ['Anatomy'])",
    ]


@pytest.mark.spec("TEACH-11")
def test_check_notebook_wants_three_checked_exercises_with_solutions_and_drawn_figures():
    page = "<html><head><title>A - mqlab</title></head><body><h1>A</h1>{}</body></html>"
    two = "".join(f"<pre>\u2713 q{i}: correct</pre><details><summary>Solution</summary></details>" for i in range(2))
    assert check_site.check_notebook("A", 0, check_site.analyse_html(page.format(two))) == [
        "2 passed check(s) and 2 folded solution(s) shown, at least 3 of each expected"
    ]
    figures = '<img src="a.svg" data-check-img="640"><img src="b.svg" data-check-img="0">'
    rendered = check_site.analyse_html(page.format(EXERCISES + figures))
    assert check_site.check_notebook("A", 0, rendered, figures=2) == [
        "1 image(s) the browser could not draw",
        "2 figure(s) in the notebook, 1 drawn",
    ]
    notebook = {"cells": [{"outputs": [{"data": {"image/svg+xml": "<svg/>", "text/plain": "x"}}]}, {"outputs": []}]}
    assert check_site.notebook_figures(notebook) == 1


def test_pages_to_check_finds_diagrams_and_notebooks(tmp_path):
    site = tmp_path / "site"
    for name, body in {
        "index.html": "<title>x</title>",
        "spec/store/index.html": '<pre class="mermaid">graph TD</pre>',
        "api/index.html": "<p>no diagram</p>",
        "notebooks/00-a/index.html": "<title>A</title>",
        "spark/01-s/index.html": "<title>S</title>",
    }.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(body)
    write_notebook(tmp_path / "notebooks/00-a.ipynb", [])
    write_notebook(tmp_path / "notebooks/01-b.ipynb", [])
    write_notebook(tmp_path / "spark/01-s.ipynb", [])
    checks, problems = check_site.pages_to_check(site, [tmp_path / "notebooks", tmp_path / "spark"])
    assert [(c.url_path, c.notebook.name if c.notebook else None) for c in checks] == [
        ("", None),
        ("spec/store/", None),
        ("notebooks/00-a/", "00-a.ipynb"),
        ("spark/01-s/", "01-s.ipynb"),
    ]
    assert problems == ["notebooks/01-b.ipynb: no page in the site (expected notebooks/01-b/index.html)"]


def test_missing_site_is_a_usage_error(tmp_path, capsys):
    assert check_site.main([str(tmp_path / "site"), "--no-screenshots"]) == 2
    assert "has no index.html" in capsys.readouterr().err


# --- end to end, in Chromium ---------------------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("/usr/bin/chromium")

# Draws like mkdocs-material: each <pre class="mermaid"> becomes a div whose *closed* shadow root holds the SVG.
DRAWING_PAGE = """<!doctype html><html><head><title>Drawn</title></head><body>
<pre class="mermaid">flowchart LR
  A --> B</pre>
<script src="mermaid.min.js"></script>
<script>
mermaid.initialize({startOnLoad: false});
document.querySelectorAll("pre.mermaid").forEach(async (pre, i) => {
  const {svg} = await mermaid.render("d" + i, pre.textContent);
  const host = document.createElement("div");
  host.className = "mermaid";
  host.attachShadow({mode: "closed"}).innerHTML = svg;
  pre.replaceWith(host);
});
</script></body></html>"""

# Tries to load mermaid from a CDN, as an unpatched site would: offline, nothing is drawn.
CDN_PAGE = DRAWING_PAGE.replace('src="mermaid.min.js"', 'src="https://cdn.example.org/mermaid.min.js"')


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium")
def test_chromium_sees_drawn_diagrams_and_offline_failures(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(MERMAID_JS, site / "mermaid.min.js")
    (site / "index.html").write_text(DRAWING_PAGE)
    (site / "cdn.html").write_text(CDN_PAGE)
    out = tmp_path / "shots"
    problems = check_site.check_site(site, (), out, CHROMIUM)
    assert problems == [
        '/cdn.html: 1 mermaid diagram(s) in the page, 0 drawn as SVG (1 still <pre class="mermaid">, '
        "0 empty containers)",
        '/cdn.html: 1 <pre class="mermaid"> block(s) left undrawn',
        "/cdn.html: diagram source left as text: 'flowchart LR A --> B'",
    ]
    assert sorted(path.name for path in out.iterdir()) == ["cdn.html.png", "index.png"]


# --- Java links and API pages --------------------------------------------------------------------------------------

TAG_BLOB = "https://github.com/apache/rocketmq/blob/rocketmq-all-4.9.3/store/src/main/java/org/apache/rocketmq/store"


def test_java_links_must_be_at_the_tag_with_a_line_anchor():
    page = f"""<html><body>
    <a href="{TAG_BLOB}/CommitLog.java#L56">class</a>
    <a href="{TAG_BLOB}/CommitLog.java#L58-L91">range</a>
    <a href="{TAG_BLOB}/CommitLog.java">whole file</a>
    <a href="{TAG_BLOB}/CommitLog.java">whole file again</a>
    <a href="https://github.com/apache/rocketmq/blob/develop/store/src/main/java/X.java#L3">develop</a>
    <a href="https://github.com/apache/rocketmq/tree/rocketmq-all-4.9.3/store">a directory</a>
    <a href="https://github.com/apache/rocketmq/issues/3940">an issue</a>
    <a href="../api/store/">internal</a>
    </body></html>"""
    assert check_site.check_java_links(check_site.analyse_html(page)) == [
        f"Java link without a line anchor (#L<n>): {TAG_BLOB}/CommitLog.java",
        "Java link not at tag rocketmq-all-4.9.3: https://github.com/apache/rocketmq/blob/develop/store/src/main/java/X.java#L3",
    ]


API_PAGE = f"""<html><head><title>store - mqlab</title></head><body>
<h3 id="m.C" class="doc doc-heading"><span class="doc doc-object-name doc-class-name">C</span></h3>
<p class="mqlab-java-twin"><a href="{TAG_BLOB}/CommitLog.java#L56">Java: <code>CommitLog</code></a></p>
<details class="mkdocstrings-source"><summary>Source code in <code>mqlab/m.py</code></summary></details>
</body></html>"""


def test_api_pages_must_show_their_source():
    report = check_site.analyse_html(API_PAGE)
    assert (report.documented_objects, report.source_blocks, report.java_twin_links) == (1, 1, 1)
    assert check_site.check_api_sources(report) == []
    hidden = check_site.analyse_html(API_PAGE.replace("mkdocstrings-source", "quote"))
    assert check_site.check_api_sources(hidden) == ["1 documented object(s), no source shown (show_source off?)"]
    assert check_site.check_api_sources(check_site.analyse_html("<p>an index</p>")) == []
    stripped = check_site.analyse_html("<html><body></body></html>")
    assert check_site.check_api_page(report, stripped) == [
        "1 source block(s) in the page, 0 rendered",
        "1 Java link(s) in the page, 0 rendered",
    ]


def test_static_problems_and_the_api_page_the_browser_opens(tmp_path):
    site = tmp_path / "site"
    for name, body in {
        "index.html": f'<title>x</title><a href="{TAG_BLOB}/MappedFile.java">MappedFile</a>',
        "api/index.html": "<title>API</title><p>no objects</p>",
        "api/store/index.html": API_PAGE,
        "api/store2/index.html": API_PAGE.replace("mkdocstrings-source", "quote"),
    }.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(body)
    assert check_site.static_problems(site) == [
        "/api/store2/: 1 documented object(s), no source shown (show_source off?)",
        f"/: Java link without a line anchor (#L<n>): {TAG_BLOB}/MappedFile.java",
    ]
    checks, _ = check_site.pages_to_check(site, ())
    assert [(c.url_path, c.api) for c in checks] == [("", False), ("api/store/", True)]


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium")
def test_chromium_sees_an_api_pages_source_and_java_links(tmp_path):
    site = tmp_path / "site"
    (site / "api/store").mkdir(parents=True)
    (site / "index.html").write_text("<html><head><title>Home</title></head><body></body></html>")
    (site / "api/store/index.html").write_text(API_PAGE)
    assert check_site.check_site(site, (), None, CHROMIUM) == []


# --- diagram labels ------------------------------------------------------------------------------------------------

FLOW_SOURCE = """flowchart TD
    L["putMessageLock taken<br/>STORETIMESTAMP = now"]
    C[("CommitLog")] -->|"③ putMessage"| R(ReputMessageService)
    K -- "reputFromOffset += size" --> R
    subgraph Broker
        Q{"a #quot;b#quot;"}
    end
    classDef x fill:#f9f
    S --> C
"""


def test_mermaid_labels_reads_flowchart_labels_with_their_breaks():
    assert check_site.mermaid_labels(FLOW_SOURCE) == [
        ("putMessageLock taken", "STORETIMESTAMP = now"),
        ("③ putMessage",),
        ("CommitLog",),
        ("ReputMessageService",),
        ("reputFromOffset += size",),
        ("Broker",),
        ('a "b"',),
    ]


def test_mermaid_labels_reads_sequence_participants_messages_and_notes():
    source = """sequenceDiagram
    participant broker_b as broker-b
    participant namesrv
    broker_b-)namesrv: +18 ms REGISTER_BROKER
    namesrv-->>broker_b: one<br>two
    Note over broker_b: +17 ms CommitLog putMessage
    loop every 30 s
    end"""
    assert check_site.mermaid_labels(source) == [
        ("broker-b",),
        ("namesrv",),
        ("+18 ms REGISTER_BROKER",),
        ("one", "two"),
        ("+17 ms CommitLog putMessage",),
    ]
    assert check_site.mermaid_labels('pie\n  "a": 1') == []


def test_diagram_labels_must_keep_their_line_breaks():
    drawn = ["putMessageLock taken\nSTORETIMESTAMP = now", "③ putMessage", "CommitLog", "ReputMessageService"]
    drawn += ["reputFromOffset += size", "Broker", 'a "b"', "S"]
    assert check_site.check_diagram_labels([FLOW_SOURCE], [drawn]) == []
    lost = ["putMessageLock takenSTORETIMESTAMP = now", *drawn[1:]]
    assert check_site.check_diagram_labels([FLOW_SOURCE], [lost]) == [
        "diagram 1: label 'putMessageLock taken\\nSTORETIMESTAMP = now' drawn as "
        "'putMessageLock takenSTORETIMESTAMP = now' (its line breaks lost)"
    ]
    missing = [text for text in drawn if text != "CommitLog"]
    assert check_site.check_diagram_labels([FLOW_SOURCE], [missing]) == ["diagram 1: label 'CommitLog' not drawn"]
    assert check_site.check_diagram_labels([FLOW_SOURCE], []) == ["1 diagram source(s), 0 diagram(s) drawn with labels"]


def test_a_sequence_label_may_be_drawn_one_line_per_text_element():
    source = "sequenceDiagram\n  a->>b: one<br/>two"
    assert check_site.check_diagram_labels([source], [["a", "b", "one", "two"]]) == []
    assert check_site.check_diagram_labels([source], [["a", "b", "onetwo"]]) == [
        "diagram 1: label 'one\\ntwo' drawn as 'onetwo' (its line breaks lost)"
    ]


def test_notebook_diagram_sources_come_from_markdown_cells_and_markdown_outputs():
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": ["## A\n", "```mermaid\n", "flowchart TD\n", '  A["x"]\n', "```\n"]},
            {"cell_type": "code", "source": "```mermaid\nnot a diagram\n```", "outputs": []},
            {
                "cell_type": "code",
                "source": "sequence_diagram(trace)",
                "outputs": [{"data": {"text/markdown": "```mermaid\nsequenceDiagram\n  a->>b: hi\n```\n"}}],
            },
        ]
    }
    assert check_site.notebook_diagram_sources(notebook) == [
        'flowchart TD\n  A["x"]\n',
        "sequenceDiagram\n  a->>b: hi\n",
    ]


def test_the_probes_labels_and_the_static_sources_are_read_from_the_dom():
    static = check_site.analyse_html('<pre class="mermaid"><code>flowchart TD\n  A["a&lt;br/&gt;b"]</code></pre>')
    assert static.mermaid_texts == ['flowchart TD\n  A["a<br/>b"]']
    labels = json.dumps(["a\nb", "c"])
    rendered = check_site.analyse_html(
        f"<div class='mermaid' data-check-svg='1' data-check-labels='{labels}'></div>"
        "<div class='mermaid' data-check-svg='1' data-check-labels='not json'></div>"
    )
    assert rendered.diagram_labels == [["a\nb", "c"], []]


# --- exercises on notebook pages -----------------------------------------------------------------------------------


def cell(tags: str, output: str, cell_id: str = "") -> str:
    """A code cell as mkdocs-jupyter writes it: an outer <div> and an inner one, both tagged."""
    classes = "".join(f" celltag_{tag}" for tag in tags.split())
    id_attribute = f' id="cell-id={cell_id}"' if cell_id else ""
    return (
        f'<div class="jp-Cell jp-CodeCell jp-Notebook-cell{classes}">'
        f'<div class="jp-Cell jp-CodeCell jp-Notebook-cell{classes}"{id_attribute}>'
        '<div class="jp-InputArea"><pre>answer = ...</pre></div>'
        f'<div class="jp-OutputArea"><div class="jp-OutputArea-output"><pre>{output}</pre></div></div>'
        "</div></div>"
    )


def folded(markup: str, *, is_open: bool = False) -> str:
    opened = " open" if is_open else ""
    return f'<details class="mqlab-solution"{opened}><summary>Checked solution</summary>{markup}</details>'


def test_cells_are_read_with_their_tags_fold_and_outputs():
    report = check_site.analyse_html(
        cell("exercise", "? one doReput: not answered yet", "ex1")
        + '<div class="jp-Cell jp-MarkdownCell"><p>\u2713 in prose</p></div>'
        + folded(cell("solution", "\u2713 one doReput: correct\n1 wrong answer rejected"))
    )
    assert [(c.name, c.tags, c.folded, "".join(c.output)) for c in report.cells] == [
        ("ex1", {"exercise"}, False, "? one doReput: not answered yet"),
        ("#2", set(), False, ""),
        ("#3", {"solution"}, True, "\u2713 one doReput: correct\n1 wrong answer rejected"),
    ]
    assert check_site.check_exercise_cells(report) == []


@pytest.mark.spec("TEACH-11")
def test_an_exercise_cell_showing_a_passed_check_fails():
    report = check_site.analyse_html(
        cell("exercise", "\u2713 one doReput: correct", "ex1") + folded(cell("solution", "\u2713 one doReput: correct"))
    )
    assert check_site.check_exercise_cells(report) == [
        "exercise cell ex1 shows a passed check: '\u2713 one doReput: correct'"
    ]


def test_a_solution_cell_must_be_folded_in_a_closed_details():
    bare = check_site.analyse_html(cell("solution", "\u2713 q: correct", "s1"))
    opened = check_site.analyse_html(folded(cell("solution", "\u2713 q: correct", "s2"), is_open=True))
    inside_other = check_site.analyse_html(
        "<details><summary>x</summary></details>" + cell("solution", "\u2713 q: correct", "s3")
    )
    assert check_site.check_exercise_cells(bare) == ["solution cell s1 is not folded in a closed <details>"]
    assert check_site.check_exercise_cells(opened) == ["solution cell s2 is not folded in a closed <details>"]
    assert check_site.check_exercise_cells(inside_other) == ["solution cell s3 is not folded in a closed <details>"]


def test_no_other_cell_may_print_a_passed_check_line():
    report = check_site.analyse_html(
        cell("", "wrote 3 records\n\u2713 wroteOffsets: correct", "t1")
        + cell("", "\u2717 size: 64 is the body, not the record\n? q: not answered yet", "t2")
        + cell("hide-input", "  \u2713 roll: correct (2 wrong answers rejected)", "t3")
    )
    assert check_site.check_exercise_cells(report) == [
        "cell t1 prints a passed check outside a solution cell: '\u2713 wroteOffsets: correct'",
        "cell t3 prints a passed check outside a solution cell: '\u2713 roll: correct (2 wrong answers rejected)'",
    ]


def test_check_notebook_reports_an_answer_above_its_fold():
    page = f"<html><head><title>A - mqlab</title></head><body><h1>A</h1>{EXERCISES}{{}}</body></html>"
    shown = check_site.analyse_html(page.format(cell("exercise", "\u2713 q: correct", "e1")))
    assert check_site.check_notebook("A", 0, shown) == ["exercise cell e1 shows a passed check: '\u2713 q: correct'"]


# --- Chinese glyphs and tables -------------------------------------------------------------------------------------


def test_cjk_text_must_be_drawn_with_glyphs():
    def page(verdict: str) -> check_site.DomReport:
        return check_site.analyse_html(f'<html data-check-cjk="{verdict}"><body><p>同步消费位点</p></body></html>')

    assert page("glyphs 同步 sans-serif").cjk_characters == 6
    assert check_site.check_glyphs(page("glyphs 同步 sans-serif")) == []
    assert check_site.check_glyphs(page("tofu 同步 Arial, sans-serif")) == [
        "CJK text drawn as tofu (two characters and the font: 同步 Arial, sans-serif); install a CJK font"
    ]
    assert check_site.check_glyphs(check_site.analyse_html("<p>同步</p>")) == [
        "2 CJK character(s) in the page, the probe did not report how they were drawn"
    ]
    assert check_site.check_glyphs(check_site.analyse_html('<html data-check-cjk="none"><p>latin</p></html>')) == []


def test_tables_must_fit_their_column():
    report = check_site.analyse_html(
        '<table data-check-overflow="0"></table><table data-check-overflow="212"></table>'
        '<table data-check-overflow="1"></table><table></table>'
    )
    assert report.table_overflows == [0, 212, 1]
    assert check_site.check_tables(report) == ["table 2 is 212 px wider than its column at a 1400 px window"]


def test_learning_pages_are_opened_for_their_layout(tmp_path):
    site = tmp_path / "site"
    for name in ("index.html", "learn/index.html", "learn/glossary/index.html"):
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text("<title>x</title>")
    checks, _ = check_site.pages_to_check(site, ())
    assert [(c.url_path, c.layout) for c in checks] == [("", False), ("learn/glossary/", True), ("learn/", True)]


def test_no_cjk_font_is_an_environment_error(tmp_path, monkeypatch, capsys):
    (tmp_path / "index.html").write_text("<title>x</title>")
    monkeypatch.setattr(check_site, "cjk_fonts", list)
    assert check_site.main([str(tmp_path), "--no-screenshots", "--chromium", shutil.which("sh") or "sh"]) == 2
    assert "apt-get install fonts-noto-cjk" in capsys.readouterr().err


CJK_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>CJK</title></head>
<body><p>在拉取到消息后会同步消费位点到broker中</p></body></html>"""


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium")
@pytest.mark.skipif(not check_site.cjk_fonts(), reason="needs a CJK font (fonts-noto-cjk)")
def test_chromium_draws_cjk_glyphs_and_the_check_sees_tofu_without_a_font(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(CJK_PAGE, encoding="utf-8")
    assert check_site.check_site(site, (), None, CHROMIUM) == []
    # A fontconfig that knows only DejaVu: Chromium has no CJK face and draws every character as the same box.
    dejavu = next((path for path in Path("/usr/share/fonts").rglob("DejaVuSans.ttf")), None)
    if dejavu is None:
        pytest.skip("needs DejaVu Sans to stand for a machine without CJK fonts")
    conf = tmp_path / "fonts.conf"
    conf.write_text(
        f'<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig><dir>{dejavu.parent}</dir>'
        f"<cachedir>{tmp_path / 'fc-cache'}</cachedir></fontconfig>"
    )
    monkeypatch.setenv("FONTCONFIG_FILE", str(conf))
    problems = check_site.check_site(site, (), None, CHROMIUM)
    assert len(problems) == 1 and problems[0].startswith("/: CJK text drawn as tofu (two characters and the font: 在拉")

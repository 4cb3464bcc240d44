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

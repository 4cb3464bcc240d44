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


def test_check_notebook_wants_the_title_and_every_cell():
    rendered = check_site.analyse_html(
        "<html><head><title>Anatomy - mqlab</title></head><body><h1>Anatomy</h1>"
        '<div class="jp-Cell jp-MarkdownCell"></div><div class="jp-Cell jp-CodeCell"></div></body></html>'
    )
    assert check_site.check_notebook("Anatomy", 2, rendered) == []
    assert check_site.check_notebook("Other", 3, rendered) == [
        "3 cell(s) in the notebook, 2 rendered",
        "page title is 'Anatomy - mqlab', expected it to start with 'Other'",
        "no <h1> reads 'Other' (found ['Anatomy'])",
    ]


def test_pages_to_check_finds_diagrams_and_notebooks(tmp_path):
    site = tmp_path / "site"
    for name, body in {
        "index.html": "<title>x</title>",
        "spec/store/index.html": '<pre class="mermaid">graph TD</pre>',
        "api/index.html": "<p>no diagram</p>",
        "notebooks/00-a/index.html": "<title>A</title>",
    }.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(body)
    write_notebook(tmp_path / "notebooks/00-a.ipynb", [])
    write_notebook(tmp_path / "notebooks/01-b.ipynb", [])
    checks, problems = check_site.pages_to_check(site, tmp_path / "notebooks")
    assert [(c.url_path, c.notebook.name if c.notebook else None) for c in checks] == [
        ("", None),
        ("spec/store/", None),
        ("notebooks/00-a/", "00-a.ipynb"),
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
    problems = check_site.check_site(site, None, out, CHROMIUM)
    assert problems == [
        '/cdn.html: 1 mermaid diagram(s) in the page, 0 drawn as SVG (1 still <pre class="mermaid">, '
        "0 empty containers)",
        '/cdn.html: 1 <pre class="mermaid"> block(s) left undrawn',
        "/cdn.html: diagram source left as text: 'flowchart LR A --> B'",
    ]
    assert sorted(path.name for path in out.iterdir()) == ["cdn.html.png", "index.png"]

"""The page-markup hook (``docs/hooks/markup.py``): notebook diagrams keep their line breaks, solutions are folded,
exercises labelled, dotted names in tables break at their dots; and a tiny tagged notebook built by mkdocs passes
the site check."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tools import check_site

ROOT = Path(__file__).resolve().parents[2]
HOOK = ROOT / "docs" / "hooks" / "markup.py"


def load_hook():
    spec = importlib.util.spec_from_file_location("markup_hook", HOOK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


markup = load_hook()

# What mkdocs-jupyter writes for a ```mermaid block: ">" escaped, the label's <br/> left as markup.
NOTEBOOK_MERMAID = """<div class="jp-Mermaid"><pre class="mermaid">
flowchart TD
    L["putMessageLock taken<br/>STORETIMESTAMP = now"]
    A["a &amp; b"] --&gt; L
</pre></div>"""


def test_notebook_mermaid_sources_are_escaped_as_text():
    fixed = markup.escape_mermaid_sources(NOTEBOOK_MERMAID)
    assert 'L["putMessageLock taken&lt;br/&gt;STORETIMESTAMP = now"]' in fixed
    assert 'A["a &amp; b"] --&gt; L' in fixed
    report = check_site.analyse_html(fixed)
    assert report.mermaid_texts[0].splitlines()[2].strip() == 'L["putMessageLock taken<br/>STORETIMESTAMP = now"]'
    assert markup.escape_mermaid_sources(fixed) == fixed  # idempotent
    markdown_page = '<pre class="mermaid"><code>graph TD\n  A["x&lt;br/&gt;y"]</code></pre>'
    assert markup.escape_mermaid_sources(markdown_page) == markdown_page


def test_only_published_notebooks_are_notebook_pages():
    assert markup.is_notebook_page("notebooks/01-store-putmessage.ipynb")
    assert markup.is_notebook_page("spark/01-commitlog-with-spark.ipynb")
    assert not markup.is_notebook_page("learn/glossary.md")
    assert not markup.is_notebook_page("notebooks/sub/x.ipynb")


def code_cell(tag: str, body: str) -> str:
    classes = f"jp-Cell jp-CodeCell jp-Notebook-cell celltag_{tag}"
    inner = f'<div class="{classes}" id="cell-id={tag}1"><div><pre>{body}</pre></div></div>'
    return f'<div class="{classes}">\n{inner}\n</div>'


def test_solution_cells_are_folded_and_exercise_cells_labelled():
    page = "<p>before</p>" + code_cell("exercise", "? q: not answered yet") + code_cell("solution", "\u2713 q: correct")
    page += "<p>after</p>"
    result = markup.mark_exercise_cells(markup.fold_solution_cells(page))
    assert result.count('<details class="mqlab-solution"><summary>Checked solution</summary>') == 1
    assert result.count('<div class="mqlab-exercise">') == 1
    assert result.startswith('<p>before</p><div class="mqlab-exercise"><div class="jp-Cell')
    assert result.endswith("</div></details><p>after</p>")
    cells = check_site.analyse_html(result).cells
    assert [(c.name, c.tags, c.folded) for c in cells] == [
        ("exercise1", {"exercise"}, False),
        ("solution1", {"solution"}, True),
    ]


def test_an_unclosed_cell_is_a_named_error():
    with pytest.raises(markup.UnbalancedCellError, match="never closed"):
        markup.fold_solution_cells('<div class="jp-Cell celltag_solution"><div></div>')


def test_dotted_names_in_table_cells_break_at_their_dots():
    page = (
        "<table><tr><td><code>mqlab.client.impl.pull_request</code>, <code>a.b</code></td></tr></table>"
        "<p><code>mqlab.store.commit_log</code></p>"
    )
    assert markup.break_dotted_names(page) == (
        "<table><tr><td><code>mqlab.<wbr>client.<wbr>impl.<wbr>pull_request</code>, <code>a.b</code></td></tr>"
        "</table><p><code>mqlab.store.commit_log</code></p>"
    )


# --- a tiny notebook site, built by mkdocs with the hook -----------------------------------------------------------


def output_cell(cell_id: str, source: str, text: str, tags: list[str], hidden: bool = False) -> dict:
    metadata: dict = {"tags": tags}
    if hidden:
        metadata["jupyter"] = {"source_hidden": True}
    return {
        "cell_type": "code",
        "execution_count": 1,
        "id": cell_id,
        "metadata": metadata,
        "outputs": [{"name": "stdout", "output_type": "stream", "text": text}],
        "source": source,
    }


def tiny_notebook(exercise_output: str = "? q{n}: not answered yet\n") -> dict:
    cells = [
        {
            "cell_type": "markdown",
            "id": "title",
            "metadata": {},
            "source": '# Tiny\n\n```mermaid\nflowchart TD\n    L["putMessageLock taken<br/>STORETIMESTAMP = now"]\n'
            "```\n",
        }
    ]
    for n in range(1, 4):
        cells += [
            output_cell(f"ex{n}", f"answer = ...\ncheck('q{n}', answer)", exercise_output.format(n=n), ["exercise"]),
            {
                "cell_type": "markdown",
                "id": f"why{n}",
                "metadata": {},
                "source": "<details><summary>Solution</summary>\n\nBecause.\n</details>",
            },
            output_cell(f"sol{n}", f"_ = solution('q{n}', {n})", f"\u2713 q{n}: correct\n", ["solution"], hidden=True),
        ]
    return {
        "cells": cells,
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def build_tiny_site(tmp_path: Path, notebook: dict) -> Path:
    docs = tmp_path / "docs"
    (docs / "notebooks").mkdir(parents=True)
    (docs / "javascripts").mkdir()
    shutil.copy(ROOT / "docs/javascripts/mermaid.min.js", docs / "javascripts")
    (docs / "index.md").write_text("# Home\n")
    (docs / "notebooks" / "00-tiny.ipynb").write_text(json.dumps(notebook))
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: tiny\ntheme:\n  name: material\n  font: false\n"
        "extra_javascript: [javascripts/mermaid.min.js]\n"
        f"hooks: [{HOOK}]\n"
        "plugins:\n  - mkdocs-jupyter:\n      execute: false\n"
    )
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--quiet", "-f", str(tmp_path / "mkdocs.yml")],
        check=True,
        cwd=tmp_path,
        capture_output=True,
    )
    return tmp_path / "site"


@pytest.mark.slow
def test_a_tagged_notebook_is_built_with_its_solutions_folded(tmp_path):
    site = build_tiny_site(tmp_path, tiny_notebook())
    page = (site / "notebooks/00-tiny/index.html").read_text(encoding="utf-8")
    report = check_site.analyse_html(page)
    assert [(c.name, c.folded) for c in report.cells if c.tags] == [
        ("ex1", False),
        ("sol1", True),
        ("ex2", False),
        ("sol2", True),
        ("ex3", False),
        ("sol3", True),
    ]
    assert page.count('<div class="mqlab-exercise">') == 3
    assert check_site.check_exercise_cells(report) == []
    assert report.mermaid_texts[0].count("<br/>") == 1  # the label's break survived as text


@pytest.mark.slow
def test_a_built_notebook_with_an_answered_exercise_fails(tmp_path):
    site = build_tiny_site(tmp_path, tiny_notebook(exercise_output="\u2713 q{n}: correct\n"))
    report = check_site.analyse_html((site / "notebooks/00-tiny/index.html").read_text(encoding="utf-8"))
    assert check_site.check_exercise_cells(report) == [
        f"exercise cell ex{n} shows a passed check: '\u2713 q{n}: correct'" for n in range(1, 4)
    ]


CHROMIUM = shutil.which("chromium") or shutil.which("/usr/bin/chromium")


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium")
def test_the_tiny_notebook_site_passes_the_site_check(tmp_path):
    site = build_tiny_site(tmp_path, tiny_notebook())
    assert check_site.check_site(site, [tmp_path / "docs" / "notebooks"], None, CHROMIUM) == []

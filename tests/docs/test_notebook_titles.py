"""A notebook's first line is its page title: plain text, so the site's <title> and <h1> read the same."""

from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted([*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("spark/*.ipynb")])
MARKUP = set("`*<>[]")  # rendered as code, emphasis, HTML or links: the <h1> text would differ from the <title>


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_title_is_one_plain_h1(path):
    first = nbformat.read(path, as_version=4).cells[0]
    assert first.cell_type == "markdown"
    title = first.source.splitlines()[0]
    assert title.startswith("# ") and title[2:].startswith(path.name[:2]), title
    assert not MARKUP & set(title[2:]), f"{path.name}: markup in the title {title!r}"

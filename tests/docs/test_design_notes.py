"""Design notes: at least eight, each in its notebook with its sources and a measuring cell, all listed on a page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown.extensions.toc import slugify

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "learn" / "design-notes.md"
HEADING = re.compile(r"^### Design note: (?P<title>.+)$", re.MULTILINE)


def notes() -> list[tuple[Path, int, str]]:
    found = []
    for path in sorted(ROOT.glob("notebooks/*.ipynb")):
        for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            match = HEADING.match("".join(cell["source"]))
            if cell["cell_type"] == "markdown" and match:
                found.append((path, index, match["title"]))
    return found


@pytest.mark.spec("TEACH-16")
def test_there_are_at_least_eight_notes_and_the_page_lists_each_with_its_anchor():
    found = notes()
    assert len(found) >= 8, [title for _, _, title in found]
    page = PAGE.read_text(encoding="utf-8")
    for path, _, title in found:
        link = f"../notebooks/{path.name}#{slugify('Design note: ' + title, '-')}"
        assert link in page, f"{path.name}: the design notes page does not link {link}"
    assert page.count("../notebooks/") == len(found)


@pytest.mark.spec("TEACH-16")
@pytest.mark.parametrize("where", notes(), ids=lambda note: note[0].stem)
def test_each_note_cites_its_sources_and_is_backed_by_a_measurement(where):
    path, index, title = where
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = "".join(cells[index]["source"])
    assert len(text.split()) <= 300, f"{title}: {len(text.split())} words"
    links = re.findall(r"\]\((https?://[^)]+)\)", text)
    assert any("rocketmq-all-4.9.3" in link for link in links), f"{title}: cites no 4.9.3 source"
    assert any("rocketmq-all-4.9.3" not in link for link in links), f"{title}: cites no other system"
    measured = next((cell for cell in cells[index + 1 :] if cell["cell_type"] == "code"), None)
    assert measured is not None and measured.get("outputs"), f"{title}: no measuring cell with output after it"

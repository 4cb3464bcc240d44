"""Order and name the top-level sections of the automatic navigation.

The nav is not written in ``mkdocs.yml``: mkdocs builds it from the files (so new spec pages, notebooks and API
pages appear by themselves), in alphabetical order. This hook only puts the top-level sections in reading order,
renames the ones whose directory name reads badly, and redoes the previous/next links to match.

Java: none (docs build tooling).
"""

from __future__ import annotations

from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page

# Directory-derived title -> (position, shown title). Sections not listed keep their title and go last.
SECTIONS = {
    "Spec": (1, "Spec"),
    "Notebooks": (2, "Notebooks"),
    "Api": (3, "API reference"),
    "Reference": (4, "Reference"),
}


def _pages(items) -> list[Page]:
    found = []
    for item in items:
        if isinstance(item, Page):
            found.append(item)
        elif isinstance(item, Section):
            found.extend(_pages(item.children))
    return found


def _position(item) -> int:
    if isinstance(item, Section):
        return SECTIONS.get(item.title, (len(SECTIONS) + 1, item.title))[0]
    return 0  # top-level pages (the home page) first


def on_nav(nav: Navigation, config, files) -> Navigation:
    """Sort the top-level sections, rename them, and relink previous/next in the new order."""
    nav.items.sort(key=_position)  # stable: pages inside a section keep mkdocs' order
    for item in nav.items:
        if isinstance(item, Section) and item.title in SECTIONS:
            item.title = SECTIONS[item.title][1]
    nav.pages = _pages(nav.items)
    for index, page in enumerate(nav.pages):
        page.previous_page = nav.pages[index - 1] if index > 0 else None
        page.next_page = nav.pages[index + 1] if index + 1 < len(nav.pages) else None
    return nav

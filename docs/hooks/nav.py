"""Order and name the top-level sections of the automatic navigation.

The nav is not written in ``mkdocs.yml``: mkdocs builds it from the files (so new spec pages, notebooks and API
pages appear by themselves), in alphabetical order. This hook puts the top-level sections in reading order (the
learning path first, the performance pages last), renames the ones whose directory name reads badly, orders the
pages of the learning path as a reader takes them, gathers the loose performance pages into one section, and redoes
the previous/next links to match.

Java: none (docs build tooling).
"""

from __future__ import annotations

from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page

# Directory-derived title -> (position, shown title). Sections not listed keep their title and go after these.
SECTIONS = {
    "Learn": (1, "Learning path"),
    "Spec": (2, "Spec"),
    "Notebooks": (3, "Notebooks"),
    "Labs": (4, "Labs"),
    "Spark": (5, "Spark track"),
    "Api": (6, "API reference"),
    "Reference": (7, "Reference"),
}
UNLISTED_POSITION = len(SECTIONS) + 1

# Top-level pages gathered into a section of their own, shown last: (title, source files in order).
LAST_SECTION = ("Performance", ("performance.md", "performance-clients.md"))
LAST_POSITION = UNLISTED_POSITION + 1

# Top-level pages placed among the sections (other top-level pages, the home page, come first).
PAGE_POSITIONS = {"experiments.md": 1.5}  # right after the learning path

# Pages of a section in reading order (source paths); pages not listed follow in mkdocs' order.
PAGE_ORDER = {
    "Learn": (
        "learn/index.md",
        "learn/reading-guide.md",
        "learn/glossary.md",
        "learn/design-notes.md",
        "learn/seeds-vs-4.9.3.md",
        "learn/interview-questions.md",
    ),
}


def _pages(items) -> list[Page]:
    found = []
    for item in items:
        if isinstance(item, Page):
            found.append(item)
        elif isinstance(item, Section):
            found.extend(_pages(item.children))
    return found


def _position(item) -> float:
    if isinstance(item, Section):
        if item.title == LAST_SECTION[0]:
            return LAST_POSITION
        return SECTIONS.get(item.title, (UNLISTED_POSITION, item.title))[0]
    if isinstance(item, Page):
        return PAGE_POSITIONS.get(item.file.src_uri, 0)
    return 0  # top-level pages (the home page) first


def _gather_last_section(nav: Navigation) -> None:
    """Move the listed top-level pages into one section (their URLs do not change)."""
    title, sources = LAST_SECTION
    pages = [item for item in nav.items if isinstance(item, Page) and item.file.src_uri in sources]
    if not pages:
        return
    pages.sort(key=lambda page: sources.index(page.file.src_uri))
    section = Section(title, pages)
    for page in pages:
        page.parent = section
        nav.items.remove(page)
    nav.items.append(section)


def _order_pages(section: Section, order: tuple[str, ...]) -> None:
    def key(item) -> int:
        if isinstance(item, Page) and item.file.src_uri in order:
            return order.index(item.file.src_uri)
        return len(order)

    section.children.sort(key=key)  # stable: unlisted pages keep mkdocs' order


def on_nav(nav: Navigation, config, files) -> Navigation:
    """Sort the top-level sections, rename them, order the learning path, and relink previous/next."""
    _gather_last_section(nav)
    nav.items.sort(key=_position)  # stable: pages inside a section keep mkdocs' order
    for item in nav.items:
        if isinstance(item, Section):
            if item.title in PAGE_ORDER:
                _order_pages(item, PAGE_ORDER[item.title])
            if item.title in SECTIONS:
                item.title = SECTIONS[item.title][1]
    nav.pages = _pages(nav.items)
    for index, page in enumerate(nav.pages):
        page.previous_page = nav.pages[index - 1] if index > 0 else None
        page.next_page = nav.pages[index + 1] if index + 1 < len(nav.pages) else None
    return nav

"""Generate ``reference/java-map.md`` from ``reference/java-map.csv``, with links to the API and the Java source.

Each row's Python side links to its API entry and its Java class to the class's declaration at tag
``rocketmq-all-4.9.3``. On every page, a link to a whole Java file at the tag gets its class's line. The Java lines
come from the committed ``reference/java-lines.csv`` (see ``tools/java_lines.py``).

Java: none (docs build tooling).
"""

from __future__ import annotations

import logging
import posixpath

import _common
from mkdocs.structure.files import Files

log = logging.getLogger("mkdocs.hooks.java_map")

PAGE = "reference/java-map.md"
CSV = "reference/java-map.csv"
LINES_CSV = "reference/java-lines.csv"

# Source path -> line of the class it is named after, for on_page_content (read in on_files).
_file_lines: dict[str, int] = {}


def _api_link_finder(config):
    """A function: dotted Python path -> link (relative to PAGE) to its API entry, or None if not documented."""
    from tools import api_pages

    package_dir = _common.repo_root(config) / api_pages.PACKAGE
    documented = set(api_pages.discover_modules(package_dir))
    subpackages = api_pages.top_level_subpackages(package_dir) if package_dir.is_dir() else set()

    def link_for(python: str) -> str | None:
        parts = python.split(".")
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            if module in documented:
                page = api_pages.page_for_module(module, subpackages)
                return f"{posixpath.relpath(page, posixpath.dirname(PAGE))}#{python}"
        return None

    return link_for


def _java_tables(config):
    from mqlab.teaching import java_links

    reference = _common.repo_root(config) / "docs" / "reference"
    try:
        return java_links.load_tables(reference / "java-lines.csv", reference / "java-map.csv")
    except ValueError as error:  # a malformed table: say where, and fail a strict build
        log.warning("Java source links not added: %s", error)
        return java_links.JavaTables()


def on_files(files: Files, config) -> Files:
    """Add the generated Java map page."""
    _common.import_tools(config)
    from tools import java_lines, java_map

    csv_path = _common.repo_root(config) / java_map.CSV_PATH
    rows = []
    if csv_path.exists():
        try:
            rows = [located.row for located in java_map.read_rows(csv_path, header=True)]
        except ValueError as error:  # a malformed table: say where, and fail a strict build
            log.warning("Java map not rendered: %s", error)
    csv_link = posixpath.relpath(CSV, posixpath.dirname(PAGE)) if csv_path.exists() else "#"
    content = java_map.render_markdown(rows, _api_link_finder(config), csv_link=csv_link)
    tables = _java_tables(config)
    content = java_lines.link_java_classes(content, tables)
    lines_link = posixpath.relpath(LINES_CSV, posixpath.dirname(PAGE))
    content += (
        f"\nEach Java class links to its declaration at tag `rocketmq-all-4.9.3`; the lines are "
        f"[java-lines.csv]({lines_link}), computed from the source by `tools/java_lines.py`.\n"
    )
    _common.put_generated(files, config, PAGE, content)
    _file_lines.clear()
    _file_lines.update(java_lines.file_lines(tables))
    return files


def on_page_content(html: str, page, config, files) -> str:
    """Give every link to a whole Java file the line of the class it is named after."""
    from tools import java_lines

    return java_lines.anchor_java_links(html, _file_lines)

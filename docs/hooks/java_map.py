"""Generate ``reference/java-map.md`` from ``reference/java-map.csv``, linking each class to its API entry.

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


def on_files(files: Files, config) -> Files:
    """Add the generated Java map page."""
    _common.import_tools(config)
    from tools import java_map

    csv_path = _common.repo_root(config) / java_map.CSV_PATH
    rows = []
    if csv_path.exists():
        try:
            rows = [located.row for located in java_map.read_rows(csv_path, header=True)]
        except ValueError as error:  # a malformed table: say where, and fail a strict build
            log.warning("Java map not rendered: %s", error)
    csv_link = posixpath.relpath(CSV, posixpath.dirname(PAGE)) if csv_path.exists() else "#"
    content = java_map.render_markdown(rows, _api_link_finder(config), csv_link=csv_link)
    _common.put_generated(files, config, PAGE, content)
    return files

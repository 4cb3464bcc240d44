"""Generate ``reference/traceability.md`` and anchor the ids on the spec pages.

The page is rebuilt from ``docs/spec`` and ``tests`` at every build (see ``tools/traceability.py``). On spec
pages, each definition's bold id gets an anchor (``#MSG-3``) and links to its row in the traceability table.

Java: none (docs build tooling).
"""

from __future__ import annotations

import posixpath

import _common
from mkdocs.structure.files import Files

PAGE = "reference/traceability.md"


def on_files(files: Files, config) -> Files:
    """Add the generated traceability page."""
    _common.import_tools(config)
    from tools import traceability

    trace = traceability.build(_common.repo_root(config))
    _common.put_generated(files, config, PAGE, traceability.render_markdown(trace, page=PAGE))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    """On spec pages, turn each defining ``**ID**`` into an anchored link to its traceability row."""
    src_uri = page.file.src_uri
    if not src_uri.startswith("spec/"):
        return markdown
    from tools import traceability

    target = posixpath.relpath(PAGE, posixpath.dirname(src_uri))
    return traceability.link_definitions(markdown, lambda spec_id: f"{target}#{spec_id}")


def on_serve(server, config, builder):
    """Rebuild when tests change, since the page lists them."""
    tests = _common.repo_root(config) / "tests"
    if tests.is_dir():
        server.watch(str(tests))
    return server

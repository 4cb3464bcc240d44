"""Generate the API reference pages (``api/*.md``) from the package's modules at build time.

See ``tools/api_pages.py``: one page per top-level subpackage with a mkdocstrings block per module, so a module
added to ``mqlab/`` is documented without editing the docs. Each object with a Java twin gets a link to it at tag
``rocketmq-all-4.9.3`` beside its heading, with the line from ``reference/java-lines.csv`` (read from the committed
table: the build needs neither RocketMQ's source nor the network).

Java: none (docs build tooling).
"""

from __future__ import annotations

import logging

import _common
from mkdocs.structure.files import Files

log = logging.getLogger("mkdocs.hooks.api_pages")

# Dotted Python path -> (Java key, URL), computed once per build in on_files.
_java_links: dict[str, tuple[str, str]] = {}


def _compute_java_links(config) -> dict[str, tuple[str, str]]:
    from mqlab.teaching import java_links
    from tools import api_pages

    root = _common.repo_root(config)
    reference = root / "docs" / "reference"
    try:
        tables = java_links.load_tables(reference / "java-lines.csv", reference / "java-map.csv")
    except ValueError as error:  # a malformed table: say where, and fail a strict build
        log.warning("Java links not added: %s", error)
        return {}
    cited = java_links.package_citations(root / api_pages.PACKAGE, tables.classes, tables.python_to_java)
    return java_links.static_links(cited, tables)


def on_files(files: Files, config) -> Files:
    """Add ``api/index.md`` and one page per subpackage; read the Java links for them."""
    _common.import_tools(config)
    from tools import api_pages

    package_dir = _common.repo_root(config) / api_pages.PACKAGE
    for page, content in api_pages.render_all(package_dir).items():
        _common.put_generated(files, config, page, content)
    _java_links.clear()
    _java_links.update(_compute_java_links(config))
    return files


def on_page_content(html: str, page, config, files) -> str:
    """On an API page, put each mirrored object's Java link beside its heading."""
    from tools import api_pages

    if not page.file.src_uri.startswith(f"{api_pages.API_DIR}/"):
        return html
    return api_pages.add_java_links(html, _java_links)


def on_serve(server, config, builder):
    """Rebuild when the package's sources change."""
    _common.import_tools(config)
    from tools import api_pages

    server.watch(str(_common.repo_root(config) / api_pages.PACKAGE))
    return server

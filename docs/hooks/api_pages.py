"""Generate the API reference pages (``api/*.md``) from the package's modules at build time.

See ``tools/api_pages.py``: one page per top-level subpackage with a mkdocstrings block per module, so a module
added to ``mqlab/`` is documented without editing the docs.

Java: none (docs build tooling).
"""

from __future__ import annotations

import _common
from mkdocs.structure.files import Files


def on_files(files: Files, config) -> Files:
    """Add ``api/index.md`` and one page per subpackage."""
    _common.import_tools(config)
    from tools import api_pages

    package_dir = _common.repo_root(config) / api_pages.PACKAGE
    for page, content in api_pages.render_all(package_dir).items():
        _common.put_generated(files, config, page, content)
    return files


def on_serve(server, config, builder):
    """Rebuild when the package's sources change."""
    _common.import_tools(config)
    from tools import api_pages

    server.watch(str(_common.repo_root(config) / api_pages.PACKAGE))
    return server

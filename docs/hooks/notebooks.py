"""Publish the repository's ``notebooks/*.ipynb`` as site pages ``notebooks/<name>/``.

The notebooks live at the repository root (where Jupyter and nbval run them), outside ``docs_dir``. This hook
adds each one to the site's files as ``notebooks/<name>.ipynb`` with the repository root as its source directory,
so mkdocs-jupyter renders it like any page under ``docs/``. (``File.generated(..., abs_src_path=...)`` does not
work here: mkdocs-jupyter's page wrapper recomputes the source path from ``src_dir``, which a generated file lacks.)
The hook runs before mkdocs-jupyter's own ``on_files`` (which wraps notebooks as pages), hence the raised event
priority. A build with no notebooks is fine: the section is simply absent.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

NOTEBOOKS_DIR = "notebooks"


def notebooks_dir(config) -> Path:
    """Directory holding the notebooks: ``notebooks/`` beside ``mkdocs.yml``."""
    return Path(config.config_file_path).resolve().parent / NOTEBOOKS_DIR


@event_priority(100)
def on_files(files: Files, config) -> Files:
    """Add every ``notebooks/*.ipynb`` as ``notebooks/<name>.ipynb`` in the site's files."""
    for path in sorted(notebooks_dir(config).glob("*.ipynb")):
        src_uri = f"{NOTEBOOKS_DIR}/{path.name}"
        if files.get_file_from_path(src_uri) is None:
            files.append(File(src_uri, str(path.parent.parent), config.site_dir, config.use_directory_urls))
    return files


def on_serve(server, config, builder):
    """Rebuild on notebook edits under ``mkdocs serve``."""
    folder = notebooks_dir(config)
    if folder.is_dir():
        server.watch(str(folder))
    return server

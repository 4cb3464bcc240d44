"""Publish the repository's notebooks (``notebooks/*.ipynb``, ``spark/*.ipynb``) as site pages ``<folder>/<name>/``.

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
# Every folder of notebooks the site renders: the flow notebooks, then the Spark track.
NOTEBOOK_DIRS = (NOTEBOOKS_DIR, "spark")


def notebooks_dir(config, name: str = NOTEBOOKS_DIR) -> Path:
    """Directory holding a folder of notebooks (``notebooks/`` by default) beside ``mkdocs.yml``."""
    return Path(config.config_file_path).resolve().parent / name


@event_priority(100)
def on_files(files: Files, config) -> Files:
    """Add every ``<folder>/*.ipynb`` of ``NOTEBOOK_DIRS`` as ``<folder>/<name>.ipynb`` in the site's files."""
    for folder in NOTEBOOK_DIRS:
        for path in sorted(notebooks_dir(config, folder).glob("*.ipynb")):
            src_uri = f"{folder}/{path.name}"
            if files.get_file_from_path(src_uri) is None:
                files.append(File(src_uri, str(path.parent.parent), config.site_dir, config.use_directory_urls))
    return files


def on_serve(server, config, builder):
    """Rebuild on notebook edits under ``mkdocs serve``."""
    for name in NOTEBOOK_DIRS:
        folder = notebooks_dir(config, name)
        if folder.is_dir():
            server.watch(str(folder))
    return server

"""Shared by the docs hooks: the repository root and access to ``tools``.

Java: none (docs build tooling).
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File, Files


def repo_root(config) -> Path:
    """The directory holding ``mkdocs.yml`` (the repository root)."""
    return Path(config.config_file_path).resolve().parent


def import_tools(config) -> None:
    """Make the repository's ``tools`` package importable from a hook."""
    root = str(repo_root(config))
    if root not in sys.path:
        sys.path.insert(0, root)


def put_generated(files: Files, config, src_uri: str, content: str) -> None:
    """Add a page generated at build time, replacing any file already at ``src_uri``."""
    existing = files.get_file_from_path(src_uri)
    if existing is not None:
        files.remove(existing)
    files.append(File.generated(config, src_uri, content=content))

"""Base of the broker's JSON config files: load with a ``.bak`` fallback, persist through a ``.tmp`` file.

Java: org.apache.rocketmq.common.ConfigManager (rocketmq-all-4.9.3), with MixAll#string2File / #file2String

``persist`` writes the pretty-printed JSON to ``<file>.tmp``, copies the current content to ``<file>.bak``, then
replaces the file with the temporary one; ``load`` reads the file, or ``<file>.bak`` when the file is missing,
empty or unreadable. Subclasses say where the file is and how to encode and decode their content.
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from pathlib import Path


class ConfigManager(ABC):
    """A piece of broker state kept in one JSON file (topics, offsets, subscription groups, delay offsets)."""

    _file_lock = threading.Lock()  # Java's string2File is static synchronized

    @abstractmethod
    def config_file_path(self) -> str | os.PathLike[str]:
        """Where the file lives. Java: ConfigManager#configFilePath."""

    @abstractmethod
    def encode(self, pretty_format: bool = False) -> str:
        """The content as JSON. Java: ConfigManager#encode."""

    @abstractmethod
    def decode(self, json_string: str) -> None:
        """Take the content from JSON (raises on bad content). Java: ConfigManager#decode."""

    def load(self) -> bool:
        """Read the file (or its backup); a missing file is an empty config, unreadable content falls back.

        Java: ConfigManager#load
        """
        path = Path(self.config_file_path())
        text = _read(path)
        if not text:
            return self.load_bak()
        try:
            self.decode(text)
        except ValueError:
            return self.load_bak()
        return True

    def load_bak(self) -> bool:
        """Read ``<file>.bak``. Java: ConfigManager#loadBak."""
        text = _read(Path(str(self.config_file_path()) + ".bak"))
        if text:
            try:
                self.decode(text)
            except ValueError:
                return False
        return True

    def persist(self) -> None:
        """Write the pretty-printed JSON safely. Java: ConfigManager#persist."""
        text = self.encode(True)
        if text is not None:
            string2file(text, self.config_file_path())


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return None


def string2file(text: str, file_name: str | os.PathLike[str]) -> None:
    """``<file>.tmp``, then the old content to ``<file>.bak``, then rename. Java: MixAll#string2File."""
    path = Path(file_name)
    with ConfigManager._file_lock:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(str(path) + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        previous = _read(path)
        if previous is not None:
            Path(str(path) + ".bak").write_text(previous, encoding="utf-8")
        os.replace(tmp, path)

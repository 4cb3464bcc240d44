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

from mqlab.common.constant.logger_name import COMMON_LOGGER_NAME, get_logger

_LOG = get_logger(COMMON_LOGGER_NAME)


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

        Java: ConfigManager#load. Java also starts when the file is unreadable and there is no backup, and its next
        persist then overwrites the file; mqlab refuses instead (``False``, with the file named in the log), so
        nothing is lost (HARD-7).
        """
        path = Path(self.config_file_path())
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = None
        except (UnicodeDecodeError, OSError) as exc:
            return self._load_bak_after(path, f"unreadable: {exc}")
        if not text:
            return self.load_bak()
        try:
            self.decode(text)
        except ValueError as exc:
            return self._load_bak_after(path, f"not valid content: {exc}")
        return True

    def _load_bak_after(self, path: Path, problem: str) -> bool:
        bak = Path(str(path) + ".bak")
        if not _read(bak):
            _LOG.error("%s is %s, and there is no backup to load instead: refusing to start over it", path, problem)
            self.load_failure = f"{path} is {problem}, and {bak.name} is missing or empty"
            return False
        _LOG.warning("%s is %s; loading %s instead", path, problem, bak.name)
        return self.load_bak()

    # Why the last load refused (for the start-up error), or None.
    load_failure: str | None = None

    def load_bak(self) -> bool:
        """Read ``<file>.bak``. Java: ConfigManager#loadBak."""
        text = _read(Path(str(self.config_file_path()) + ".bak"))
        if text:
            try:
                self.decode(text)
            except ValueError as exc:
                self.load_failure = f"{self.config_file_path()}.bak is not valid content: {exc}"
                return False
        return True

    def persist(self) -> bool:
        """Write the pretty-printed JSON safely; a failed write is logged and leaves the old file whole.

        Java: ConfigManager#persist (which logs the IOException too: a full disk must not stop the broker)

        Returns:
            Whether the file was written.
        """
        text = self.encode(True)
        if text is None:
            return False
        try:
            string2file(text, self.config_file_path())
        except OSError as exc:
            _LOG.error("persist file %s exception: %s (the previous content is kept)", self.config_file_path(), exc)
            return False
        return True


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

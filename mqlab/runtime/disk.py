"""How full the disk under a path is: the real file system, or a simulated disk a notebook can fill.

Java: none (RocketMQ asks ``java.io.File#getTotalSpace/getFreeSpace/getUsableSpace``; mqlab asks the runtime).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True, slots=True)
class DiskSpace:
    """Bytes of a partition: total, free (incl. reserved blocks) and usable by this process."""

    total: int
    free: int
    usable: int


class Disk(Protocol):
    """Reports the space of the partition holding a path."""

    def space(self, path: str | os.PathLike[str]) -> DiskSpace:
        """Space of the partition holding ``path``."""
        ...


class RealDisk:
    """The machine's file systems (``statvfs``)."""

    def space(self, path: str | os.PathLike[str]) -> DiskSpace:
        """Ask the file system; a path that does not exist yet is measured at its nearest existing parent."""
        target = Path(path)
        while not target.exists() and target != target.parent:
            target = target.parent
        st = os.statvfs(target)
        return DiskSpace(st.f_blocks * st.f_frsize, st.f_bfree * st.f_frsize, st.f_bavail * st.f_frsize)


class SimulatedDisk:
    """A disk of ``total_bytes`` holding the store's real files plus ``other_used_bytes`` of someone else's data.

    The store's share is measured from the files under the asked path, so writing messages fills this disk and
    deleting segments frees it; a notebook raises ``other_used_bytes`` to push usage past RocketMQ's thresholds.
    """

    def __init__(self, total_bytes: int = 64 * 1024**3, other_used_bytes: int = 0):
        self.total_bytes = total_bytes
        self.other_used_bytes = other_used_bytes

    def used_by_files(self, path: str | os.PathLike[str]) -> int:
        """Bytes of the regular files under ``path``."""
        root = Path(path)
        if root.is_file():
            return root.stat().st_size
        return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.is_dir() else 0

    def space(self, path: str | os.PathLike[str]) -> DiskSpace:
        """Total, and what is left after the files under ``path`` and the other data."""
        used = min(self.used_by_files(path) + self.other_used_bytes, self.total_bytes)
        free = self.total_bytes - used
        return DiskSpace(self.total_bytes, free, free)

    def fill_to_ratio(self, path: str | os.PathLike[str], ratio: float) -> None:
        """Set ``other_used_bytes`` so the disk is ``ratio`` (0..1) full with the files now under ``path``."""
        self.other_used_bytes = max(int(self.total_bytes * ratio) - self.used_by_files(path), 0)

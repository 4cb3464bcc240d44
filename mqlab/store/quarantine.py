"""Where the store keeps bytes it will no longer serve but must not destroy: cut CommitLog data, damaged ConsumeQueues.

Java: none (mqlab). RocketMQ 4.9.3's recovery ends the CommitLog at the first record that fails its checks and
deletes the segments after it (``MappedFileQueue#truncateDirtyFiles``); one flipped byte can so delete gigabytes of
intact messages. mqlab keeps that visible behaviour (the store ends where 4.9.3's would) but moves what it cuts
here first, and moves a ConsumeQueue directory it cannot load here before rebuilding it (docs/spec/hardening.md).

Layout below ``<root>/quarantine/``::

    commitlog/<cut offset, 20 digits>[.<n>]/   one entry per cut
        manifest.json                           why, when, where, and the files
        <20-digit offset>                       bytes of the CommitLog from that absolute offset on
    consumequeue/<topic>/<queueId>[.<n>]/      a ConsumeQueue directory as it was found

An entry is never overwritten: a second cut at the same offset gets the suffix ``.1``, then ``.2``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mqlab.common.message import message_record_layout as layout
from mqlab.common.util_all import offset2file_name
from mqlab.store.mapped_file import last_non_zero
from mqlab.store.store_inspector import RecordRow, records

if TYPE_CHECKING:
    from mqlab.store.mapped_file_queue import MappedFileQueue

QUARANTINE_DIR = "quarantine"
MANIFEST = "manifest.json"
_CHUNK = 1 << 20  # bytes copied at a time


def quarantine_root(store_root: str | os.PathLike[str]) -> Path:
    """``<root>/quarantine``."""
    return Path(store_root) / QUARANTINE_DIR


def _fresh_dir(path: Path) -> Path:
    """``path``, or ``path.1``, ``path.2``... whichever does not exist yet; created."""
    candidate, n = path, 0
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}.{n}")
    candidate.mkdir(parents=True)
    return candidate


def move_consume_queue(store_root: str | os.PathLike[str], queue_dir: Path) -> Path:
    """Move a ConsumeQueue directory (``.../<topic>/<queueId>``) into the quarantine; return where it went."""
    parent = quarantine_root(store_root) / "consumequeue" / queue_dir.parent.name
    parent.mkdir(parents=True, exist_ok=True)
    target = _fresh_dir(parent / queue_dir.name)
    target.rmdir()  # shutil.move wants to create it: the name is reserved by the check above
    shutil.move(str(queue_dir), str(target))
    return target


def _keep_whole_file(source: Path, target: Path) -> None:
    """A hard link where the file system allows it (no copy: the segment is deleted right after), else a copy."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def quarantine_commit_log_cut(
    store_root: str | os.PathLike[str],
    mapped_file_queue: MappedFileQueue,
    offset: int,
    *,
    reason: str | None,
    mode: str,
    now_ms: int,
) -> Path | None:
    """Keep every non-zero byte at or after CommitLog ``offset`` before recovery cuts there.

    The segment holding ``offset`` gives the bytes from ``offset`` to its last non-zero byte (a file named by
    ``offset``); every later segment is kept whole (named by its own start offset). Nothing is written when there
    is nothing but zeros to cut (the usual end of a store that stopped cleanly).

    Returns:
        The entry's directory, or ``None`` when nothing was kept.
    """
    size = mapped_file_queue.mapped_file_size
    pieces = []
    for mapped_file in mapped_file_queue.mapped_files:
        start = max(offset - mapped_file.file_from_offset, 0)
        if start >= size:
            continue
        end = last_non_zero(mapped_file.slice_byte_buffer(), start, size)
        if end > start:
            pieces.append((mapped_file, start, end))
    if not pieces:
        return None
    entry = _fresh_dir(quarantine_root(store_root) / "commitlog" / offset2file_name(offset))
    files = []
    for mapped_file, start, end in pieces:
        begin = mapped_file.file_from_offset + start
        target = entry / offset2file_name(begin)
        if start == 0 and end == size:
            _keep_whole_file(mapped_file.file, target)
        else:
            with open(target, "wb") as out:
                buf = mapped_file.slice_byte_buffer()
                for low in range(start, end, _CHUNK):
                    out.write(buf[low : min(end, low + _CHUNK)])
        files.append(
            {"name": target.name, "startOffset": begin, "bytes": end - start, "segment": mapped_file.file.name}
        )
    manifest = {
        "kind": "commitlog-cut",
        "mode": mode,
        "cutAt": offset,
        "reason": reason or "end of readable data",
        "timestamp": now_ms,
        "files": files,
    }
    (entry / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return entry


# -- reading the quarantine back -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class QuarantineEntry:
    """One entry: a CommitLog cut or a ConsumeQueue directory."""

    kind: str  # "commitlog-cut" or "consumequeue"
    name: str  # path relative to the quarantine directory
    bytes: int
    files: int
    detail: str


def list_entries(store_root: str | os.PathLike[str]) -> list[QuarantineEntry]:
    """Every entry of the store's quarantine, CommitLog cuts first, each in name order."""
    root = quarantine_root(store_root)
    entries: list[QuarantineEntry] = []
    for entry in sorted((root / "commitlog").glob("*")) if (root / "commitlog").is_dir() else []:
        manifest = read_manifest(entry)
        data = [f for f in entry.iterdir() if f.name != MANIFEST]
        detail = f"{manifest.get('mode', '?')} recovery cut at {manifest.get('cutAt')}: {manifest.get('reason')}"
        entries.append(
            QuarantineEntry(
                "commitlog-cut", str(entry.relative_to(root)), sum(f.stat().st_size for f in data), len(data), detail
            )
        )
    cq_root = root / "consumequeue"
    for queue_dir in sorted(cq_root.glob("*/*")) if cq_root.is_dir() else []:
        data = [f for f in queue_dir.iterdir() if f.is_file()]
        entries.append(
            QuarantineEntry(
                "consumequeue",
                str(queue_dir.relative_to(root)),
                sum(f.stat().st_size for f in data),
                len(data),
                "damaged ConsumeQueue, rebuilt from the CommitLog",
            )
        )
    return entries


def read_manifest(entry: Path) -> dict:
    """The entry's ``manifest.json`` (empty when missing or unreadable)."""
    with contextlib.suppress(OSError, ValueError):
        return json.loads((entry / MANIFEST).read_text())
    return {}


def cut_records(entry: str | os.PathLike[str]) -> list[RecordRow]:
    """The records of a CommitLog cut, file by file, stepping over unreadable records whose TOTALSIZE is plausible.

    The first record of a cut is usually the one that failed recovery's check; a reader wants to see what follows
    it. After an unreadable record the walk goes on at ``offset + TOTALSIZE`` when that stays inside the file and the
    size is at least a record's fixed part; otherwise the rest of the file is given up (one ``unreadable`` row).
    """
    rows: list[RecordRow] = []
    for path in sorted(p for p in Path(entry).iterdir() if p.name.isdigit()):
        data = path.read_bytes()
        base, pos = int(path.name), 0
        while pos < len(data):
            found = records(memoryview(data)[pos:], base + pos)
            rows.extend(found)
            if not found or found[-1].kind != "unreadable":
                break
            bad = found[-1]
            pos = bad.offset - base
            if bad.size < layout.cal_msg_length(0, 0, 0, 0) or pos + bad.size > len(data):
                break
            pos += bad.size
    return rows

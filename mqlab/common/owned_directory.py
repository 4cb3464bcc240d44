"""Which directories a command may empty or delete: only those it can prove are mqlab's own.

Java: none (mqlab's command line). RocketMQ's tools never delete a directory they were pointed at; mqlab's
``quickstart``, ``gen-store --replace``, ``chaos run --out`` and ``analyze --out`` start from a clean directory, and
before this module existed they emptied whatever path they were given (``--store .`` emptied the current directory).

A command now writes into a directory only when one of these holds, and otherwise refuses with one line naming the
path, what is in the way, and what to do:

* the directory does not exist or is empty (nothing is deleted);
* it holds only what mqlab writes there (a **layout**: a store's ``commitlog/``, ``consumequeue/``, ``index/``,
  ``config/``, ``checkpoint``, ``abort``, ``lock``, ``quarantine/`` with the file names the store gives them, or a
  cluster of such stores), checked file by file, so a stranger's file anywhere below is found and named;
* it carries the **marker** file the same command wrote when it created the directory (for outputs such as Parquet
  tables, whose file names are Spark's).

Even then, ``/``, the home directory, the current directory and the directories above it are never emptied, and a
symbolic link is never followed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Union

MARKER_NAME = ".mqlab-output"  # written by a command into the directory it created for its output

# A layout is a tree of name patterns: a pattern maps to FILE (a regular file), ANY (a directory whose content
# mqlab's command does not name itself, such as Spark's Parquet part files) or the layout of a directory.
FILE = "file"
ANY = "any"
Layout = dict[str, Union[str, "Layout"]]

_D20 = r"\d{20}"  # a CommitLog or ConsumeQueue file: its first offset, 20 digits (UtilAll#offset2FileName)
_TOPIC = r"[%|A-Za-z0-9_-]+"  # TopicValidator's characters
_NAME = r"(?!\.\.?$)[^/\\]+"  # any single path component (a client id such as 10.0.2.4@DEFAULT)
_JSON_FILE = r"[A-Za-z]+\.json(\.bak|\.tmp)?"  # MixAll#string2File writes name, name.bak and name.tmp

STORE_LAYOUT: Layout = {
    "commitlog": {_D20: FILE},
    "consumequeue|consumequeue_ext": {_TOPIC: {r"\d+": {_D20: FILE}}},
    "index": {r"\d{17}": FILE},  # yyyyMMddHHmmssSSS of the file's creation (UtilAll#timeMillisToHumanString)
    "config": {_JSON_FILE: FILE},
    "checkpoint|abort|lock": FILE,
    "quarantine": {
        "commitlog": {_D20 + r"(\.\d+)?": {_D20 + r"|manifest\.json": FILE}},
        "consumequeue": {_TOPIC: {r"\d+(\.\d+)?": {_D20: FILE}}},
    },
}
_OFFSETS_FILES: Layout = {_NAME: {_NAME: {r"offsets\.json(\.bak|\.tmp)?": FILE}}}  # <clientId>/<group>/offsets.json
CLUSTER_LAYOUT: Layout = {
    "namesrv": {r"kvConfig\.json(\.bak|\.tmp)?": FILE},
    r"broker-[a-z](-s\d+)?": {"store": STORE_LAYOUT},
}
GENERATED_LAYOUT: Layout = {**CLUSTER_LAYOUT, r"manifest\.json": FILE, "clients": _OFFSETS_FILES}  # gen-store
CHAOS_LAYOUT: Layout = {**CLUSTER_LAYOUT, "offsets": {_NAME: _OFFSETS_FILES}}  # a chaos run's root
CHAOS_OUT_LAYOUT: Layout = {r"runs\.jsonl|summary\.txt": FILE, "runs|summary": ANY}  # chaos run --out
ANALYZE_OUT_LAYOUT: Layout = {  # analyze --out; .spark-tmp is left behind only by a run that was killed
    "tables": {_NAME: ANY},
    "plots": {r"[\w-]+\.png": FILE},
    r"report\.md": FILE,
    r"\.spark-tmp": ANY,
}


class ForeignDirectoryError(ValueError):
    """A command refused to empty or delete a directory it cannot prove is mqlab's; nothing was changed."""


def stranger(root: Path, layout: Layout) -> str | None:
    """The first entry below ``root`` that ``layout`` does not allow (relative, ``/`` after a directory), or None."""
    compiled = [(re.compile(pattern), sub) for pattern, sub in layout.items()]
    for entry in sorted(root.iterdir()):
        match = next((sub for pattern, sub in compiled if pattern.fullmatch(entry.name)), None)
        if entry.is_symlink() or match is None:
            return entry.name + ("/" if entry.is_dir() and not entry.is_symlink() else "")
        if match == FILE:
            if not entry.is_file():
                return entry.name + "/"
            continue
        if match == ANY:
            if not entry.is_dir():
                return entry.name
            continue
        if not entry.is_dir():
            return entry.name
        below = stranger(entry, match)  # type: ignore[arg-type]
        if below is not None:
            return f"{entry.name}/{below}"
    return None


def marker_owner(root: Path) -> str | None:
    """The command named by ``root``'s marker file, or None if there is no readable marker."""
    try:
        return str(json.loads((root / MARKER_NAME).read_text("utf-8"))["written_by"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_marker(root: Path, owner: str) -> None:
    """Record that ``owner`` (a command such as ``mqlab analyze``) created ``root`` for its output."""
    text = json.dumps({"written_by": owner, "note": f"{owner} may replace this directory's content"}, sort_keys=True)
    (root / MARKER_NAME).write_text(text + "\n", "utf-8")


def protected(path: Path) -> str | None:
    """Why ``path`` must never be emptied (``/``, home, the current directory or above it), or None."""
    resolved = path.resolve()
    if resolved == Path(resolved.anchor):
        return "it is the root of the file system"
    if resolved == Path.home().resolve():
        return "it is the home directory"
    cwd = Path.cwd().resolve()
    if resolved == cwd:
        return "it is the current directory"
    if resolved in cwd.parents:
        return "the current directory is inside it"
    return None


def _refusal(path: Path, layout: Layout | None, owner: str | None) -> str | None:
    """Why the non-empty directory ``path`` may not be emptied, or None when it provably may.

    With ``owner``, the directory needs that command's marker; with ``layout`` too, nothing else besides (a file
    someone put into an output directory later is not the command's to delete).
    """
    reason = protected(path)
    if reason is not None:
        return reason
    if owner is not None and marker_owner(path) != owner:
        return f"it has no {MARKER_NAME} file saying {owner} created it"
    if layout is not None:
        found = stranger(path, {re.escape(MARKER_NAME): FILE, **layout} if owner is not None else layout)
        if found is not None:
            return f"it holds {found}, which mqlab did not write there"
    return None


def _check_place(path: Path) -> None:
    if path.is_symlink():
        raise ForeignDirectoryError(f"refusing to use {path}: it is a symbolic link; name the directory itself")
    if path.exists() and not path.is_dir():
        raise ForeignDirectoryError(f"refusing to use {path}: it is a file, not a directory")


def claim_directory(
    path: str | os.PathLike[str],
    *,
    replace: bool,
    advice: str,
    layout: Layout | None = None,
    owner: str | None = None,
) -> Path:
    """Make ``path`` a directory a command may write into, emptying it only when it is provably mqlab's.

    Args:
        path: the directory; created (with its parents) when missing.
        replace: whether a non-empty directory may be emptied (when it is provably mqlab's); if false, a
            non-empty directory is refused whatever it holds.
        advice: what the user should do instead, ending the refusal's one line.
        layout: what mqlab writes there (``STORE_LAYOUT``, ``CLUSTER_LAYOUT``...): a directory holding nothing else
            may be emptied.
        owner: the command whose marker makes the directory replaceable; with it, the marker is (re)written.

    Returns:
        The directory, existing, empty but for the marker.

    Raises:
        ForeignDirectoryError: ``path`` is a file or a symbolic link, or is not empty and may not be emptied
            (the message names the path, the first entry in the way and ``advice``); nothing was changed.
        FileExistsError: ``path`` is not empty and ``replace`` is false.
    """
    root = Path(path)
    _check_place(root)
    if root.is_dir() and any(p.name != MARKER_NAME for p in root.iterdir()):
        if not replace:
            raise FileExistsError(f"{os.fspath(path)!r} is not empty; {advice}")
        reason = _refusal(root, layout, owner)
        if reason is not None:
            raise ForeignDirectoryError(f"refusing to replace {os.fspath(path)!r}: {reason}; {advice}")
        for entry in root.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    root.mkdir(parents=True, exist_ok=True)
    if owner is not None:
        write_marker(root, owner)
    return root


def remove_directory(path: str | os.PathLike[str], *, layout: Layout, advice: str) -> None:
    """Delete ``path`` and everything in it if it holds only ``layout``; a missing ``path`` is fine.

    Raises:
        ForeignDirectoryError: ``path`` is a file, a symbolic link, protected, or holds something ``layout`` does
            not allow; nothing was deleted.
    """
    root = Path(path)
    _check_place(root)
    if not root.exists():
        return
    reason = _refusal(root, layout, None)
    if reason is not None:
        raise ForeignDirectoryError(f"refusing to delete {os.fspath(path)!r}: {reason}; {advice}")
    shutil.rmtree(root)

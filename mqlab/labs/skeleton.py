"""The file ``mqlab lab start NAME`` writes: the lab's function with its task, its spec statements and no body yet.

The skeletons are text files in ``mqlab/labs/templates/`` (``<name>.py.txt``); the only thing filled in is the
command that checks the solution, which names ``--dir`` when the reader chose another folder.

Java: none (teaching layer).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from mqlab.labs.lab import Lab

DEFAULT_DIR = "labs"


class SkeletonExistsError(FileExistsError):
    """The reader's file is there already (``--force`` overwrites it)."""


def check_command(lab: Lab, directory: str | Path = DEFAULT_DIR) -> str:
    """The command that checks the reader's solution."""
    suffix = "" if str(directory) == DEFAULT_DIR else f" --dir {directory}"
    return f"mqlab lab check {lab.name}{suffix}"


def template_text(lab: Lab) -> str:
    """The lab's skeleton template, as stored."""
    return (resources.files("mqlab.labs") / "templates" / f"{lab.name}.py.txt").read_text(encoding="utf-8")


def render(lab: Lab, directory: str | Path = DEFAULT_DIR) -> str:
    """The skeleton's text for a solution kept in ``directory``."""
    return template_text(lab).replace("{check_command}", check_command(lab, directory))


def solution_path(lab: Lab, directory: str | Path = DEFAULT_DIR) -> Path:
    """Where the reader's solution of ``lab`` lives: ``<directory>/<name>.py``."""
    return Path(directory) / f"{lab.name}.py"


def write_skeleton(lab: Lab, directory: str | Path = DEFAULT_DIR, *, force: bool = False) -> Path:
    """Write the skeleton to ``<directory>/<name>.py`` and return the path.

    Raises:
        SkeletonExistsError: the file exists and ``force`` is false (a solution in progress is never lost).
    """
    path = solution_path(lab, directory)
    if path.exists() and not force:
        raise SkeletonExistsError(f"{path} exists already; `--force` overwrites it with a fresh skeleton")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(lab, directory), encoding="utf-8")
    return path

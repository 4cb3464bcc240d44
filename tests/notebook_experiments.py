"""Run a notebook's cells in-process, as the experiment tests do: up to an exercise, then that cell as a learner
would edit it (another setting on its first line, an answer in place of ``...``)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

from mqlab.teaching import checks


def source(cell: dict) -> str:
    return "".join(cell["source"])


def run(text: str, namespace: dict) -> str:
    """Execute a cell's source in ``namespace``; what it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(text, "<notebook cell>", "exec"), namespace)  # the notebook's own cells
    return out.getvalue()


def experiment_cell(path: Path, name: str) -> tuple[list[dict], int]:
    """The notebook's cells and the index of the exercise cell whose check is named ``name``."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    [index] = [
        i for i, c in enumerate(cells) if "exercise" in c["metadata"].get("tags", []) and f'name="{name}"' in source(c)
    ]
    return cells, index


def run_code_cells(cells: list[dict], namespace: dict) -> None:
    """Execute every code cell of ``cells`` in order."""
    for cell in cells:
        if cell["cell_type"] == "code":
            run(source(cell), namespace)


def answered(experiment: str, stored: str, setting: str, answer: object) -> str:
    """The experiment cell with ``setting`` for its stored first line and ``answer`` for ``...``."""
    assert experiment.startswith(stored + "  #"), "the stored setting is the first line of the experiment cell"
    return experiment.replace(stored, setting, 1).replace("answer = ...", f"answer = {answer!r}", 1)


def hint_for(name: str, value: object) -> object:
    """The hint the check ``name`` gives the common wrong answer ``value``, compared as the check compares."""
    question = checks._ASKED[name]
    for wrong, hint in question.wrong:
        if checks.Question("common wrong answer", question.kind, wrong).accepts(value):
            return hint
    raise AssertionError(f"{value!r} is no common wrong answer of {name!r}")

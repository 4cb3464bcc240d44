"""Ask before you show, checked on the stored notebooks: blank exercises, folded and checked solutions."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted([*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("spark/*.ipynb")])
CHECKS = {"check", "check_close", "check_unordered", "check_that"}
PASSED = re.compile(r"^✓ (?P<name>.+): correct$", re.MULTILINE)


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def text(cell: dict) -> str:
    return "".join(cell["source"])


def printed(cell: dict) -> str:
    return "".join(
        "".join(out.get("text", "")) for out in cell.get("outputs", []) if out.get("output_type") == "stream"
    )


def tags(cell: dict) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def check_calls(source: str) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CHECKS
    ]


def exercises(path: Path) -> list[tuple[int, dict]]:
    return [(i, cell) for i, cell in enumerate(cells(path)) if "exercise" in tags(cell)]


def solution_after(path: Path, index: int) -> tuple[list[dict], dict | None]:
    """The markdown cells between an exercise and the next code cell, and that code cell."""
    between = []
    for cell in cells(path)[index + 1 :]:
        if cell["cell_type"] == "code":
            return between, cell
        between.append(cell)
    return between, None


NOT_ANSWERED = re.compile(r"^\? (?P<name>.+): not answered yet$", re.MULTILINE)


def graded_calls(source: str) -> list[ast.Call]:
    """Calls of a Spark exercise's table grader (``lag.check_broker_offsets(answer, GEN)``)."""
    return [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.startswith("check_")
    ]


@pytest.mark.spec("TEACH-15")
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_notebook_asks_and_shows_no_answer_above_the_fold(path):
    asked = exercises(path)
    assert asked, f"{path.name} has no exercise cell"
    for index, cell in asked:
        where = f"{path.name} cell {index}"
        calls = check_calls(text(cell))
        assert len(calls) + len(graded_calls(text(cell))) == 1, f"{where}: an exercise holds one check"
        shown = printed(cell)
        asked_line = NOT_ANSWERED.findall(shown)
        assert len(asked_line) == 1 and shown.endswith(" not answered yet\n"), f"{where}: the check does not speak last"
        (name,) = asked_line
        if calls:
            assert [kw.value.value for kw in calls[0].keywords if kw.arg == "name"] == [name], where
        assert "✓" not in shown, f"{where} shows a passed check"
        source = "\n".join(text(c) for c in cells(path)[max(0, index - 2) : index + 1])
        assert re.search(r"^answer = \.\.\.", source, re.MULTILINE), f"{where}: the answer is not blank"
        between, solution = solution_after(path, index)
        assert between and text(between[0]).startswith("<details>"), f"{where}: no folded explanation after it"
        assert solution is not None and "solution" in tags(solution), f"{where}: no solution cell after it"
        assert solution["metadata"].get("jupyter", {}).get("source_hidden") is True, f"{where}: solution shown"
        assert printed(solution).startswith(f"✓ {name}: correct\n"), f"{where}: solution shows {printed(solution)!r}"
        if calls:  # a prediction: the solution runs the exercise's own check, and names a common wrong answer
            assert f"solution({json.dumps(name)}," in text(solution).replace("\n    ", ""), f"{where}: other solution"


@pytest.mark.spec("TEACH-15")
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_only_solution_cells_print_a_passed_check(path):
    for index, cell in enumerate(cells(path)):
        if cell["cell_type"] == "code" and "solution" not in tags(cell):
            assert not PASSED.search(printed(cell)), f"{path.name} cell {index} prints a passed check"


@pytest.mark.spec("TEACH-12", "TEACH-14")
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_prediction_names_a_common_wrong_answer_that_its_solution_proves(path):
    for index, cell in exercises(path):
        calls = check_calls(text(cell))
        if not calls:
            continue  # a Spark table exercise: its grader's wrong answers are tested in tests/labs
        keywords = {kw.arg for kw in calls[0].keywords}
        assert {"wrong", "hint"} <= keywords, f"{path.name} cell {index}: no common wrong answer or no hint"
        _, solution = solution_after(path, index)
        proof = printed(solution).splitlines()[1:]
        assert proof and "common wrong answer" in proof[0], f"{path.name} cell {index}: {printed(solution)!r}"


@pytest.mark.spec("TEACH-15")
@pytest.mark.parametrize("path", sorted(ROOT.glob("notebooks/*.ipynb")), ids=lambda p: p.name)
def test_every_flow_notebook_has_an_experiment(path):
    experiments = [
        index
        for index, cell in exercises(path)
        if any(kw.arg == "experiment" for call in check_calls(text(cell)) for kw in call.keywords)
    ]
    assert experiments, f"{path.name}: no exercise changes a setting and checks a fresh run (experiment=True)"
    assert "## Try it" in "".join(text(cell) for cell in cells(path) if cell["cell_type"] == "markdown")

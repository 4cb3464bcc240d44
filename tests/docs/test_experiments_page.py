"""The Experiments page and the README's "Using it" example run, and print what the page shows below each block.

Each ```python block is followed by a ```text block holding its output. The test runs every block in a fresh
interpreter in a temporary directory and compares what it prints with that block, so a page that drifts from the
code fails. Simulated runs are deterministic; the real-thread, TCP and C++-client recipes print only counts and
statuses.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "experiments.md"
README = ROOT / "README.md"
BLOCK = re.compile(r"^```python\n(?P<code>.*?)^```\n\s*^```text\n(?P<out>.*?)^```\n", re.S | re.M)


class PageBlockError(ValueError):
    """A python block of a page has no output block right below it."""


def examples(text: str, where: str) -> list[tuple[str, str, str]]:
    """``(heading, code, expected output)`` of each python block; every one must be followed by a text block.

    Raises:
        PageBlockError: a python block without its text block (named by its heading and ``where``).
    """
    found, heading = [], "top"
    pairs = {m.start(): m for m in BLOCK.finditer(text)}
    position = 0
    for line in text.splitlines(keepends=True):
        if line.startswith("#"):
            heading = line.strip("# \n")
        if line == "```python\n":
            match = pairs.get(position)
            if match is None:
                raise PageBlockError(f"{where}, section {heading!r}: a python block without a text block below it")
            found.append((heading, match.group("code"), match.group("out")))
        position += len(line)
    return found


def readme_example() -> tuple[str, str, str]:
    """The README's "Using it" section: its one example."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Using it\n", 1)[1].split("\n## ", 1)[0]
    (example,) = examples(section, "README.md")
    return example


def run_block(code: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(ROOT),
        "HOME": str(cwd),  # the C++ client logs under $HOME/logs
        "PYSPARK_PYTHON": sys.executable,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "JAVA_HOME": os.environ.get("JAVA_HOME", ""),
    }
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=600, env=env, check=False
    )


def _param(heading: str, code: str, out: str):
    marks = []
    if "mqlab.spark" in code or "pyspark" in code:
        marks.append(pytest.mark.spark)
    return pytest.param(code, out, id=heading, marks=marks)


PAGE_EXAMPLES = examples(PAGE.read_text(encoding="utf-8"), "docs/experiments.md")


def _check(code: str, expected: str, tmp_path: Path) -> None:
    if "rocketmq.client" in code:
        pytest.importorskip("rocketmq.client", reason="the rocketmq wheel (C++ 4.x client) is a dev dependency")
    done = run_block(code, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == expected, f"the page shows:\n{expected}\nthe code prints:\n{done.stdout}"


@pytest.mark.parametrize(("code", "expected"), [_param(*example) for example in PAGE_EXAMPLES])
def test_each_recipe_prints_what_the_page_shows(code, expected, tmp_path):
    _check(code, expected, tmp_path)


def test_the_readme_example_prints_what_the_readme_shows(tmp_path):
    _heading, code, expected = readme_example()
    _check(code, expected, tmp_path)


def test_the_readme_example_fits_in_30_lines():
    _heading, code, _expected = readme_example()
    assert len(code.splitlines()) <= 30


def test_the_page_has_the_six_recipes_the_issue_asks_for():
    headings = " | ".join(heading.lower() for heading, _code, _out in PAGE_EXAMPLES)
    for topic in ("fault schedule", "rebalance", "spark", "threads and tcp", "4.x client", "replay"):
        assert topic in headings, f"no recipe about {topic}: {headings}"


def test_a_block_without_its_output_is_named():
    text = "# Page\n\n## A recipe\n\n```python\nprint(1)\n```\n\nno output shown\n"
    with pytest.raises(PageBlockError, match="section 'A recipe': a python block without a text block"):
        examples(text, "page.md")
    good = "## R\n\n```python\nprint(1)\n```\n\n```text\n1\n```\n"
    assert examples(good, "page.md") == [("R", "print(1)\n", "1\n")]


def test_a_drifted_output_fails(tmp_path):
    with pytest.raises(AssertionError, match="the page shows"):
        _check("print('the code changed')\n", "what the page said\n", tmp_path)

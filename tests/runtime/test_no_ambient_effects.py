"""Library code must take time, randomness, threads' clocks and sockets from the runtime."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "mqlab"
# The runtime is the one place allowed to touch the machine (its tcp_network opens the sockets).
ALLOWED = {PACKAGE / "runtime"}
FORBIDDEN_MODULES = {"time", "random", "socket", "secrets", "uuid"}
FORBIDDEN_CALLS = {("datetime", "now"), ("datetime", "today"), ("date", "today"), ("os", "getpid")}


def library_files():
    for path in sorted(PACKAGE.rglob("*.py")):
        if not any(allowed in path.parents for allowed in ALLOWED):
            yield path


@pytest.mark.spec("RT-9")
@pytest.mark.parametrize("path", list(library_files()), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_wall_clock_randomness_or_sockets(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    # Imports only made for type annotations (under ``if TYPE_CHECKING:``) never run.
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", None)) == "TYPE_CHECKING":
            node.body = []
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            problems += [a.name for a in node.names if a.name.split(".")[0] in FORBIDDEN_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in FORBIDDEN_MODULES:
            problems.append(node.module)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and (node.value.id, node.attr) in FORBIDDEN_CALLS
        ):
            problems.append(f"{node.value.id}.{node.attr}")
    assert not problems, f"{path.name} reaches for the machine directly: {problems}"

"""Extras named for what they enable, and the one line a feature prints when its extra is missing.

The CLI checks run ``mqlab`` in a child interpreter whose import system refuses the optional modules, as a plain
``pip install mqlab`` would (no pyspark, no hypothesis...), so nothing cached in this process hides a missing import.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from mqlab.common import extras
from mqlab.common.extras import EXTRAS, MissingExtraError, extra_for, needs_extra, require

ROOT = Path(__file__).resolve().parents[1]
OPTIONAL = sorted({m for modules in EXTRAS.values() for m in modules} | {"rocketmq"})

# A child interpreter without the optional modules: a finder first on the meta path refuses them.
PRELUDE = """
import sys, importlib.abc
REFUSED = set(sys.argv[1].split(","))
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in REFUSED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Refuse())
"""
CLI = PRELUDE + "from mqlab.cli import main\nsys.exit(main(sys.argv[2:]))\n"
IMPORT = PRELUDE + "import importlib\nimportlib.import_module(sys.argv[2])\n"


def _run(script: str, refused: list[str], args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", script, ",".join(refused), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )


# command, modules refused, the one line expected on stderr
CLI_CASES = [
    (
        ["gen-store", "small", "--out", "g", "--no-progress"],
        OPTIONAL,
        "mqlab gen-store needs numpy: pip install 'mqlab[spark]'",
    ),
    (["gen-store", "small", "--out", "g"], ["pyspark"], "mqlab gen-store needs pyspark: pip install 'mqlab[spark]'"),
    (["analyze", "root", "--out", "a"], OPTIONAL, "mqlab analyze needs numpy: pip install 'mqlab[spark]'"),
    (["lab", "list"], OPTIONAL, "mqlab lab list needs hypothesis: pip install 'mqlab[labs]'"),
    (["lab", "start", "allocate_averagely"], OPTIONAL, "mqlab lab start needs hypothesis: pip install 'mqlab[labs]'"),
    (["lab", "check", "allocate_averagely"], OPTIONAL, "mqlab lab check needs hypothesis: pip install 'mqlab[labs]'"),
    (
        ["chaos", "run", "--seeds", "0", "--workload", "clustering", "--faults", "crash"],
        OPTIONAL,
        "mqlab chaos run needs tqdm: pip install 'mqlab[labs]'",
    ),
    (
        ["chaos", "run", "--seeds", "0", "--workload", "clustering", "--faults", "crash", "--spark", "--no-progress"],
        OPTIONAL,
        "mqlab chaos run needs pyspark: pip install 'mqlab[spark]'",
    ),
]


@pytest.mark.parametrize(("args", "refused", "line"), CLI_CASES, ids=[" ".join(c[0][:2]) for c in CLI_CASES])
def test_a_command_without_its_extra_says_which_in_one_line(tmp_path, args, refused, line):
    (tmp_path / "root" / "commitlog").mkdir(parents=True)  # a store root, so analyze gets as far as Spark
    done = _run(CLI, refused, args, tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr == line + "\n"
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_the_core_runs_the_quickstart_and_a_chaos_replay_without_any_extra(tmp_path):
    done = _run(CLI, OPTIONAL, ["quickstart", "--mode", "simulated", "--messages", "4", "--store", "qs"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "store verify: clean" in done.stdout
    replay = ["chaos", "replay", "--seed", "1", "--workload", "clustering", "--faults", "crash", "--limit", "1"]
    done = _run(CLI, OPTIONAL, replay, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "seed=1 clustering/crash: PASS" in done.stdout


@pytest.mark.parametrize(
    ("module", "line"),
    [
        ("mqlab.spark.datasources", "mqlab.spark.record_columns needs numpy: pip install 'mqlab[spark]'"),
        ("mqlab.spark.functions", "mqlab.spark.functions needs pyspark: pip install 'mqlab[spark]'"),
        ("mqlab.labs.grader", "mqlab.labs.grader needs hypothesis: pip install 'mqlab[labs]'"),
        ("mqlab.teaching.figures", "mqlab.teaching.figures needs matplotlib: pip install 'mqlab[notebooks]'"),
    ],
)
def test_a_library_import_without_its_extra_raises_an_import_error_naming_it(tmp_path, module, line):
    done = _run(IMPORT, OPTIONAL, [module], tmp_path)
    assert done.returncode == 1
    assert done.stderr.rstrip().endswith(f"mqlab.common.extras.MissingExtraError: {line}")


# -- the helper itself -------------------------------------------------------------------------------------------
def test_missing_extra_error_is_a_module_not_found_error_with_the_line():
    error = MissingExtraError("mqlab gen-store", "pyarrow", "spark")
    assert isinstance(error, ModuleNotFoundError)
    assert error.name == "pyarrow"
    assert str(error) == "mqlab gen-store needs pyarrow: pip install 'mqlab[spark]'"


def test_extra_for_prefers_the_features_extra_and_knows_no_other_module():
    assert extra_for("tqdm", "spark") == "spark"
    assert extra_for("tqdm", "labs") == "labs"
    assert extra_for("pyspark", "labs") == "spark"  # chaos run --spark: labs does not install pyspark
    assert extra_for("json") is None
    with pytest.raises(ValueError, match="unknown extra 'lab'"):
        extra_for("tqdm", "lab")


def test_needs_extra_names_the_extra_and_leaves_other_missing_modules_alone():
    line = r"^feature X needs pyarrow: pip install 'mqlab\[spark\]'$"
    with pytest.raises(MissingExtraError, match=line), needs_extra("labs", "feature X"):
        raise ModuleNotFoundError("No module named 'pyarrow.compute'", name="pyarrow.compute")
    with pytest.raises(ModuleNotFoundError) as caught, needs_extra("spark", "feature X"):
        raise ModuleNotFoundError("No module named 'mqlab.nothing'", name="mqlab.nothing")
    assert not isinstance(caught.value, MissingExtraError)  # a bug, not an extra to install
    with pytest.raises(ValueError, match="unknown extra"), needs_extra("dev", "feature X"):
        pass


def test_an_outer_feature_rewords_an_inner_guard():
    outer, inner = needs_extra("spark", "mqlab analyze"), needs_extra("notebooks", "mqlab.teaching.figures")
    with pytest.raises(MissingExtraError) as caught, outer, inner:
        raise ModuleNotFoundError("No module named 'matplotlib'", name="matplotlib")
    assert str(caught.value) == "mqlab analyze needs matplotlib: pip install 'mqlab[spark]'"


def test_require_imports_or_names_the_extra(monkeypatch):
    with pytest.raises(ValueError, match="does not install 'json'"):
        require("json", "spark", "x")
    with pytest.raises(ValueError, match="does not install 'pyspark'"):
        require("pyspark.sql", "labs", "x")
    monkeypatch.setitem(sys.modules, "tqdm", None)  # an import of tqdm now fails as if it were not installed
    with pytest.raises(MissingExtraError, match=r"^a bar needs tqdm: pip install 'mqlab\[labs\]'$"):
        require("tqdm", "labs", "a bar")
    assert require("hypothesis.strategies", "labs", "x").__name__ == "hypothesis.strategies"


# -- pyproject's extras cover every third-party import -----------------------------------------------------------
def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _name(requirement: str) -> str:
    return re.split(r"[\[=<>!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def expand(optional: dict[str, list[str]], extra: str, project: str = "mqlab") -> dict[str, str]:
    """Distribution name -> requirement of an extra, following ``mqlab[a,b]`` self-references."""
    found: dict[str, str] = {}
    for requirement in optional[extra]:
        match = re.fullmatch(rf"{project}\[([a-z,]+)\]", requirement)
        if match:
            for inner in match.group(1).split(","):
                found.update(expand(optional, inner, project))
        else:
            found[_name(requirement)] = requirement
    return found


def third_party_imports(package: Path) -> dict[str, set[str]]:
    """Top-level module -> files of ``package`` importing it, standard library and the package itself left out."""
    found: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top != package.name:
                    found.setdefault(top, set()).add(str(path.relative_to(package.parent)))
    return found


def uncovered(imports: dict[str, set[str]], pyproject: dict) -> list[str]:
    """Each third-party import no requirement installs, or installed by an extra that EXTRAS does not name."""
    distributions = packages_distributions()
    core = {_name(r) for r in pyproject["project"]["dependencies"]}
    optional = pyproject["project"]["optional-dependencies"]
    problems = []
    for module, files in sorted(imports.items()):
        dists = {_name(d) for d in distributions.get(module, [module])}
        where = ", ".join(sorted(files))
        if dists & core:
            continue
        providers = [extra for extra in optional if extra != "dev" and dists & set(expand(optional, extra))]
        if not providers:
            problems.append(f"{module} (imported by {where}) is in no requirement of pyproject.toml")
        elif extra_for(module) is None:
            problems.append(f"{module} (imported by {where}) is in extra {providers[0]} but not in extras.EXTRAS")
    return problems


def test_every_third_party_import_of_mqlab_is_a_dependency_or_an_extra():
    assert uncovered(third_party_imports(ROOT / "mqlab"), _pyproject()) == []


def test_the_coverage_check_rejects_an_import_nothing_installs():
    imports = {"zlib_ng": {"mqlab/common/util_all.py"}, "yaml": {"mqlab/x.py"}, "tqdm": {"mqlab/y.py"}}
    pyproject = _pyproject()
    assert uncovered(imports, pyproject) == ["yaml (imported by mqlab/x.py) is in no requirement of pyproject.toml"]
    pyproject["project"]["optional-dependencies"]["labs"] = ["hypothesis==6.170.15"]
    pyproject["project"]["optional-dependencies"]["spark"] = ["pyspark==4.3.0"]
    assert uncovered({"tqdm": {"mqlab/y.py"}}, pyproject) == [
        "tqdm (imported by mqlab/y.py) is in no requirement of pyproject.toml"
    ]


def test_extras_table_matches_pyproject():
    optional = _pyproject()["project"]["optional-dependencies"]
    distributions = packages_distributions()
    for extra, modules in EXTRAS.items():
        installed = set(expand(optional, extra))
        for module in modules:
            assert {_name(d) for d in distributions[module]} & installed, f"{extra} does not install {module}"


def test_dev_is_every_extra_plus_the_test_tools_with_one_pin_each():
    optional = _pyproject()["project"]["optional-dependencies"]
    dev = expand(optional, "dev")
    for extra in ("spark", "labs", "notebooks", "docs"):
        for name, requirement in expand(optional, extra).items():
            assert dev.get(name) == requirement, f"dev pins {name} as {dev.get(name)}, {extra} as {requirement}"
    for tool in ("pytest", "pytest-xdist", "pytest-timeout", "nbval", "ruff", "rocketmq"):
        assert tool in dev
    assert "jupyterlab" not in dev  # make lab's extra stays out of the test install


def test_the_makefiles_extras_exist():
    optional = _pyproject()["project"]["optional-dependencies"]
    makefile = (ROOT / "Makefile").read_text()
    named = [name for group in re.findall(r"-e '\.\[([a-z,]+)\]'", makefile) for name in group.split(",")]
    assert "dev" in named and "jupyterlab" in named
    assert [name for name in named if name not in optional] == []


def test_the_module_docstring_lists_every_extra():
    for extra in EXTRAS:
        assert f"``{extra}``" in extras.__doc__

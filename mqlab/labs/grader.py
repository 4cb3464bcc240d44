"""Grade a reader's function: properties, then the comparison with mqlab, then the scenario; report in plain text.

The stages run in order and a failed stage skips the later ones (a scenario built on a function that breaks a law
would only fail in a harder way to read). Hypothesis runs every property derandomized, without an example
database, with a bounded number of examples, and shrinks a failure to a small input; the report names the failed
property, that input and what went wrong. The same solution therefore always gets the same report.

Java: none (teaching layer).
"""

from __future__ import annotations

import dis
import importlib.util
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqlab.common.extras import needs_extra
from mqlab.labs.guard import ReferenceGuard, ReferenceUse, raised_text
from mqlab.labs.lab import Lab, Property, ScenarioCheck

with needs_extra("labs", __name__):
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis.errors import Flaky
    from hypothesis.reporting import with_reporter

PASSED, FAILED, SKIPPED = "ok", "FAIL", "skipped"


class SolutionError(Exception):
    """The reader's file cannot be used: missing, does not import, or lacks the function."""


class LearnerRaised(Exception):
    """The reader's function raised ``error`` (kept apart from the grader's own exceptions)."""

    def __init__(self, error: BaseException):
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error


class _Violation(Exception):
    """A property did not hold for one input (hypothesis shrinks the input while this is raised)."""

    def __init__(self, example: str, problem: str):
        super().__init__(problem)
        self.example, self.problem = example, problem


def guarded(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` with any exception it raises wrapped in ``LearnerRaised``."""

    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except Exception as exc:
            raise LearnerRaised(exc) from exc

    call.__name__ = getattr(function, "__name__", "solution")
    return call


# -- the reader's file ---------------------------------------------------------------------------------------------
def load_solution(path: str | Path, function_name: str) -> Callable[..., Any]:
    """Import the reader's file and return its function ``function_name``.

    Raises:
        SolutionError: the file is missing, does not import (with the line of the error), or has no such function.
    """
    path = Path(path)
    if not path.is_file():
        raise SolutionError(f"there is no {path}; write the skeleton with `mqlab lab start {path.stem}`")
    module_name = f"mqlab_lab_solution_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise SolutionError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look the module up by name
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
        where = f" (line {frames[-1].lineno})" if frames else ""
        if isinstance(exc, SyntaxError) and exc.lineno is not None:
            where = f" (line {exc.lineno})"
        raise SolutionError(f"{path} does not import{where}: {type(exc).__name__}: {exc}") from exc
    function = getattr(module, function_name, None)
    if not callable(function):
        raise SolutionError(f"{path} has no function `{function_name}`")
    return function


def is_empty_body(function: Callable[..., Any]) -> bool:
    """Whether ``function`` does nothing but return None (the skeleton's ``...``, ``pass``, a lone docstring)."""
    code = getattr(function, "__code__", None)
    if code is None:
        return False
    ops = [(i.opname, i.argval) for i in dis.get_instructions(code) if i.opname not in ("RESUME", "NOP", "CACHE")]
    return ops in ([("LOAD_CONST", None), ("RETURN_VALUE", None)], [("RETURN_CONST", None)])


# -- outcomes ------------------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Outcome:
    """What became of one property (or of the comparison)."""

    name: str
    spec: tuple[str, ...]
    status: str
    example: str = ""
    problem: str = ""


@dataclass(slots=True)
class Report:
    """The graded result of one solution, printable with ``lines()``."""

    lab: Lab
    source: str
    problem: str = ""  # the file could not be used
    reference_used: list[ReferenceUse] = field(default_factory=list)  # reached for mqlab's own implementation
    not_implemented: str = ""  # why the function counts as not implemented yet
    properties: list[Outcome] = field(default_factory=list)
    comparison: Outcome | None = None
    scenario: list[ScenarioCheck] = field(default_factory=list)
    scenario_status: str = SKIPPED
    skipped_because: str = ""

    @property
    def passed(self) -> bool:
        """Whether every stage ran and passed without reaching for mqlab's own implementation."""
        return self.scenario_status == PASSED and not self.reference_used

    def failures(self) -> list[str]:
        """The names of what failed: properties, the comparison, scenario checks."""
        names = [o.name for o in self.properties if o.status == FAILED]
        if self.comparison is not None and self.comparison.status == FAILED:
            names.append(self.comparison.name)
        return names + [c.name for c in self.scenario if not c.ok]

    def lines(self) -> list[str]:
        """The report as printed by ``mqlab lab check``."""
        lab = self.lab
        out = [f"Lab {lab.name}: {lab.title}", f"solution: {self.source}, function {lab.function}"]
        if self.problem:
            return [*out, "", f"CANNOT CHECK: {self.problem}"]
        if self.not_implemented:
            return [*out, "", f"FAILED: not implemented yet: {self.not_implemented}"]
        if self.reference_used:
            return [*out, "", *reference_lines(self.lab, self.reference_used)]
        out += [f"seam: {lab.seam}", "", "1. Properties"]
        out += [line for outcome in self.properties for line in _outcome_lines(outcome)]
        out.append("2. Comparison with mqlab's own code")
        if self.comparison is None or self.comparison.status == SKIPPED:
            out.append(f"   skipped: {self.skipped_because}")
        else:
            out += _outcome_lines(self.comparison)
        out.append(f"3. Scenario: {lab.scenario.name}")
        out.append(f"   faults: {'; '.join(lab.scenario.faults) if lab.scenario.faults else 'none'}")
        if self.scenario_status == SKIPPED:
            out.append(f"   skipped: {self.skipped_because}")
        for check in self.scenario:
            out.append(f"   {PASSED if check.ok else FAILED:<5} {check.name}")
            if check.detail and not check.ok:
                out += [f"         {line}" for line in check.detail.splitlines()]
        out.append("")
        if self.passed:
            out.append(
                f"PASSED: {len(self.properties)} properties, the comparison with mqlab and "
                f"{len(self.scenario)} scenario checks"
            )
        else:
            failed = self.failures()
            out.append(f"FAILED: {failed[0]}" + (f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""))
        return out


def reference_lines(lab: Lab, uses: Sequence[ReferenceUse]) -> list[str]:
    """What the report says of a solution that imported or called the part of mqlab it is asked to write."""
    lines = [f"REFERENCE USED: {use}" for use in uses]
    return [
        *lines,
        f"   While a lab is checked, mqlab's implementation of {lab.java} is out of reach: the lab asks you to",
        "   write it yourself. Remove that import or call and check again.",
        "",
        f"FAILED: {uses[0]}",
    ]


def _outcome_lines(outcome: Outcome) -> list[str]:
    spec = f"  [{', '.join(outcome.spec)}]" if outcome.spec else ""
    lines = [f"   {outcome.status:<5} {outcome.name}{spec}"]
    if outcome.status == FAILED:
        lines += [f"         input:   {outcome.example}", f"         problem: {outcome.problem}"]
    return lines


# -- the stages ----------------------------------------------------------------------------------------------------
def run_property(prop: Property, function: Callable[..., Any]) -> Outcome:
    """Try ``prop`` on up to ``prop.max_examples`` inputs; a failure comes back with the smallest input found."""
    safe = guarded(function)

    def describe(example: Any) -> str:
        try:
            return prop.describe(example)
        except Exception:
            return repr(example)

    @settings(
        max_examples=prop.max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        verbosity=Verbosity.quiet,
        print_blob=False,
        report_multiple_bugs=False,
    )
    @given(prop.strategy)
    def law(example: Any) -> None:
        try:
            problem = prop.check(safe, example)
        except LearnerRaised as exc:
            problem = raised_text(exc.error)
        if problem is not None:
            raise _Violation(describe(example), problem)

    try:
        with with_reporter(lambda _message: None):
            law()
    except _Violation as violation:
        return Outcome(prop.name, prop.spec, FAILED, violation.example, violation.problem)
    except Flaky:
        return Outcome(prop.name, prop.spec, FAILED, "(varies)", "the function gave different answers to one input")
    return Outcome(prop.name, prop.spec, PASSED)


def run_scenario(lab: Lab, function: Callable[..., Any]) -> list[ScenarioCheck]:
    """Run the lab's scenario; an exception that escapes it becomes a failed check, never a crash."""
    try:
        return list(lab.scenario.run(function))
    except LearnerRaised as exc:
        return [ScenarioCheck("the scenario ran to the end", False, f"your function: {raised_text(exc.error)}")]
    except Exception as exc:
        return [ScenarioCheck("the scenario ran to the end", False, f"{type(exc).__name__}: {exc}")]


def grade(lab: Lab, function: Callable[..., Any], *, source: str = "(a function)") -> Report:
    """Grade ``function`` as the solution of ``lab``, with mqlab's own implementation of it out of reach.

    Every call of ``function`` runs under the lab's ``ReferenceGuard``: a call into the guarded code (or into
    ``mqlab.labs``) made from it fails the solution, whatever it answered.
    """
    report = Report(lab, source)
    if is_empty_body(function):
        report.not_implemented = (
            f"the body of `{lab.function}` is still the skeleton's `...`. Write it, then run the check again."
        )
        return report
    guard = reference_guard(lab)
    watched = guard.watch(function)
    try:
        watched(*lab.probe)
    except NotImplementedError:
        report.not_implemented = f"`{lab.function}` raises NotImplementedError. Write it, then run the check again."
        return report
    except Exception:
        pass  # a property will say what is wrong, with the input
    if guard.uses:
        report.reference_used = list(guard.uses)
        return report
    report.properties = [run_property(prop, watched) for prop in lab.properties]
    if guard.uses:
        report.reference_used = list(guard.uses)
        return report
    if any(o.status == FAILED for o in report.properties):
        report.skipped_because = "a property failed; fix it first"
        return report
    report.comparison = run_property(lab.comparison, watched)
    if guard.uses:
        report.reference_used = list(guard.uses)
        return report
    if report.comparison.status == FAILED:
        report.skipped_because = "the comparison with mqlab failed; fix it first"
        return report
    report.scenario = run_scenario(lab, watched)
    report.scenario_status = PASSED if all(check.ok for check in report.scenario) else FAILED
    report.reference_used = list(guard.uses)
    return report


def reference_guard(lab: Lab) -> ReferenceGuard:
    """What ``lab``'s solution may not import or call: the lab's ``guards`` and its reference wrapper."""
    return ReferenceGuard((*lab.guards, lab.reference))


def check_file(lab: Lab, path: str | Path) -> Report:
    """Load the reader's file and grade its function (a file that cannot be used gives a report saying why)."""
    imports = reference_guard(lab).scan(path) if Path(path).is_file() else []
    if imports:
        return Report(lab, str(path), reference_used=imports)
    try:
        function = load_solution(path, lab.function)
    except SolutionError as exc:
        return Report(lab, str(path), problem=str(exc))
    return grade(lab, function, source=str(path))


def checks_from(pairs: Sequence[tuple[str, bool, str]]) -> list[ScenarioCheck]:
    """``ScenarioCheck`` objects from ``(name, ok, detail)`` triples (a scenario's last line)."""
    return [ScenarioCheck(name, ok, detail) for name, ok, detail in pairs]

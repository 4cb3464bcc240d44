"""What a lab is made of: the function asked for, its properties, the comparison with mqlab, and a scenario.

A ``Lab`` is data: the grader (``mqlab.labs.grader``) runs it, the skeleton writer (``mqlab.labs.skeleton``) and the
docs describe it. A property or the comparison is a hypothesis strategy plus a check that returns ``None`` when the
law holds and a sentence saying what went wrong otherwise; a scenario is a function that runs the reader's code in
the engine and returns named checks.

Java: none (teaching layer).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# A check returns None when the law holds, otherwise what went wrong (one or two sentences).
Verdict = str | None


@dataclass(frozen=True, slots=True)
class Property:
    """One law of the function, tried on generated inputs.

    Attributes:
        name: the law as a sentence; the report names a failed property by it.
        strategy: a hypothesis strategy of inputs (any object ``check`` and ``describe`` understand).
        check: ``check(function, example)``: None when the law holds for this input.
        describe: how the report shows an input (default ``repr``).
        spec: the spec statement ids the law comes from.
        max_examples: how many inputs hypothesis tries at most.
    """

    name: str
    strategy: Any
    check: Callable[[Callable[..., Any], Any], Verdict]
    describe: Callable[[Any], str] = repr
    spec: tuple[str, ...] = ()
    max_examples: int = 150


@dataclass(frozen=True, slots=True)
class ScenarioCheck:
    """One thing a scenario checked: its name, whether it held, and what was seen."""

    name: str
    ok: bool
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Scenario:
    """The reader's function running inside the engine.

    Attributes:
        name: what the scenario does, in a few words.
        faults: the faults it injects (shown in the report and on the lab's page).
        run: ``run(function)`` returns the checks, in the order they were made.
    """

    name: str
    faults: tuple[str, ...]
    run: Callable[[Callable[..., Any]], Sequence[ScenarioCheck]]


@dataclass(frozen=True, slots=True)
class Lab:
    """A graded lab.

    Attributes:
        name: the name ``mqlab lab start`` and ``check`` take (also the skeleton's file name).
        title: one line saying what the reader implements.
        function: the name of the function in the reader's file.
        java: the Java method (``Class#method``) the function stands for.
        spec: the spec statement ids the skeleton quotes.
        seam: where ``check`` plugs the function in (shown in the report).
        properties: stage 1.
        comparison: stage 2, a property whose check compares with ``reference``.
        scenario: stage 3.
        reference: mqlab's own code in the lab's signature.
        guards: mqlab's classes and functions implementing what the lab asks for: while the reader's function runs
            they are out of its reach (with ``reference`` and all of ``mqlab.labs``; ``mqlab.labs.guard``).
        probe: arguments for one call that tells an empty body from a real one.
    """

    name: str
    title: str
    function: str
    java: str
    spec: tuple[str, ...]
    seam: str
    properties: tuple[Property, ...]
    comparison: Property
    scenario: Scenario
    reference: Callable[..., Any]
    guards: tuple[Any, ...] = ()
    probe: tuple[Any, ...] = field(default=())

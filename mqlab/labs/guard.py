"""Keep mqlab's own implementation out of the reader's reach while a lab grades their code.

A lab asks the reader to write a part of RocketMQ that mqlab already has. A solution that imports that part, or
reaches it another way (``importlib``, an attribute of an allowed module, a lab module's reference wrapper), would
pass every stage without teaching anything, so the grader refuses it and says so:

- before the solution runs, its source is read (``ast``) and any import of a guarded module (``mqlab.labs`` and the
  modules holding the guarded classes and functions) is refused, with its line;
- while the reader's function runs (and only then: the grader itself compares with the reference between calls), a
  profile hook (``sys.setprofile``, the standard library's hook for function calls) watches every call; a call to a
  guarded function's code, or to any code of ``mqlab/labs/``, is recorded with the reader's line that led to it.

Every exception the reader's code raises is reported with its place: ``where(error, files)`` gives the file name,
line number and source line of the deepest frame in the reader's file.

Java: none (teaching layer).
"""

from __future__ import annotations

import ast
import inspect
import linecache
import os
import sys
import sysconfig
import threading
import types
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LABS_PACKAGE = "mqlab.labs"
_THIS_FILE = os.path.abspath(__file__)
_LABS_DIR = os.path.dirname(_THIS_FILE) + os.sep


def _codes_of(obj: Any) -> Iterator[types.CodeType]:
    """Every code object of a function, method, class (its methods, properties, nested classes) or wrapper."""
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        for part in (obj.fget, obj.fset, obj.fdel):
            if part is not None:
                yield from _codes_of(part)
        return
    if inspect.isclass(obj):
        for value in vars(obj).values():
            if isinstance(value, (types.FunctionType, staticmethod, classmethod, property)) or inspect.isclass(value):
                yield from _codes_of(value)
        return
    obj = inspect.unwrap(obj) if callable(obj) else obj
    code = getattr(obj, "__code__", None)
    if code is not None:
        yield from _nested(code)


def _nested(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _nested(const)


def _qualname(obj: Any) -> str:
    owner = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__
    return f"{getattr(obj, '__module__', '?')}.{owner}"


@dataclass(frozen=True, slots=True)
class Place:
    """A line of the reader's file."""

    file: str
    line: int
    text: str

    def __str__(self) -> str:
        shown = f": `{self.text}`" if self.text else ""
        return f"{Path(self.file).name} line {self.line}{shown}"


def place_of(file: str, line: int) -> Place:
    """The reader's line ``line`` of ``file``, with its source text."""
    return Place(file, line, linecache.getline(file, line).strip())


_MQLAB_DIR = os.path.dirname(os.path.dirname(_THIS_FILE)) + os.sep
_PYTHON_DIRS = tuple(
    {
        os.path.abspath(path) + os.sep
        for key, path in sysconfig.get_paths().items()
        if key in ("stdlib", "purelib", "platlib")
    }
)


def is_readers_file(filename: str) -> bool:
    """Whether code of ``filename`` is the reader's: neither mqlab's nor Python's nor an installed package's."""
    if filename.startswith("<"):
        return False
    path = os.path.abspath(filename)
    return not path.startswith(_MQLAB_DIR) and not path.startswith(_PYTHON_DIRS)


def where(error: BaseException, files: Iterable[str] | None = None) -> Place | None:
    """The deepest frame of ``error``'s traceback in the reader's code (None: none is).

    The reader's code is ``files`` when given, else any file that is neither mqlab's nor Python's.
    """
    wanted = set(files) if files is not None else None
    found = None
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename in wanted if wanted is not None else is_readers_file(filename):
            found = place_of(filename, tb.tb_lineno)
        tb = tb.tb_next
    return found


@dataclass(frozen=True, slots=True)
class ReferenceUse:
    """One reach for the reference: what was used and the reader's line that led there (None if unknown)."""

    what: str
    place: Place | None
    how: str = "called"

    def __str__(self) -> str:
        at = f" ({self.place})" if self.place else ""
        return f"your solution {self.how} mqlab's own {self.what}{at}"


@dataclass(slots=True)
class ReferenceGuard:
    """What a lab's solution may not use, and the uses seen so far.

    Attributes:
        guarded: mqlab's classes and functions that implement the part the lab asks for.
        uses: every reach for them (or for ``mqlab.labs``) seen while the reader's code ran.
    """

    guarded: tuple[Any, ...]
    uses: list[ReferenceUse] = field(default_factory=list)
    _codes: dict[types.CodeType, str] = field(default_factory=dict)
    _modules: frozenset[str] = frozenset()
    _learner_files: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        for obj in self.guarded:
            name = _qualname(obj)
            for code in _codes_of(obj):
                self._codes[code] = name
        self._modules = frozenset({LABS_PACKAGE, *(obj.__module__ for obj in self.guarded)})

    @property
    def modules(self) -> frozenset[str]:
        """The modules a solution may not import (``mqlab.labs`` and the guarded objects' modules)."""
        return self._modules

    def _blocked_module(self, name: str) -> bool:
        return any(name == module or name.startswith(module + ".") for module in self._modules)

    def scan(self, path: str | Path) -> list[ReferenceUse]:
        """The imports of guarded modules in the reader's file, each with its line (an unparsable file: none)."""
        path = Path(path)
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (OSError, SyntaxError, ValueError):
            return []  # loading the file reports it
        found = []
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            blocked = next((name for name in names if self._blocked_module(name)), None)
            if blocked is not None:
                found.append(ReferenceUse(f"module {blocked}", place_of(str(path), node.lineno), "imports"))
        return found

    def _hook(self, frame: types.FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        name = self._codes.get(code)
        if name is None and code.co_filename.startswith(_LABS_DIR) and code.co_filename != _THIS_FILE:
            name = f"lab code {frame.f_globals.get('__name__', '?')}.{code.co_qualname}"
        if name is None:
            return
        caller = frame.f_back
        while caller is not None and caller.f_code.co_filename not in self._learner_files:
            caller = caller.f_back
        place = place_of(caller.f_code.co_filename, caller.f_lineno) if caller is not None else None
        use = ReferenceUse(name, place)
        if use not in self.uses:
            self.uses.append(use)

    @contextmanager
    def watching(self, learner_files: Iterable[str]) -> Iterator[None]:
        """Record every call into guarded code made while the block runs (this thread and threads it starts)."""
        self._learner_files.update(learner_files)
        previous = sys.getprofile()
        previous_threads = threading.getprofile()
        sys.setprofile(self._hook)
        threading.setprofile(self._hook)
        try:
            yield
        finally:
            sys.setprofile(previous)
            threading.setprofile(previous_threads)

    def watch(self, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function`` whose every call runs under ``watching`` (its own file counts as the reader's)."""
        files = learner_files(function)

        def call(*args: Any, **kwargs: Any) -> Any:
            if sys.getprofile() is self._hook:  # already watched (a call from inside another watched call)
                return function(*args, **kwargs)
            with self.watching(files):
                return function(*args, **kwargs)

        call.__name__ = getattr(function, "__name__", "solution")
        call.__wrapped_solution__ = function  # type: ignore[attr-defined]
        return call


def learner_files(function: Callable[..., Any]) -> set[str]:
    """The file the reader's function was written in (empty for a builtin)."""
    code = getattr(inspect.unwrap(function), "__code__", None)
    return {code.co_filename} if code is not None else set()


def raised_text(error: BaseException) -> str:
    """``it raised ValueError: ...`` for a report line, with the reader's line that raised it.

    The place reads ``at mine.py line 7: `return queues[i]` ``; NotImplementedError reads as "not implemented yet".
    """
    if isinstance(error, NotImplementedError):
        return "not implemented yet (it raised NotImplementedError)"
    place = where(error)
    return f"it raised {type(error).__name__}: {error}" + (f" at {place}" if place else "")


def function_raised(error: BaseException) -> str:
    """``your function raised ValueError: ... at mine.py line 7: `...` `` (a scenario's detail line)."""
    return "your function " + raised_text(error).removeprefix("it ")

"""Optional dependencies ("extras") and the one-line error a feature gives when its extra is not installed.

Java: none (packaging helper).

``pip install mqlab`` installs the core: the servers, the clients, the store and its tools, the quickstart and
``mqlab chaos replay``. Other features need an extra, named for what it enables (pyproject.toml):

- ``spark``: the ``mqlab_*`` and ``rocketmq`` Spark data sources, ``mqlab gen-store``, ``mqlab analyze``;
- ``labs``: ``mqlab lab`` (hypothesis runs the properties) and ``mqlab chaos run`` (its progress bar);
- ``notebooks``: what the notebooks run on (``mqlab.teaching.show`` highlights with pygments, figures use
  matplotlib, exercises use hypothesis);
- ``docs``: the site; ``dev``: all of them and the test tools.

A feature whose extra is missing fails with ``MissingExtraError``, whose message is one line naming the feature,
the missing module and the extra, e.g. ``mqlab gen-store needs pyarrow: pip install 'mqlab[spark]'``. The command
line prints that line and exits with 2 (``mqlab.cli.main``); a library import raises it as an ``ImportError``.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

# extra -> the top-level modules mqlab imports from it (tests/test_extras.py checks this against pyproject.toml).
EXTRAS: dict[str, tuple[str, ...]] = {
    "spark": ("pyspark", "pyarrow", "pandas", "numpy", "matplotlib", "tqdm"),
    "labs": ("hypothesis", "tqdm"),
    "notebooks": ("pygments", "matplotlib", "hypothesis"),
}


class MissingExtraError(ModuleNotFoundError):
    """A feature needs a module of an extra that is not installed.

    A ``ModuleNotFoundError`` (so an ImportError), so code that probes for an optional module still catches it.

    Attributes:
        feature: what was asked for (``mqlab gen-store``, ``mqlab.spark.datasources``).
        module: the top-level module that is missing (``pyarrow``).
        extra: the extra that installs it (``spark``).
    """

    def __init__(self, feature: str, module: str, extra: str):
        super().__init__(f"{feature} needs {module}: pip install 'mqlab[{extra}]'", name=module)
        self.feature = feature
        self.module = module
        self.extra = extra


def extra_for(module: str, preferred: str | None = None) -> str | None:
    """The extra that installs ``module`` (a top-level name): ``preferred`` if it does, else the first that does.

    Returns None for a module no extra provides (mqlab's own, the standard library, a typo).

    Raises:
        ValueError: ``preferred`` is not an extra.
    """
    if preferred is not None and preferred not in EXTRAS:
        raise ValueError(f"unknown extra {preferred!r}; the extras are {', '.join(EXTRAS)}")
    if preferred is not None and module in EXTRAS[preferred]:
        return preferred
    return next((extra for extra, modules in EXTRAS.items() if module in modules), None)


@contextmanager
def needs_extra(extra: str | None, feature: str) -> Iterator[None]:
    """Turn a missing optional module raised inside the block into ``MissingExtraError`` for ``feature``.

    ``extra`` is the feature's extra (None: whichever extra installs the missing module). A missing module that no
    extra installs is a bug, not a missing extra: it propagates unchanged. An inner ``MissingExtraError`` (a library
    module's own guard) is reworded for the outer feature, which is what the reader asked for.

    Raises:
        MissingExtraError: an optional module is missing.
        ValueError: ``extra`` is not an extra.
    """
    if extra is not None and extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; the extras are {', '.join(EXTRAS)}")
    try:
        yield
    except ModuleNotFoundError as exc:
        module = (exc.name or "").split(".")[0]
        provider = extra_for(module, extra)
        if provider is None:
            raise
        raise MissingExtraError(feature, module, provider) from exc


def require(module: str, extra: str, feature: str) -> ModuleType:
    """Import ``module`` (dotted names too) for ``feature``, or raise ``MissingExtraError`` naming ``extra``.

    Raises:
        MissingExtraError: the module (or one it imports from an extra) is not installed.
        ValueError: ``extra`` is not an extra, or does not install ``module``.
    """
    top = module.split(".")[0]
    if extra not in EXTRAS or top not in EXTRAS[extra]:
        raise ValueError(f"extra {extra!r} does not install {top!r}; see mqlab.common.extras.EXTRAS")
    with needs_extra(extra, feature):
        return importlib.import_module(module)

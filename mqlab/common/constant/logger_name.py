"""The names of RocketMQ's logs, as Python loggers below ``mqlab``.

Java: org.apache.rocketmq.common.constant.LoggerName (rocketmq-all-4.9.3)

RocketMQ writes ``broker.log``, ``store.log``, ``namesrv.log``... through these logger names. mqlab logs through
``logging.getLogger("mqlab.<name>")``; the package installs no handler (a library stays quiet, and notebooks stay
deterministic), and the ``mqlab namesrv`` / ``mqlab broker`` commands send warnings and errors to stderr
(``cli_logging``).
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator

NAMESRV_LOGGER_NAME = "RocketmqNamesrv"
BROKER_LOGGER_NAME = "RocketmqBroker"
CLIENT_LOGGER_NAME = "RocketmqClient"
STORE_LOGGER_NAME = "RocketmqStore"
REMOTING_LOGGER_NAME = "RocketmqRemoting"
COMMON_LOGGER_NAME = "RocketmqCommon"

logging.getLogger("mqlab").addHandler(logging.NullHandler())


def get_logger(name: str) -> logging.Logger:
    """The Python logger for RocketMQ logger ``name`` (``mqlab.RocketmqStore`` for ``STORE_LOGGER_NAME``)."""
    return logging.getLogger(f"mqlab.{name}")


class _StderrHandler(logging.StreamHandler):
    """A handler that writes to whatever ``sys.stderr`` is when a line is logged (it may be replaced meanwhile)."""

    @property  # type: ignore[override]
    def stream(self):
        """The current ``sys.stderr`` (StreamHandler reads this attribute at each line)."""
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:
        pass


@contextlib.contextmanager
def cli_logging(level: int = logging.WARNING) -> Iterator[None]:
    """While the block runs, send mqlab's log lines of ``level`` and above to stderr, one line each.

    The server commands (``mqlab namesrv``, ``mqlab broker``) run inside it for the life of the process; run in-process
    (tests), the handler goes away with the command, so nothing else starts printing log lines.
    """
    root = logging.getLogger("mqlab")
    handler = _StderrHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s - %(message)s"))
    previous = root.level
    root.addHandler(handler)
    root.setLevel(level)
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)

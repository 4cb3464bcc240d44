"""The names of RocketMQ's logs, as Python loggers below ``mqlab``.

Java: org.apache.rocketmq.common.constant.LoggerName (rocketmq-all-4.9.3)

RocketMQ writes ``broker.log``, ``store.log``, ``namesrv.log``... through these logger names. mqlab logs through
``logging.getLogger("mqlab.<name>")``; the package installs no handler (a library stays quiet, and notebooks stay
deterministic), and the ``mqlab namesrv`` / ``mqlab broker`` / ``mqlab quickstart`` commands send warnings and
errors to stderr (``configure_cli_logging``).
"""

from __future__ import annotations

import logging
import sys

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


def configure_cli_logging(level: int = logging.WARNING) -> None:
    """Send mqlab's log lines of ``level`` and above to stderr, one line each (for the server commands)."""
    root = logging.getLogger("mqlab")
    if any(getattr(h, "_mqlab_cli", False) for h in root.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s - %(message)s"))
    handler._mqlab_cli = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level)

"""Base of every remoting failure: connect, send, timeout, too many requests, bad command.

Java: org.apache.rocketmq.remoting.exception.RemotingException (rocketmq-all-4.9.3)
"""

from __future__ import annotations


class RemotingException(Exception):
    """A remoting call failed; ``cause`` (also ``__cause__``) is the lower-level error, if any.

    Args:
        message: what failed, and where.
        cause: the error that caused it (Java's ``Throwable cause``).
    """

    def __init__(self, message: str, cause: BaseException | None = None):
        super().__init__(message)
        self.cause = cause
        if cause is not None:
            self.__cause__ = cause

"""A request could not be written to its connection (closed, reset, or failed while waiting).

Java: org.apache.rocketmq.remoting.exception.RemotingSendRequestException (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.remoting.exception.remoting_exception import RemotingException


class RemotingSendRequestException(RemotingException):
    """``send request to <addr> failed``."""

    def __init__(self, addr: str, cause: BaseException | None = None):
        super().__init__(f"send request to <{addr}> failed", cause)
        self.addr = addr

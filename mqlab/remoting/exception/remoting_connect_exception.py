"""No connection could be made to an address (or to any name server of the list).

Java: org.apache.rocketmq.remoting.exception.RemotingConnectException (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.remoting.exception.remoting_exception import RemotingException


class RemotingConnectException(RemotingException):
    """``connect to <addr> failed``."""

    def __init__(self, addr: str, cause: BaseException | None = None):
        super().__init__(f"connect to {addr} failed", cause)
        self.addr = addr

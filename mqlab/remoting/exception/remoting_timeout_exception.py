"""No response arrived within the timeout (or a permit could not be had in time).

Java: org.apache.rocketmq.remoting.exception.RemotingTimeoutException (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.remoting.exception.remoting_exception import RemotingException


class RemotingTimeoutException(RemotingException):
    """A timeout. Java's two constructors become one: with ``timeout_millis`` the first argument is the address.

    ``RemotingTimeoutException("invokeAsyncImpl call timeout")`` keeps the message as given;
    ``RemotingTimeoutException("10.0.0.1:9876", timeout_millis=3000)`` reads
    ``wait response on the channel <10.0.0.1:9876> timeout, 3000(ms)``.
    """

    def __init__(self, message: str, *, timeout_millis: int | None = None, cause: BaseException | None = None):
        self.addr: str | None = None
        self.timeout_millis = timeout_millis
        if timeout_millis is not None:
            self.addr = message
            message = f"wait response on the channel <{message}> timeout, {timeout_millis}(ms)"
        super().__init__(message, cause)

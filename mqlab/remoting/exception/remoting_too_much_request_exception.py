"""Too many requests in flight: no permit was free and the caller would not wait.

Java: org.apache.rocketmq.remoting.exception.RemotingTooMuchRequestException (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.remoting.exception.remoting_exception import RemotingException


class RemotingTooMuchRequestException(RemotingException):
    """E.g. ``invokeAsyncImpl invoke too fast`` (async or oneway permits used up, timeout 0)."""

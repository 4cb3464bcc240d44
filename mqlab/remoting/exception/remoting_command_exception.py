"""A command (frame, header or custom header) that cannot be decoded.

Java: org.apache.rocketmq.remoting.exception.RemotingCommandException (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from mqlab.remoting.exception.remoting_exception import RemotingException


class RemotingCommandException(RemotingException):
    """Bad command bytes or header fields; the message says which and where."""


class RemotingFrameError(RemotingCommandException):
    """A frame whose length prefix is impossible (negative, too short, or above the 16 MiB frame limit).

    Java: none (Netty's LengthFieldBasedFrameDecoder throws TooLongFrameException and the channel is closed).
    """

"""Turns a connection's bytes into commands: frames by the length prefix, then ``RemotingCommand#decode``.

Java: org.apache.rocketmq.remoting.netty.NettyDecoder (rocketmq-all-4.9.3)

Java's decoder catches any decoding failure, logs it and closes the channel. Here the failure is raised (as
``RemotingCommandException``, or ``RemotingFrameError`` for an impossible length) and the remoting layer closes
the connection, records the error and traces it, so a test or notebook can see why.
"""

from __future__ import annotations

from collections.abc import Iterator

from mqlab.remoting.protocol.remoting_command import FRAME_MAX_LENGTH, FrameDecoder, RemotingCommand


class NettyDecoder:
    """One per connection (it keeps the bytes of an incomplete frame).

    Args:
        max_frame_length: the largest frame, length field included (Java: system property
            ``com.rocketmq.remoting.frameMaxLength``, 16 MiB).
    """

    def __init__(self, max_frame_length: int = FRAME_MAX_LENGTH):
        self._frames = FrameDecoder(max_frame_length)

    def decode(self, data: bytes) -> Iterator[RemotingCommand]:
        """Yield each command completed by ``data``, in order. Java: NettyDecoder#decode.

        Raises:
            RemotingCommandException: a frame cannot be decoded (the connection must be closed).
        """
        for frame in self._frames.feed(data):
            yield RemotingCommand.decode(frame)

    @property
    def pending(self) -> int:
        """Bytes of a frame not yet complete."""
        return self._frames.pending

    def release(self) -> None:
        """Free the bytes of an incomplete frame (the connection closed; Netty releases its cumulation buffer)."""
        self._frames.clear()

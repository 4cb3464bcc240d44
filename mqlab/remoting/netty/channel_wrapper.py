"""The client's entry for one address: the connection (Java: the connect future and its channel).

Java: org.apache.rocketmq.remoting.netty.NettyRemotingClient$ChannelWrapper (rocketmq-all-4.9.3), an inner class
promoted here. Java connects asynchronously and keeps the ``ChannelFuture``; mqlab's ``runtime.network.connect``
returns an open connection or fails, so the wrapper only holds the connection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqlab.runtime.network import Connection


class ChannelWrapper:
    """Java: NettyRemotingClient$ChannelWrapper."""

    def __init__(self, channel: Connection):
        self.channel = channel

    def is_ok(self) -> bool:
        """Whether the connection is still usable. Java: ChannelWrapper#isOK (``channel.isActive()``)."""
        return self.channel is not None and self.channel.is_open

    def is_writable(self) -> bool:
        """Always true: mqlab has no write-buffer water marks. Java: ChannelWrapper#isWritable."""
        return True

    def get_channel(self) -> Connection:
        """Java: ChannelWrapper#getChannel."""
        return self.channel

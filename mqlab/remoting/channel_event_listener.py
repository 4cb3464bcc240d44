"""Who wants to hear that a connection opened, closed, went idle or failed (the name server, the broker).

Java: org.apache.rocketmq.remoting.ChannelEventListener (rocketmq-all-4.9.3). The name server's
``BrokerHousekeepingService`` is one: on close, exception or idle it drops the broker that used the channel.
Events arrive one at a time on the remoting instance's ``NettyEventExecutor``.
"""

from __future__ import annotations

from typing import Any, Protocol


class ChannelEventListener(Protocol):
    """Receives ``NettyEvent``s; ``channel`` is the connection (mqlab: a ``runtime.network`` connection)."""

    def on_channel_connect(self, remote_addr: str, channel: Any) -> None:
        """A connection was made. Java: ChannelEventListener#onChannelConnect."""
        ...

    def on_channel_close(self, remote_addr: str, channel: Any) -> None:
        """A connection closed. Java: ChannelEventListener#onChannelClose."""
        ...

    def on_channel_exception(self, remote_addr: str, channel: Any) -> None:
        """A connection failed while handling data. Java: ChannelEventListener#onChannelException."""
        ...

    def on_channel_idle(self, remote_addr: str, channel: Any) -> None:
        """A connection saw no traffic for the idle time and was closed. Java: ChannelEventListener#onChannelIdle."""
        ...

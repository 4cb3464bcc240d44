"""What a server calls for each request: a processor per request code, plus a default one.

Java: org.apache.rocketmq.remoting.netty.NettyRequestProcessor (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import Any, Protocol

from mqlab.remoting.protocol.remoting_command import RemotingCommand


class Channel(Protocol):
    """One connection as a processor sees it (Java: io.netty.channel.Channel)."""

    remote_address: str

    def close(self) -> None:
        """Close the connection."""
        ...


class ChannelHandlerContext(Protocol):
    """The request's context (Java: io.netty.channel.ChannelHandlerContext); only its channel is used."""

    channel: Channel


class NettyRequestProcessor(Protocol):
    """Handles requests; returns the response, or ``None`` for none (oneway, or answered later)."""

    def process_request(self, ctx: Any, request: RemotingCommand) -> RemotingCommand | None:
        """Handle one request. Java: NettyRequestProcessor#processRequest."""
        ...

    def reject_request(self) -> bool:
        """Whether to refuse requests right now (flow control). Java: NettyRequestProcessor#rejectRequest."""
        ...

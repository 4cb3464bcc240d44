"""A hook around every request: before it is sent or processed, after its response.

Java: org.apache.rocketmq.remoting.RPCHook (rocketmq-all-4.9.3). ACL signing (``AclClientRPCHook``) is the
usual implementation; mqlab's tests use hooks to watch requests go by.
"""

from __future__ import annotations

from typing import Protocol

from mqlab.remoting.protocol.remoting_command import RemotingCommand


class RPCHook(Protocol):
    """Called by the remoting client before a request and after its response, and by servers around processing."""

    def do_before_request(self, remote_addr: str | None, request: RemotingCommand) -> None:
        """Before the request is sent (client) or processed (server). Java: RPCHook#doBeforeRequest."""
        ...

    def do_after_response(
        self, remote_addr: str | None, request: RemotingCommand, response: RemotingCommand | None
    ) -> None:
        """After the response arrived (client) or was produced (server). Java: RPCHook#doAfterResponse."""
        ...

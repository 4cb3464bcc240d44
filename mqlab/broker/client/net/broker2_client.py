"""Requests the broker sends to its clients over their own connections.

Java: org.apache.rocketmq.broker.client.net.Broker2Client (rocketmq-all-4.9.3)
Left out: CHECK_TRANSACTION_STATE (transactions), offset resets and consumer status queries (admin tools).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mqlab.common.protocol.header.broker_headers import NotifyConsumerIdsChangedRequestHeader
from mqlab.common.protocol.request_code import RequestCode
from mqlab.remoting.protocol.remoting_command import RemotingCommand, RequestIdGenerator

if TYPE_CHECKING:
    from mqlab.remoting.netty.netty_remoting_server import NettyRemotingServer
    from mqlab.runtime.runtime import Runtime

# Java: invokeOneway(channel, request, 10): the oneway permit is awaited at most 10 ms.
NOTIFY_TIMEOUT_MILLIS = 10


class Broker2Client:
    """Server-to-client calls.

    Args:
        runtime: opaques (the node's request id counter) and trace.
        remoting_server: returns the broker's remoting server (made in ``BrokerController#initialize``).
    """

    def __init__(self, runtime: Runtime, remoting_server: Callable[[], NettyRemotingServer | None]):
        self.runtime = runtime
        self.remoting_server = remoting_server

    def notify_consumer_ids_changed(self, channel: Any, consumer_group: str | None) -> bool:
        """Tell one consumer its group changed (oneway NOTIFY_CONSUMER_IDS_CHANGED) so it rebalances at once.

        Returns whether the request was written; failures are only traced, as Java logs them.

        Java: Broker2Client#notifyConsumerIdsChanged
        """
        if consumer_group is None:
            return False
        server = self.remoting_server()
        if server is None:
            return False
        opaque = self.runtime.singleton(RequestIdGenerator, RequestIdGenerator).next()
        request = RemotingCommand.create_request_command(
            RequestCode.NOTIFY_CONSUMER_IDS_CHANGED,
            NotifyConsumerIdsChangedRequestHeader(consumer_group),
            opaque=opaque,
        )
        try:
            server.invoke_oneway(channel, request, NOTIFY_TIMEOUT_MILLIS)
        except Exception as exc:  # Java: log.error("notifyConsumerIdsChanged exception ...")
            self.runtime.trace_event("Broker2Client", "notifyFailed", group=consumer_group, error=repr(exc))
            return False
        self.runtime.trace_event(
            "Broker2Client",
            "notifyConsumerIdsChanged",
            group=consumer_group,
            remote=getattr(channel, "remote_address", ""),
        )
        return True

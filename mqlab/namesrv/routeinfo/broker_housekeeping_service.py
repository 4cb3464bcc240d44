"""Turns a closed, failed or idle broker connection into the broker's removal from the routes.

Java: org.apache.rocketmq.namesrv.routeinfo.BrokerHousekeepingService (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqlab.namesrv.routeinfo.route_info_manager import RouteInfoManager


class BrokerHousekeepingService:
    """The name server's ChannelEventListener."""

    def __init__(self, route_info_manager: RouteInfoManager):
        self.route_info_manager = route_info_manager

    def on_channel_connect(self, remote_addr: str, channel: Any) -> None:
        """Nothing to do. Java: BrokerHousekeepingService#onChannelConnect."""

    def on_channel_close(self, remote_addr: str, channel: Any) -> None:
        """Java: BrokerHousekeepingService#onChannelClose."""
        self.route_info_manager.on_channel_destroy(remote_addr, channel)

    def on_channel_exception(self, remote_addr: str, channel: Any) -> None:
        """Java: BrokerHousekeepingService#onChannelException."""
        self.route_info_manager.on_channel_destroy(remote_addr, channel)

    def on_channel_idle(self, remote_addr: str, channel: Any) -> None:
        """Java: BrokerHousekeepingService#onChannelIdle."""
        self.route_info_manager.on_channel_destroy(remote_addr, channel)

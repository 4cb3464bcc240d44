"""Forgets clients whose connections closed, failed or went idle, and sweeps silent ones every 10 s.

Java: org.apache.rocketmq.broker.client.ClientHousekeepingService (rocketmq-all-4.9.3)
Left out: the filter-server manager (filter servers are not part of mqlab).

It is the broker remoting server's ``ChannelEventListener``: a closed connection leaves its producer and consumer
groups at once (a consumer group then notifies its remaining members). The periodic scan (10 s, first after
10 s) drops clients whose last heartbeat is more than 120 s old and closes their connections.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mqlab.broker.client.consumer_manager import ConsumerManager
    from mqlab.broker.client.producer_manager import ProducerManager
    from mqlab.runtime.runtime import Runtime
    from mqlab.runtime.scheduler import TimerHandle

SCAN_INITIAL_DELAY_MS = 1000 * 10
SCAN_PERIOD_MS = 1000 * 10


class ClientHousekeepingService:
    """A ``ChannelEventListener`` over the producer and consumer managers."""

    def __init__(self, runtime: Runtime, producer_manager: ProducerManager, consumer_manager: ConsumerManager):
        self.runtime = runtime
        self.producer_manager = producer_manager
        self.consumer_manager = consumer_manager
        self._timer: TimerHandle | None = None

    def start(self) -> None:
        """Scan every 10 s after 10 s. Java: ClientHousekeepingService#start."""
        self._timer = self.runtime.scheduler.schedule_at_fixed_rate(
            SCAN_INITIAL_DELAY_MS, SCAN_PERIOD_MS, self.scan_exception_channel, name="ClientHousekeepingScheduledThread"
        )

    def shutdown(self) -> None:
        """Java: ClientHousekeepingService#shutdown."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def scan_exception_channel(self) -> list[str]:
        """Drop producers and consumers silent for 120 s; returns their client ids.

        Java: ClientHousekeepingService#scanExceptionChannel
        """
        removed = self.producer_manager.scan_not_active_channel() + self.consumer_manager.scan_not_active_channel()
        if removed:
            self.runtime.trace_event("ClientHousekeepingService", "expired", clients=",".join(removed))
        return removed

    def _forget(self, remote_addr: str, channel: Any) -> None:
        self.producer_manager.do_channel_close_event(remote_addr, channel)
        self.consumer_manager.do_channel_close_event(remote_addr, channel)

    def on_channel_connect(self, remote_addr: str, channel: Any) -> None:
        """Nothing to do. Java: ClientHousekeepingService#onChannelConnect."""

    def on_channel_close(self, remote_addr: str, channel: Any) -> None:
        """Java: ClientHousekeepingService#onChannelClose."""
        self._forget(remote_addr, channel)

    def on_channel_exception(self, remote_addr: str, channel: Any) -> None:
        """Java: ClientHousekeepingService#onChannelException."""
        self._forget(remote_addr, channel)

    def on_channel_idle(self, remote_addr: str, channel: Any) -> None:
        """Java: ClientHousekeepingService#onChannelIdle."""
        self._forget(remote_addr, channel)

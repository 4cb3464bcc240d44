"""The master's end of one slave's replication connection.

Java: org.apache.rocketmq.store.ha.HAConnection (rocketmq-all-4.9.3)
Promoted inner classes: ReadSocketService, WriteSocketService (each in its own module)

The slave's 8-byte reports arrive through ``on_data`` (``ReadSocketService``): the first is the request offset, the
later ones acknowledgements. ``WriteSocketService`` runs the writer loop. Closing (a read error, the peer's close,
housekeeping, a report beyond the master's max offset) stops both and takes the connection out of ``HAService``'s
list.

*Stricter than 4.9.3* (``process_report``): 4.9.3 checks only the later reports against the master's max offset and
raises ``push2SlaveMaxOffset`` with every report, the first included, so one peer that connects to the HA port and
sends ``2**62`` makes a SYNC_MASTER acknowledge every later put that no slave holds. mqlab refuses a report beyond
the master's max offset whichever it is, and counts a report only up to the end of the bytes this connection has
actually been sent. The 4.9.3 rule stays reachable as the ``ha-trust-slave-report`` variant of
``mqlab.chaos.broken``.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from mqlab.store.ha.read_socket_service import ReadSocketService
from mqlab.store.ha.write_socket_service import WriteSocketService

if TYPE_CHECKING:
    from mqlab.runtime.network import Connection
    from mqlab.store.ha.ha_service import HAService

_LOG = logging.getLogger(__name__)


class HAConnection:
    """One slave, seen from the master.

    Args:
        ha_service: the master's HA service (store, counters, the list of connections).
        channel: the accepted network connection.
    """

    def __init__(self, ha_service: HAService, channel: Connection):
        self.ha_service = ha_service
        self.runtime = ha_service.runtime
        self.channel = channel
        self.remote_address = channel.remote_address
        self.slave_request_offset = -1
        self.slave_ack_offset = -1
        self.closed = False
        self._lock = threading.Lock()
        self.read_socket_service = ReadSocketService(self)
        self.write_socket_service = WriteSocketService(self)
        ha_service.connection_count += 1  # Java: incremented in the constructor, decremented when reading ends

    def start(self) -> None:
        """Start the writer loop. Java: HAConnection#start."""
        self.write_socket_service.start()

    def on_data(self, data: bytes) -> None:
        """Reports from the slave. Java: HAConnection$ReadSocketService#processReadEvent (its effects)."""
        with self._lock:
            if self.closed:
                return
            offset = self.read_socket_service.process_read_event(data)
            if offset is None:
                return
            acked = self.process_report(offset)
        if acked is not None:
            self.ha_service.notify_transfer_some(acked)

    def process_report(self, offset: int) -> int | None:
        """Take one report (lock held); returns the offset it acknowledges, or ``None`` when it acknowledges nothing.

        Java: HAConnection$ReadSocketService#processReadEvent (the report's handling). *Stricter than 4.9.3*: a report
        beyond the master's max offset closes the connection even when it is the first, and an acknowledgement
        counts only up to ``transferred_offset``, the end of what this connection's writer has sent.
        """
        master_max = self.ha_service.store.get_max_phy_offset()
        if offset > master_max:
            self.runtime.trace_event(
                "HAConnection", "reportBeyondMaster", slave=self.remote_address, offset=offset, masterMax=master_max
            )
            _LOG.warning(
                "HA connection from %s refused: it reported offset %d, beyond the master's max offset %d",
                self.remote_address,
                offset,
                master_max,
            )
            self._close_locked(f"slave reported offset {offset}, beyond the master's max offset {master_max}")
            return None
        self.slave_ack_offset = offset
        if self.slave_request_offset < 0:
            self.slave_request_offset = offset
            self.runtime.trace_event("HAConnection", "slaveRequestOffset", slave=self.remote_address, offset=offset)
            self.write_socket_service.wakeup()
        sent = self.write_socket_service.transferred_offset
        if sent < 0:
            return None  # nothing sent on this connection yet: the report proves nothing about the slave's store
        return min(offset, sent)

    def housekeeping_expired(self) -> bool:
        """No read for longer than ``haHousekeepingInterval``. Java: ReadSocketService#run (the interval check)."""
        interval = self.runtime.now_ms() - self.read_socket_service.last_read_timestamp
        return interval > self.ha_service.store.config.ha_housekeeping_interval

    def close(self, reason: str = "closed") -> None:
        """Stop both sides and forget the connection (again is harmless). Java: HAConnection#shutdown."""
        with self._lock:
            self._close_locked(reason)

    def _close_locked(self, reason: str) -> None:
        if self.closed:
            return
        self.closed = True
        self.runtime.trace_event("HAConnection", "close", slave=self.remote_address, reason=reason)
        self.write_socket_service.make_stop()
        self.channel.close()
        self.ha_service.remove_connection(self)

    def __repr__(self) -> str:
        return (
            f"HAConnection(slave={self.remote_address}, request={self.slave_request_offset}, "
            f"ack={self.slave_ack_offset}, closed={self.closed})"
        )

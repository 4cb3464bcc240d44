"""The master's end of one slave's replication connection.

Java: org.apache.rocketmq.store.ha.HAConnection (rocketmq-all-4.9.3)
Promoted inner classes: ReadSocketService, WriteSocketService (each in its own module)

The slave's 8-byte reports arrive through ``on_data`` (``ReadSocketService``): the first is the request offset, the
later ones acknowledgements, each raising ``HAService``'s ``push2SlaveMaxOffset``. ``WriteSocketService`` runs the
writer loop. Closing (a read error, the peer's close, housekeeping, an ack beyond the master's max offset) stops
both and takes the connection out of ``HAService``'s list.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from mqlab.store.ha.read_socket_service import ReadSocketService
from mqlab.store.ha.write_socket_service import WriteSocketService

if TYPE_CHECKING:
    from mqlab.runtime.network import Connection
    from mqlab.store.ha.ha_service import HAService


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
            self.slave_ack_offset = offset
            if self.slave_request_offset < 0:
                self.slave_request_offset = offset
                self.runtime.trace_event("HAConnection", "slaveRequestOffset", slave=self.remote_address, offset=offset)
                self.write_socket_service.wakeup()
            elif offset > self.ha_service.store.get_max_phy_offset():
                self.runtime.trace_event("HAConnection", "ackBeyondMaster", slave=self.remote_address, offset=offset)
                self._close_locked("slave ack offset beyond the master's max offset")
                return
        self.ha_service.notify_transfer_some(offset)

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

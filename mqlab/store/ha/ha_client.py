"""The slave's end of replication: connect to the master, report the local max offset, append what arrives.

Java: org.apache.rocketmq.store.ha.HAService$HAClient (rocketmq-all-4.9.3)

``run_once`` is one turn of Java's loop: connect if there is a master address and no connection (else wait 5 s);
report the offset as a heartbeat when nothing was written for ``haSendHeartbeatInterval``; report again whenever
the local max offset grew; close when the slave's *own* last write is older than ``haHousekeepingInterval``.
Frames from the master arrive through ``on_data`` (Java's ``processReadEvent``) and are appended by
``dispatch_read_request``. Right after a (re)connect nothing is sent until the heartbeat timer fires, so the first
report goes out on the first loop pass more than ``haSendHeartbeatInterval`` after the connect; mqlab keeps that.
After a housekeeping close, or a refused frame, Java's loop goes straight round to ``connectMaster`` (its 5 s wait
is only for a missing address or a failed connect), so mqlab reconnects on the next pass too (AUDIT-9).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from mqlab.common.service_thread import ServiceThread
from mqlab.runtime.network import NetworkError
from mqlab.store.ha.ha_protocol import HEADER, HEADER_SIZE, encode_report

if TYPE_CHECKING:
    from mqlab.runtime.network import Connection

# Java: HAClient#connectMaster connects with a 5 s timeout; the loop sleeps 5 s while not connected and selects
# for 1 s when connected.
CONNECT_TIMEOUT_MS = 5000
NOT_CONNECTED_WAIT_MS = 5000
CONNECTED_WAIT_MS = 1000
# Java: HAClient.READ_MAX_BUFFER_SIZE (4 MiB): at most this many unread bytes are buffered.
READ_MAX_BUFFER_SIZE = 1024 * 1024 * 4


class HAClient(ServiceThread):
    """Replicates the master's CommitLog into the local store.

    Args:
        runtime: clock, scheduler, network and trace.
        store: ``get_max_phy_offset()``, ``append_to_commit_log(start, data)`` and ``config``.
    """

    works_after_last_wait = False  # Java connects, reports and reads first; its waitForRunning(5000) comes last

    def __init__(self, runtime: Any, store: Any):
        super().__init__(runtime)
        self.store = store
        self.master_address: str | None = None
        self.channel: Connection | None = None
        self.current_reported_offset = 0
        self.last_write_timestamp = runtime.now_ms()
        self.buffer = bytearray()
        self.dispatch_position = 0
        self._reconnect_at_once = False  # the loop closed the connection itself: the next pass connects, no 5 s wait
        self._lock = threading.RLock()

    # -- address ---------------------------------------------------------------------------------------------
    def update_master_address(self, new_addr: str | None) -> None:
        """Remember the master's HA address; a live connection keeps its old peer until it is reconnected.

        Java: HAService$HAClient#updateMasterAddress
        """
        if new_addr != self.master_address:
            self.runtime.trace_event("HAClient", "updateMasterAddress", old=self.master_address, new=new_addr)
            self.master_address = new_addr

    # -- loop ------------------------------------------------------------------------------------------------
    def wait_interval_ms(self) -> int:
        """1 s while connected (Java's ``select(1000)``), 5 s while not (Java's ``waitForRunning(5000)``).

        0 right after a housekeeping close: Java's loop then goes straight on to ``connectMaster``.
        """
        if self.channel is not None:
            return CONNECTED_WAIT_MS
        return 0 if self._reconnect_at_once else NOT_CONNECTED_WAIT_MS

    def run_once(self) -> bool:
        """One turn of the loop; returns whether a connection to the master is open afterwards.

        Java: HAService$HAClient#run (loop body)
        """
        self._reconnect_at_once = False
        if not self.connect_master():
            return False
        with self._lock:
            heartbeat_due = self.is_time_to_report_offset()
            if heartbeat_due and not self.report_slave_max_offset(self.current_reported_offset):
                self.close_master()
                return False
            if not self.report_slave_max_offset_plus():
                return False
            interval = self.runtime.now_ms() - self.last_write_timestamp
            if interval > self.store.config.ha_housekeeping_interval:
                self.runtime.trace_event("HAClient", "masterNotResponse", master=self.master_address, interval=interval)
                self.close_master()
                self._reconnect_at_once = True
                return False
        return True

    def is_time_to_report_offset(self) -> bool:
        """Nothing written for longer than ``haSendHeartbeatInterval``. Java: HAClient#isTimeToReportOffset."""
        interval = self.runtime.now_ms() - self.last_write_timestamp
        return interval > self.store.config.ha_send_heartbeat_interval

    def connect_master(self) -> bool:
        """Open the connection when there is none and an address is known. Java: HAService$HAClient#connectMaster."""
        if self.channel is not None:
            return True
        addr = self.master_address
        if addr is None:
            return False
        try:
            channel = self.runtime.network.connect(addr, self, timeout_ms=CONNECT_TIMEOUT_MS)
        except NetworkError as exc:
            self.runtime.trace_event("HAClient", "connectFailed", master=addr, error=str(exc))
            return False
        with self._lock:
            self.channel = channel
            self.current_reported_offset = self.store.get_max_phy_offset()
            self.last_write_timestamp = self.runtime.now_ms()
        self.runtime.trace_event("HAClient", "connectMaster", master=addr, offset=self.current_reported_offset)
        return True

    # -- writing ---------------------------------------------------------------------------------------------
    def report_slave_max_offset(self, max_offset: int) -> bool:
        """Send the 8-byte report. Java: HAService$HAClient#reportSlaveMaxOffset."""
        channel = self.channel
        if channel is None:
            return False
        try:
            channel.send(encode_report(max_offset))
        except NetworkError:
            return False
        self.last_write_timestamp = self.runtime.now_ms()
        self.runtime.trace_event("HAClient", "reportSlaveMaxOffset", offset=max_offset)
        return True

    def report_slave_max_offset_plus(self) -> bool:
        """Report when the local max offset grew; a failed report closes. Java: HAClient#reportSlaveMaxOffsetPlus."""
        current = self.store.get_max_phy_offset()
        if current > self.current_reported_offset:
            self.current_reported_offset = current
            if not self.report_slave_max_offset(current):
                self.close_master()
                return False
        return True

    # -- reading ---------------------------------------------------------------------------------------------
    def on_data(self, conn: Connection, data: bytes) -> None:
        """Frames from the master. Java: HAService$HAClient#processReadEvent."""
        with self._lock:
            if conn is not self.channel:
                return
            self.buffer += data
            if not self.dispatch_read_request():
                self.close_master()
                # Java closes inside its loop pass, whose housekeeping check (lastWriteTimestamp is now 0) is then
                # passed too, and the next pass connects at once: end the current 1 s wait now.
                self._reconnect_at_once = True
                self.wakeup()

    def on_close(self, conn: Connection) -> None:
        """The master closed (or the connection broke)."""
        with self._lock:
            if conn is self.channel:
                self.close_master()

    def dispatch_read_request(self) -> bool:
        """Append every complete frame; ``False`` when the master's offset is not the local max offset.

        Java: HAService$HAClient#dispatchReadRequest. As in Java, the append's own result is not checked: a failed
        append shows up as an offset mismatch at the next frame.
        """
        buffer = self.buffer
        while len(buffer) - self.dispatch_position >= HEADER_SIZE:
            master_phy_offset, body_size = HEADER.unpack_from(buffer, self.dispatch_position)
            slave_phy_offset = self.store.get_max_phy_offset()
            if slave_phy_offset != 0 and slave_phy_offset != master_phy_offset:
                self.runtime.trace_event("HAClient", "offsetMismatch", slave=slave_phy_offset, master=master_phy_offset)
                return False
            start = self.dispatch_position + HEADER_SIZE
            if len(buffer) - start < body_size:
                break
            body = bytes(buffer[start : start + body_size])
            self.store.append_to_commit_log(master_phy_offset, body)
            self.dispatch_position = start + body_size
            if not self.report_slave_max_offset_plus():
                return False
        # Java moves the unread tail to the front of its other buffer when the read buffer is full.
        if self.dispatch_position:
            del buffer[: self.dispatch_position]
            self.dispatch_position = 0
        return len(buffer) <= READ_MAX_BUFFER_SIZE

    def close_master(self) -> None:
        """Drop the connection and the buffered bytes. Java: HAService$HAClient#closeMaster."""
        with self._lock:
            channel = self.channel
            if channel is None:
                return
            self.channel = None
            self.last_write_timestamp = 0
            self.dispatch_position = 0
            self.buffer = bytearray()
        self.runtime.trace_event("HAClient", "closeMaster", master=channel.remote_address)
        channel.close()

    def on_stopped(self) -> None:
        """Close the connection when the loop ends."""
        self.close_master()

    def shutdown(self) -> None:
        """Stop the loop and close the connection. Java: HAService$HAClient#shutdown."""
        super().shutdown()
        self.close_master()

    def get_service_name(self) -> str:
        """Thread name. Java: HAClient#getServiceName."""
        return "HAClient"

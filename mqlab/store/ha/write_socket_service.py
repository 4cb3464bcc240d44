"""The master's writer of one slave connection: CommitLog bytes in batches, and heartbeats.

Java: org.apache.rocketmq.store.ha.HAConnection$WriteSocketService (rocketmq-all-4.9.3)

``run_once`` is one turn of Java's loop: nothing until the slave's first report (the request offset); then, on the
first turn, where to start (a request of 0 starts at the beginning of the master's **last** CommitLog file, so a new
slave never receives older files); a heartbeat header ``[nextTransferFromWhere, 0]`` when nothing was written for
``haSendHeartbeatInterval``; then up to ``haTransferBatchSize`` bytes from the one segment holding
``nextTransferFromWhere``. mqlab's ``send`` takes all the bytes at once, so Java's "previous write unfinished" branch
never arises.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.common.service_thread import ServiceThread
from mqlab.runtime.network import NetworkError
from mqlab.store.ha.ha_protocol import encode_transfer

if TYPE_CHECKING:
    from mqlab.store.ha.ha_connection import HAConnection

# Java: the 10 ms sleep while no request offset has arrived, and allWaitForRunning(100) when there is no new data.
NO_REQUEST_WAIT_MS = 10
NO_DATA_WAIT_MS = 100


class WriteSocketService(ServiceThread):
    """Pushes the CommitLog to one slave."""

    works_after_last_wait = False  # Java transfers first and waits (allWaitForRunning) at the end of the loop body

    def __init__(self, connection: HAConnection):
        super().__init__(connection.runtime)
        self.connection = connection
        self.next_transfer_from_where = -1
        # The end of the CommitLog bytes sent on this connection (-1: none yet). Set before each send, so an ack that
        # races the send's return is not refused; only acks up to it may raise push2SlaveMaxOffset (HAConnection).
        self.transferred_offset = -1
        self.last_write_timestamp = self.runtime.now_ms()
        self._next_wait_ms = NO_REQUEST_WAIT_MS

    def wait_interval_ms(self) -> int:
        """0 after a batch (Java loops straight on while the socket is writable), else 10 or 100 ms."""
        return self._next_wait_ms

    def first_transfer_offset(self, request_offset: int) -> int:
        """Where the first transfer starts: the request, or for 0 the start of the master's last file.

        Java: HAConnection$WriteSocketService#run (the ``nextTransferFromWhere == -1`` branch)
        """
        if request_offset != 0:
            return request_offset
        store = self.connection.ha_service.store
        max_offset = store.get_max_phy_offset()
        return max(0, max_offset - max_offset % store.config.mapped_file_size_commit_log)

    def run_once(self) -> int:
        """One turn; returns the CommitLog bytes sent (0 for a heartbeat or nothing).

        Java: HAConnection$WriteSocketService#run (loop body) and #transferData
        """
        conn = self.connection
        if conn.housekeeping_expired():
            conn.close("master housekeeping: no report from the slave")
            return 0
        request_offset = conn.slave_request_offset
        if request_offset < 0:
            self._next_wait_ms = NO_REQUEST_WAIT_MS
            return 0
        if self.next_transfer_from_where < 0:
            self.next_transfer_from_where = self.first_transfer_offset(request_offset)
            self.runtime.trace_event(
                "HAConnection", "firstTransfer", slave=conn.remote_address, fromWhere=self.next_transfer_from_where
            )
        now = self.runtime.now_ms()
        config = conn.ha_service.store.config
        heartbeat_due = now - self.last_write_timestamp > config.ha_send_heartbeat_interval
        if heartbeat_due and not self._transfer(encode_transfer(self.next_transfer_from_where)):
            return 0
        result = conn.ha_service.store.get_commit_log_data(
            self.next_transfer_from_where, max_size=config.ha_transfer_batch_size
        )
        if result is None or result.size == 0:
            self._next_wait_ms = NO_DATA_WAIT_MS
            return 0
        body = bytes(result.data[: config.ha_transfer_batch_size])
        this_offset = self.next_transfer_from_where
        self.next_transfer_from_where += len(body)
        self.transferred_offset = self.next_transfer_from_where
        if not self._transfer(encode_transfer(this_offset, body)):
            return 0
        self.runtime.trace_event(
            "HAConnection", "transfer", slave=conn.remote_address, offset=this_offset, size=len(body)
        )
        self._next_wait_ms = 0
        return len(body)

    def _transfer(self, frame: bytes) -> bool:
        try:
            self.connection.channel.send(frame)
        except NetworkError as exc:
            self.connection.close(f"write failed: {exc}")
            return False
        self.last_write_timestamp = self.runtime.now_ms()
        return True

    def get_service_name(self) -> str:
        """Thread name. Java: WriteSocketService#getServiceName."""
        return "WriteSocketService"

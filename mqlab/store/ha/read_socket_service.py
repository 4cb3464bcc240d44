"""The master's reader of one slave connection: turns the slave's 8-byte reports into acknowledgements.

Java: org.apache.rocketmq.store.ha.HAConnection$ReadSocketService (rocketmq-all-4.9.3). Java runs a thread that
selects and reads into a 1 MiB buffer; mqlab's network hands the bytes over as they arrive (``on_data``), so the
service is the parsing step alone, fed by ``HAConnection``. The housekeeping timeout (no read for longer than
``haHousekeepingInterval``) is checked by the connection's writer loop, which runs anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqlab.store.ha.ha_protocol import REPORT, REPORT_SIZE

if TYPE_CHECKING:
    from mqlab.store.ha.ha_connection import HAConnection

# Java: ReadSocketService.READ_MAX_BUFFER_SIZE; the buffer restarts at 0 when full, a multiple of 8.
READ_MAX_BUFFER_SIZE = 1024 * 1024


class ReadSocketService:
    """Keeps the unread bytes of one connection and the position of the last processed report."""

    def __init__(self, connection: HAConnection):
        self.connection = connection
        self.buffer = bytearray()
        self.process_position = 0
        self.last_read_timestamp = connection.runtime.now_ms()

    def process_read_event(self, data: bytes) -> int | None:
        """Take in ``data``; returns the acknowledged offset when a whole report is newly available.

        Java: HAConnection$ReadSocketService#processReadEvent. Only the **last** complete report counts: the
        position is rounded down to a multiple of 8 and the long just before it is read, so reports that arrived
        together collapse into the newest.
        """
        self.last_read_timestamp = self.connection.runtime.now_ms()
        self.buffer += data
        aligned = len(self.buffer) - len(self.buffer) % REPORT_SIZE
        if aligned - self.process_position < REPORT_SIZE:
            return None
        (offset,) = REPORT.unpack_from(self.buffer, aligned - REPORT_SIZE)
        self.process_position = aligned
        if aligned >= READ_MAX_BUFFER_SIZE:  # Java flips and reuses the full buffer from 0
            del self.buffer[:aligned]
            self.process_position = 0
        return offset

"""The two frames of the HA wire protocol: plain TCP, no remoting framing, big-endian like Java's ByteBuffer.

Java: none (4.9.3 writes them inline in ``HAService$HAClient#reportSlaveMaxOffset`` and
``HAConnection$WriteSocketService#run``; mqlab declares them once here).

* slave → master: ``[long slaveMaxOffset]`` (8 bytes), the first on a connection is the request offset, the
  later ones are acknowledgements;
* master → slave: ``[long masterPhyOffset][int bodySize]`` (12 bytes) followed by ``bodySize`` raw CommitLog bytes;
  ``bodySize = 0`` is a heartbeat.
"""

from __future__ import annotations

import struct

REPORT = struct.Struct(">q")
HEADER = struct.Struct(">qi")
REPORT_SIZE = REPORT.size  # 8
HEADER_SIZE = HEADER.size  # 12


def encode_report(offset: int) -> bytes:
    """The slave's 8-byte offset report."""
    return REPORT.pack(offset)


def encode_transfer(offset: int, body: bytes = b"") -> bytes:
    """A transfer frame: the 12-byte header, then the CommitLog bytes (none for a heartbeat)."""
    return HEADER.pack(offset, len(body)) + body

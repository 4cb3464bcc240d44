"""The least Python that answers RocketMQ remoting requests: the floor of a request/response round trip.

Java: none (benchmark baseline). ``python -m bench.baseline_responder RESPONSE_FILE`` listens on a free loopback
port, prints ``port N`` and answers every frame it reads with the same prebuilt response frame (the bytes of
``RESPONSE_FILE``), from the thread that read it: no decoding, no objects, no store. A client that sends a request
and waits for the answer gets the fastest round trip a Python server can give on this machine; the client
benchmark divides the broker's figures by this one.
"""

from __future__ import annotations

import socket
import struct
import sys
import threading
from pathlib import Path

_LENGTH = struct.Struct(">i")


def _serve(conn: socket.socket, response: bytes) -> None:
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    pending = b""
    with conn:
        while True:
            data = conn.recv(256 * 1024)
            if not data:
                return
            pending += data
            answers = 0
            while len(pending) >= 4:
                (length,) = _LENGTH.unpack_from(pending, 0)
                if len(pending) < 4 + length:
                    break
                pending = pending[4 + length :]
                answers += 1
            if answers:
                conn.sendall(response * answers)


def main(argv: list[str] | None = None) -> int:
    """Serve until the process is killed."""
    args = sys.argv[1:] if argv is None else argv
    response = Path(args[0]).read_bytes()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    print(f"port {listener.getsockname()[1]}", flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=_serve, args=(conn, response), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())

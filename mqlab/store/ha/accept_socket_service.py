"""The master's HA listener: every accepted socket becomes an ``HAConnection``.

Java: org.apache.rocketmq.store.ha.HAService$AcceptSocketService (rocketmq-all-4.9.3). Java selects on a server
socket every second; mqlab's network announces each accepted connection (``on_accept``) and routes its data and
close here, where they are handed to the connection's ``HAConnection``.

*Stricter than 4.9.3*: at most ``haMaxConnections`` (mqlab only, 16 by default) connections are open at once; a
connection beyond that is closed at once with a warning. 4.9.3 accepts any number, each with two threads.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from mqlab.store.ha.ha_connection import HAConnection

if TYPE_CHECKING:
    from mqlab.runtime.network import Connection, Listener
    from mqlab.store.ha.ha_service import HAService

_LOG = logging.getLogger(__name__)


class AcceptSocketService:
    """Listens on ``host:haListenPort`` for slaves (the port is read when it binds)."""

    def __init__(self, ha_service: HAService, listen_host: str):
        self.ha_service = ha_service
        self.listen_host = listen_host
        self.address = f"{listen_host}:{ha_service.store.config.ha_listen_port}"
        self.listener: Listener | None = None
        self._by_channel: dict[int, HAConnection] = {}
        self._lock = threading.Lock()

    def begin_accept(self) -> None:
        """Bind the HA port. Java: AcceptSocketService#beginAccept."""
        self.address = f"{self.listen_host}:{self.ha_service.store.config.ha_listen_port}"
        self.listener = self.ha_service.runtime.network.listen(self.address, self)
        self.address = self.listener.address

    def on_accept(self, conn: Connection) -> None:
        """A slave connected (refused beyond ``haMaxConnections``). Java: AcceptSocketService#run (accept branch)."""
        limit = self.ha_service.store.config.ha_max_connections
        open_now = len(self.ha_service.connection_list)
        if open_now >= limit:
            self.ha_service.runtime.trace_event(
                "HAService", "refuseConnection", slave=conn.remote_address, open=open_now, limit=limit
            )
            _LOG.warning(
                "HA connection from %s refused: %d HA connections are open, the most haMaxConnections (%d) allows",
                conn.remote_address,
                open_now,
                limit,
            )
            conn.close()
            return
        connection = HAConnection(self.ha_service, conn)
        with self._lock:
            self._by_channel[id(conn)] = connection
        self.ha_service.runtime.trace_event("HAService", "accept", slave=conn.remote_address)
        connection.start()
        self.ha_service.add_connection(connection)

    def on_data(self, conn: Connection, data: bytes) -> None:
        """Bytes from a slave: its connection's reader takes them."""
        with self._lock:
            connection = self._by_channel.get(id(conn))
        if connection is not None:
            connection.on_data(data)

    def on_close(self, conn: Connection) -> None:
        """The socket closed: the connection ends (Java: the read thread sees -1 or an IOException)."""
        with self._lock:
            connection = self._by_channel.pop(id(conn), None)
        if connection is not None:
            connection.close("socket closed")

    def shutdown(self) -> None:
        """Stop accepting. Java: AcceptSocketService#shutdown."""
        if self.listener is not None:
            self.listener.close()
            self.listener = None

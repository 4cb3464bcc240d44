"""Replication of the CommitLog from a master to its slaves.

Java: org.apache.rocketmq.store.ha.HAService (rocketmq-all-4.9.3)
Promoted inner classes: AcceptSocketService, GroupTransferService, HAClient (each in its own module)
Left out: DLedger (its own replication), the ``WaitNotifyObject`` (``wakeup_all_writers`` wakes each writer loop)

Every broker runs one: the acceptor listens on ``haListenPort`` (slaves connect there), the HA client idles until a
master address is set (on a slave). ``push2_slave_max_offset`` is **one** number for all slaves, the highest
acknowledgement of any of them: a SYNC_MASTER with two slaves is satisfied by the faster.
"""

from __future__ import annotations

import threading
from typing import Any

from mqlab.store.ha.accept_socket_service import AcceptSocketService
from mqlab.store.ha.group_transfer_service import GroupTransferService
from mqlab.store.ha.ha_client import HAClient
from mqlab.store.ha.ha_connection import HAConnection


class HAService:
    """The HA side of one store.

    Args:
        store: the ``DefaultMessageStore`` (``config``, ``get_max_phy_offset``, ``get_commit_log_data``,
            ``append_to_commit_log``).
        runtime: clock, scheduler, network and trace.
        listen_host: the interface to bind the HA port on (Java binds all of them).
    """

    def __init__(self, store: Any, runtime: Any, *, listen_host: str = "0.0.0.0"):
        self.store = store
        self.runtime = runtime
        self.connection_count = 0
        self.connection_list: list[HAConnection] = []
        self.push2_slave_max_offset = 0
        self._lock = threading.Lock()
        self.started = False
        self.accept_socket_service = AcceptSocketService(self, listen_host)
        self.group_transfer_service = GroupTransferService(runtime, lambda: self.push2_slave_max_offset)
        self.ha_client = HAClient(runtime, store)

    def start(self) -> None:
        """Bind the HA port, then start the transfer service and the HA client. Java: HAService#start."""
        self.started = True
        self.accept_socket_service.begin_accept()
        if self.store.config.ha_listen_port == 0:
            # mqlab: a broker on port 0 (tests, real-mode clusters) advertises the HA port the system picked.
            self.store.config.ha_listen_port = int(self.listen_address.rpartition(":")[2])
        self.group_transfer_service.start()
        self.ha_client.start()

    def shutdown(self) -> None:
        """Stop the client, the acceptor, every connection and the transfer service. Java: HAService#shutdown."""
        if not self.started:
            return  # built but never started (a store that does not replicate): nothing runs
        self.started = False
        self.ha_client.shutdown()
        self.accept_socket_service.shutdown()
        for connection in list(self.connection_list):
            connection.close("HA service shut down")
        self.group_transfer_service.shutdown()

    @property
    def listen_address(self) -> str:
        """The bound HA address (the real port when ``haListenPort`` was 0)."""
        return self.accept_socket_service.address

    # -- master side -----------------------------------------------------------------------------------------
    def update_master_address(self, new_addr: str | None) -> None:
        """Tell the HA client where the master listens. Java: HAService#updateMasterAddress."""
        self.ha_client.update_master_address(new_addr)

    def is_slave_ok(self, master_put_where: int) -> bool:
        """A slave is connected and less than ``haSlaveFallbehindMax`` behind. Java: HAService#isSlaveOK."""
        behind = master_put_where - self.push2_slave_max_offset
        return self.connection_count > 0 and behind < self.store.config.ha_slave_fallbehind_max

    def notify_transfer_some(self, offset: int) -> None:
        """A slave acknowledged ``offset``: raise the shared maximum, wake waiting puts. Java: #notifyTransferSome."""
        with self._lock:
            if offset > self.push2_slave_max_offset:
                self.push2_slave_max_offset = offset
        self.group_transfer_service.notify_transfer_some()

    def put_request(self, request: Any) -> None:
        """Queue a SYNC_MASTER put to wait for a slave. Java: HAService#putRequest."""
        self.group_transfer_service.put_request(request)

    def wakeup_all_writers(self) -> None:
        """Wake every connection's writer (new data). Java: ``getWaitNotifyObject().wakeupAll()``."""
        for connection in list(self.connection_list):
            connection.write_socket_service.wakeup()

    def add_connection(self, connection: HAConnection) -> None:
        """Java: HAService#addConnection."""
        with self._lock:
            self.connection_list.append(connection)

    def remove_connection(self, connection: HAConnection) -> None:
        """Forget a closed connection and count it out. Java: HAService#removeConnection (and the read thread's end)."""
        with self._lock:
            if connection in self.connection_list:
                self.connection_list.remove(connection)
            self.connection_count -= 1

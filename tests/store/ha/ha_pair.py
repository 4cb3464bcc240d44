"""A master store and a slave store replicating over a simulated world's network (no broker, no name server)."""

from __future__ import annotations

from pathlib import Path

from mqlab.runtime import SimulatedWorld
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.default_message_store import DefaultMessageStore
from tests.store.helpers import small_config

MASTER_IP, SLAVE_IP = "10.0.1.1", "10.0.1.2"
HA_PORT = 10912
MASTER_HA_ADDR = f"{MASTER_IP}:{HA_PORT}"


class HAPair:
    """``master`` (SYNC_MASTER or ASYNC_MASTER) and ``slave`` stores in one simulated world."""

    def __init__(self, tmp_path: Path, *, role: BrokerRole = BrokerRole.SYNC_MASTER, seed: int = 3, **fields):
        self.world = SimulatedWorld(seed=seed)
        self.master_rt = self.world.runtime("master", ip=MASTER_IP)
        self.slave_rt = self.world.runtime("slave", ip=SLAVE_IP)
        self.master = DefaultMessageStore(
            small_config(tmp_path / "master", broker_role=role, ha_listen_port=HA_PORT, **fields), self.master_rt
        )
        self.slave = DefaultMessageStore(
            small_config(tmp_path / "slave", broker_role=BrokerRole.SLAVE, ha_listen_port=HA_PORT, **fields),
            self.slave_rt,
        )
        for store in (self.master, self.slave):
            store.enable_ha()
            store.load()
            store.start()

    def connect(self) -> None:
        """Point the slave at the master and wait until the master has its request offset."""
        self.slave.update_ha_master_address(MASTER_HA_ADDR)
        assert self.world.run_until(self.slave_requested, timeout_ms=20_000)

    def slave_requested(self) -> bool:
        ha = self.master.ha_service
        assert ha is not None
        return any(c.slave_request_offset >= 0 for c in ha.connection_list)

    def in_sync(self) -> bool:
        return self.slave.get_max_phy_offset() == self.master.get_max_phy_offset()

    def commit_log_bytes(self, store: DefaultMessageStore) -> bytes:
        files = sorted(Path(store.config.store_path_commit_log).glob("[0-9]*"))
        size = store.config.mapped_file_size_commit_log
        out = bytearray()
        for f in files:
            out += f.read_bytes()[:size]
        return bytes(out[: store.get_max_phy_offset()])

    def shutdown(self) -> None:
        for store in (self.slave, self.master):
            store.shutdown()

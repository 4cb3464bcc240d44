"""The addresses of one broker name: id 0 is the master, others slaves.

Java: org.apache.rocketmq.common.protocol.route.BrokerData (rocketmq-all-4.9.3)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mqlab.common.jdk.hash_map import JavaHashMap
from mqlab.common.mix_all import MASTER_ID

if TYPE_CHECKING:
    import random


@dataclass(slots=True)
class BrokerData:
    """``broker_addrs`` maps broker id → ``"ip:port"`` (a Java HashMap, written with bare numeric keys)."""

    cluster: str
    broker_name: str
    broker_addrs: JavaHashMap[int, str] = field(default_factory=JavaHashMap)

    def select_broker_addr(self, rng: random.Random) -> str | None:
        """The master's address, else a random one. Java: BrokerData#selectBrokerAddr."""
        master = self.broker_addrs.get(MASTER_ID)
        if master is not None:
            return master
        addrs = list(self.broker_addrs.values())
        return rng.choice(addrs) if addrs else None

    def clone(self) -> BrokerData:
        """A copy with its own address map."""
        return BrokerData(self.cluster, self.broker_name, JavaHashMap.copy_of(self.broker_addrs))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BrokerData:
        """From decoded JSON (numeric keys may be bare ints or strings)."""
        addrs: JavaHashMap[int, str] = JavaHashMap()
        for key, value in (data.get("brokerAddrs") or {}).items():
            addrs[int(key)] = value
        return cls(data.get("cluster", ""), data["brokerName"], addrs)

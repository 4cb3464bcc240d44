"""One MQClientInstance per client id: the reason producers and consumers of one process share connections.

Every producer and consumer asks the manager for the instance of its client id (``clientIP@instanceName``); the
first one creates it (with a copy of its ClientConfig), later ones with the same id get the same instance. Since
4.9.x producers and clustering consumers rename the default instance name to ``<pid>#<nanoTime>`` at start, so in
practice each of them gets its own instance unless the application names the instance.

Java keeps the manager in a static field (one per JVM); mqlab keeps one per runtime node (``get_instance``).

Java: org.apache.rocketmq.client.impl.MQClientManager (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqlab.client.client_config import ClientConfig
    from mqlab.client.impl.factory.mq_client_instance import MQClientInstance
    from mqlab.remoting.rpc_hook import RPCHook
    from mqlab.runtime.runtime import Runtime


class _NanoClock:
    """Java: none (a stand-in for ``System.nanoTime()``, which mqlab's runtimes do not offer)."""

    def __init__(self) -> None:
        self._counter = itertools.count()
        self._lock = threading.Lock()

    def next(self, now_ms: int) -> int:
        with self._lock:
            return now_ms * 1_000_000 + next(self._counter)


def nano_time(runtime: Runtime) -> int:
    """A ``System.nanoTime()`` for instance names: the runtime's clock in ns plus a per-node counter.

    Java's nanoTime differs between two calls in practice, which is what keeps two producers of one JVM on two
    client instances; in a simulation many calls share one virtual millisecond, so the counter keeps them apart
    while staying reproducible.

    Java: none (stands in for System#nanoTime)
    """
    return runtime.singleton(_NanoClock, _NanoClock).next(runtime.now_ms())


class MQClientManager:
    """The table clientId → MQClientInstance of one runtime node.

    Args:
        runtime: the node the instances run on.
    """

    def __init__(self, runtime: Runtime):
        self.runtime = runtime
        self.factory_index_generator = itertools.count()
        self.factory_table: dict[str, MQClientInstance] = {}
        self._lock = threading.RLock()

    @classmethod
    def get_instance(cls, runtime: Runtime) -> MQClientManager:
        """The node's one manager. Java: MQClientManager#getInstance (a static singleton)."""
        return runtime.singleton(cls, lambda: cls(runtime))

    def get_or_create_mq_client_instance(
        self, client_config: ClientConfig, rpc_hook: RPCHook | None = None
    ) -> MQClientInstance:
        """The instance of ``client_config.build_mq_client_id()``, created (from a copy of the config) if new.

        Java: MQClientManager#getOrCreateMQClientInstance
        """
        from mqlab.client.impl.factory.mq_client_instance import MQClientInstance  # the instance imports us

        client_id = client_config.build_mq_client_id()
        with self._lock:
            instance = self.factory_table.get(client_id)
            if instance is None:
                instance = MQClientInstance(
                    client_config.clone_client_config(),
                    next(self.factory_index_generator),
                    client_id,
                    self.runtime,
                    rpc_hook,
                )
                self.factory_table[client_id] = instance
                self.runtime.trace_event("MQClientManager", "createInstance", clientId=client_id)
            return instance

    def remove_client_factory(self, client_id: str) -> None:
        """Forget an instance that shut down. Java: MQClientManager#removeClientFactory."""
        with self._lock:
            self.factory_table.pop(client_id, None)

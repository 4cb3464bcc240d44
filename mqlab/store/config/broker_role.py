"""A broker's place in a master/slave pair, and whether a send waits for the slave.

Java: org.apache.rocketmq.store.config.BrokerRole (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import enum


class BrokerRole(enum.Enum):
    """Replication role (``brokerRole`` in broker.conf, parsed by member name)."""

    # Master that answers the producer without waiting for its slave.
    ASYNC_MASTER = enum.auto()
    # Master that waits for the slave to acknowledge the message before answering.
    SYNC_MASTER = enum.auto()
    # Read-only copy; BrokerStartup requires brokerId > 0.
    SLAVE = enum.auto()

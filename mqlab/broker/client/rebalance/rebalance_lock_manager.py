"""Broker-side locks on message queues for orderly consumers (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ).

Java: org.apache.rocketmq.broker.client.rebalance.RebalanceLockManager (rocketmq-all-4.9.3)

A lock belongs to one client id of a group and lapses after 60 s without renewal (the orderly consumer renews it
every 20 s); an expired lock can be taken by another client.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from mqlab.common.message.message_queue import MessageQueue

REBALANCE_LOCK_MAX_LIVE_TIME = 60_000  # Java: system property rocketmq.broker.rebalance.lockMaxLiveTime


@dataclass(slots=True)
class LockEntry:
    """Who holds a queue and when they last renewed. Java: RebalanceLockManager$LockEntry."""

    client_id: str
    last_update_timestamp: int

    def is_expired(self, now_ms: int, max_live_ms: int) -> bool:
        """Java: LockEntry#isExpired."""
        return now_ms - self.last_update_timestamp > max_live_ms

    def is_locked(self, client_id: str, now_ms: int, max_live_ms: int) -> bool:
        """Held by ``client_id`` and not expired. Java: LockEntry#isLocked."""
        return self.client_id == client_id and not self.is_expired(now_ms, max_live_ms)


class RebalanceLockManager:
    """``mq_lock_table``: group → (queue → LockEntry)."""

    def __init__(self, now_ms: Callable[[], int], max_live_ms: int = REBALANCE_LOCK_MAX_LIVE_TIME):
        self.now_ms = now_ms
        self.max_live_ms = max_live_ms
        self.mq_lock_table: dict[str, dict[MessageQueue, LockEntry]] = {}
        self._lock = threading.Lock()

    def is_locked(self, group: str, mq: MessageQueue, client_id: str) -> bool:
        """Held by this client (renewing it as a side effect, as Java does). Java: #isLocked."""
        entry = self.mq_lock_table.get(group, {}).get(mq)
        if entry is None:
            return False
        now = self.now_ms()
        locked = entry.is_locked(client_id, now, self.max_live_ms)
        if locked:
            entry.last_update_timestamp = now
        return locked

    def _try_lock_unlocked(self, group: str, mq: MessageQueue, client_id: str) -> bool:
        table = self.mq_lock_table.setdefault(group, {})
        now = self.now_ms()
        entry = table.get(mq)
        if entry is None:
            entry = table[mq] = LockEntry(client_id, now)
        if entry.is_locked(client_id, now, self.max_live_ms):
            entry.last_update_timestamp = now
            return True
        if entry.is_expired(now, self.max_live_ms):
            entry.client_id = client_id
            entry.last_update_timestamp = now
            return True
        return False

    def try_lock(self, group: str, mq: MessageQueue, client_id: str) -> bool:
        """Java: RebalanceLockManager#tryLock."""
        if self.is_locked(group, mq, client_id):
            return True
        with self._lock:
            return self._try_lock_unlocked(group, mq, client_id)

    def try_lock_batch(self, group: str, mqs: Iterable[MessageQueue], client_id: str) -> set[MessageQueue]:
        """Lock what can be locked; returns the queues this client now holds. Java: #tryLockBatch."""
        locked, pending = set(), []
        for mq in mqs:
            (locked.add if self.is_locked(group, mq, client_id) else pending.append)(mq)
        if pending:
            with self._lock:
                for mq in pending:
                    if self._try_lock_unlocked(group, mq, client_id):
                        locked.add(mq)
        return locked

    def unlock_batch(self, group: str, mqs: Iterable[MessageQueue], client_id: str) -> None:
        """Release the queues this client holds. Java: RebalanceLockManager#unlockBatch."""
        with self._lock:
            table = self.mq_lock_table.get(group)
            if table is None:
                return
            for mq in mqs:
                entry = table.get(mq)
                if entry is not None and entry.client_id == client_id:
                    del table[mq]

"""One lock per queue, so that an orderly consumer runs at most one consume request per queue at a time.

``ConsumeMessageOrderlyService$ConsumeRequest#run`` holds the lock of its queue for the whole run: different queues
are consumed in parallel, one queue strictly in sequence. (The broker-side lock, LOCK_BATCH_MQ, is a different
thing: it keeps other consumers of the group away from the queue.)

Java: org.apache.rocketmq.client.impl.consumer.MessageQueueLock (rocketmq-all-4.9.3); Java locks a plain
``Object`` with ``synchronized``, mqlab hands out re-entrant locks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from mqlab.common.message.message_queue import MessageQueue


class MessageQueueLock:
    """Lazily created locks by queue.

    Args:
        lock_factory: Makes each queue's lock (default ``threading.RLock``, re-entrant like ``synchronized``).
    """

    def __init__(self, lock_factory: Callable[[], Any] = threading.RLock):
        self._lock_factory = lock_factory
        self.mq_lock_table: dict[MessageQueue, Any] = {}
        self._table_lock = threading.Lock()

    def fetch_lock_object(self, mq: MessageQueue) -> Any:
        """The lock of ``mq``, created on first use; every caller gets the same one.

        Java: MessageQueueLock#fetchLockObject
        """
        with self._table_lock:
            lock = self.mq_lock_table.get(mq)
            if lock is None:
                lock = self.mq_lock_table[mq] = self._lock_factory()
            return lock

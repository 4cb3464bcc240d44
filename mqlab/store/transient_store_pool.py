"""A few off-heap write buffers the CommitLog appends into before committing to the file.

Java: org.apache.rocketmq.store.TransientStorePool (rocketmq-all-4.9.3). Java allocates direct buffers and
``mlock``s them; mqlab keeps plain ``bytearray`` buffers (the point here is the extra commit step, not the memory
locking).
"""

from __future__ import annotations

import threading
from collections import deque


class TransientStorePool:
    """``pool_size`` buffers of ``file_size`` bytes each, borrowed per new CommitLog file."""

    def __init__(self, pool_size: int, file_size: int):
        self.pool_size = pool_size
        self.file_size = file_size
        self._available: deque[bytearray] = deque()
        self._lock = threading.Lock()

    def init(self) -> None:
        """Allocate the buffers.

        Java: TransientStorePool#init
        """
        with self._lock:
            self._available.extend(bytearray(self.file_size) for _ in range(self.pool_size))

    def destroy(self) -> None:
        """Drop all buffers.

        Java: TransientStorePool#destroy
        """
        with self._lock:
            self._available.clear()

    def borrow_buffer(self) -> bytearray:
        """Take a buffer; when the pool is empty a new one is made (Java then logs a warning and returns null).

        Java: TransientStorePool#borrowBuffer
        """
        with self._lock:
            if self._available:
                return self._available.popleft()
        return bytearray(self.file_size)

    def return_buffer(self, buffer: bytearray) -> None:
        """Give a buffer back, zeroed.

        Java: TransientStorePool#returnBuffer
        """
        buffer[:] = bytes(len(buffer))
        with self._lock:
            self._available.appendleft(buffer)

    def available_buffer_nums(self) -> int:
        """Buffers ready to lend.

        Java: TransientStorePool#availableBufferNums
        """
        with self._lock:
            return len(self._available)

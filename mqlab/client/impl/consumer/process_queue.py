"""A consumer's local buffer for one queue: pulled messages wait here, sorted by queue offset, until consumed.

The pull loop puts each batch it receives (``put_message``); the consume service takes them out.

* **Concurrent consumption** removes whatever finished (``remove_message``), in any order. The offset it may commit
  is the smallest offset *still cached*: a slow message holds the committed offset back even when later messages are
  done, so a crash re-delivers it (and the ones after it) instead of losing it. When the cache empties, the offset is
  one past the last message added. This is why RocketMQ delivers at least once, and why ``get_max_span`` (last −
  first cached offset) is a flow-control signal: past 2000 the pull loop waits.
* **Orderly consumption** takes batches from the head (``take_messages``) into a second tree of in-flight messages;
  ``commit`` drops them and returns the offset after the last one, ``make_message_to_consume_again`` or ``rollback``
  put them back.

The queue also carries the rebalance state: ``dropped`` (no longer assigned), ``locked`` (orderly: the broker lock is
held, renewed every 20 s and expired after 30 s), and the last pull / consume / lock times (a push queue not pulled
for 120 s is dropped at the next rebalance).

Java: org.apache.rocketmq.client.impl.consumer.ProcessQueue (rocketmq-all-4.9.3). Java guards the trees with a
read-write lock; mqlab uses one re-entrant lock (in a simulation there is one thread, so it never waits).
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Iterable, Iterator

from mqlab.common.message import message_const as mc
from mqlab.common.message.message_ext import MessageExt
from mqlab.common.protocol.body.process_queue_info import ProcessQueueInfo

# System properties rocketmq.client.rebalance.lockMaxLiveTime / .lockInterval / rocketmq.client.pull.pullMaxIdleTime.
REBALANCE_LOCK_MAX_LIVE_TIME = 30_000
REBALANCE_LOCK_INTERVAL = 20_000
PULL_MAX_IDLE_TIME = 120_000
# At most this many expired messages are sent back per queue and sweep (ProcessQueue#cleanExpiredMsg).
CLEAN_EXPIRED_MSG_MAX_LOOP = 16
# The delay level an expired message is sent back with (10 s).
EXPIRED_MSG_DELAY_LEVEL = 3
_MIB = 1024 * 1024


class OffsetTreeMap:
    """Queue offset → message, iterated in offset order.

    Java: none (teaching stand-in for ``java.util.TreeMap<Long, MessageExt>``): a dict plus a sorted list of its keys.
    """

    __slots__ = ("_keys", "_map")

    def __init__(self) -> None:
        self._map: dict[int, MessageExt] = {}
        self._keys: list[int] = []

    def put(self, offset: int, msg: MessageExt) -> MessageExt | None:
        """Store ``msg`` under ``offset``; return the message it replaced (None if the offset was new)."""
        old = self._map.get(offset)
        if old is None:
            bisect.insort(self._keys, offset)
        self._map[offset] = msg
        return old

    def remove(self, offset: int) -> MessageExt | None:
        """Remove and return the message at ``offset`` (None if there was none)."""
        msg = self._map.pop(offset, None)
        if msg is not None:
            del self._keys[bisect.bisect_left(self._keys, offset)]
        return msg

    def poll_first_entries(self, count: int) -> list[tuple[int, MessageExt]]:
        """Remove and return up to ``count`` entries with the smallest offsets (``pollFirstEntry`` ``count`` times)."""
        offsets = self._keys[:count]
        del self._keys[:count]
        return [(offset, self._map.pop(offset)) for offset in offsets]

    def first_key(self) -> int:
        """The smallest offset (raises KeyError when empty, like TreeMap's NoSuchElementException)."""
        if not self._keys:
            raise KeyError("firstKey of an empty tree")
        return self._keys[0]

    def last_key(self) -> int:
        """The largest offset (raises KeyError when empty)."""
        if not self._keys:
            raise KeyError("lastKey of an empty tree")
        return self._keys[-1]

    def first_value(self) -> MessageExt:
        """The message with the smallest offset (raises KeyError when empty)."""
        return self._map[self.first_key()]

    def last_value(self) -> MessageExt:
        """The message with the largest offset (raises KeyError when empty)."""
        return self._map[self.last_key()]

    def get(self, offset: int) -> MessageExt | None:
        """The message at ``offset``, or None."""
        return self._map.get(offset)

    def put_all(self, other: OffsetTreeMap) -> None:
        """Copy every entry of ``other`` into this tree."""
        for offset, msg in other.items():
            self.put(offset, msg)

    def clear(self) -> None:
        """Remove everything."""
        self._map.clear()
        self._keys.clear()

    def keys(self) -> list[int]:
        """The offsets, ascending (a copy)."""
        return list(self._keys)

    def values(self) -> list[MessageExt]:
        """The messages in offset order (a copy)."""
        return [self._map[k] for k in self._keys]

    def items(self) -> list[tuple[int, MessageExt]]:
        """``(offset, message)`` pairs in offset order (a copy)."""
        return [(k, self._map[k]) for k in self._keys]

    def __len__(self) -> int:
        return len(self._keys)

    def __bool__(self) -> bool:
        return bool(self._keys)

    def __contains__(self, offset: object) -> bool:
        return offset in self._map

    def __iter__(self) -> Iterator[int]:
        return iter(list(self._keys))


def _body_length(msg: MessageExt) -> int:
    return len(msg.body) if msg.body is not None else 0


class ProcessQueue:
    """The cached messages of one assigned queue, with counters and the queue's rebalance state.

    Args:
        now_ms: The clock (epoch ms; Java: ``System.currentTimeMillis()``). The pull, consume and lock timestamps
            start at its value when the queue is created.
        lock_factory: Makes the tree lock and ``consume_lock`` (default ``threading.RLock``).

    Attributes:
        msg_tree_map: Cached messages not yet consumed (orderly: not yet taken).
        consuming_msg_orderly_tree_map: Orderly only: messages taken and not yet committed.
        msg_count: Messages cached or in flight (the pull loop's count threshold reads it).
        msg_size: Sum of their body lengths in bytes (the size threshold reads it in MiB).
        queue_offset_max: Offset of the last message ``put_message`` added.
        consume_lock: Held by an orderly consume request while it runs, and by rebalance before it unlocks the queue.
        consuming: Whether a consume request is already running for this queue (orderly dispatch).
        msg_acc_cnt: How far behind the broker's max offset the last pulled message was (from ``MAX_OFFSET``).
    """

    def __init__(self, now_ms: Callable[[], int], *, lock_factory: Callable[[], threading.RLock] = threading.RLock):
        self._now_ms = now_ms
        self._tree_lock = lock_factory()
        self.msg_tree_map = OffsetTreeMap()
        self.msg_count = 0
        self.msg_size = 0
        self.consume_lock = lock_factory()
        self.consuming_msg_orderly_tree_map = OffsetTreeMap()
        self.try_unlock_times = 0
        self.queue_offset_max = 0
        self.dropped = False
        now = now_ms()
        self.last_pull_timestamp = now
        self.last_consume_timestamp = now
        self.locked = False
        self.last_lock_timestamp = now
        self.consuming = False
        self.msg_acc_cnt = 0

    # -- liveness ----------------------------------------------------------------------------------------------------
    def is_lock_expired(self) -> bool:
        """Whether the broker lock was last confirmed more than 30 s ago.

        Java: ProcessQueue#isLockExpired
        """
        return self._now_ms() - self.last_lock_timestamp > REBALANCE_LOCK_MAX_LIVE_TIME

    def is_pull_expired(self) -> bool:
        """Whether nothing was pulled for more than 120 s.

        Java: ProcessQueue#isPullExpired
        """
        return self._now_ms() - self.last_pull_timestamp > PULL_MAX_IDLE_TIME

    def inc_try_unlock_times(self) -> None:
        """Count one more attempt to unlock the queue at the broker. Java: ProcessQueue#incTryUnlockTimes."""
        self.try_unlock_times += 1

    # -- concurrent consumption ----------------------------------------------------------------------------------------
    def put_message(self, msgs: Iterable[MessageExt]) -> bool:
        """Cache a pulled batch; True if the caller should start a consume request (orderly dispatch).

        A message whose offset is already cached replaces the cached one without being counted again. The result is
        True when the tree is non-empty and no consume request is running yet (``consuming`` is then set).

        Java: ProcessQueue#putMessage
        """
        msgs = list(msgs)
        with self._tree_lock:
            valid_msg_cnt = 0
            for msg in msgs:
                if self.msg_tree_map.put(msg.queue_offset, msg) is None:
                    valid_msg_cnt += 1
                    self.queue_offset_max = msg.queue_offset
                    self.msg_size += _body_length(msg)
            self.msg_count += valid_msg_cnt
            dispatch_to_consume = False
            if self.msg_tree_map and not self.consuming:
                dispatch_to_consume = True
                self.consuming = True
            if msgs:
                self._update_msg_acc_cnt(msgs[-1])
            return dispatch_to_consume

    def _update_msg_acc_cnt(self, last: MessageExt) -> None:
        """The broker stamps ``MAX_OFFSET`` on pulled messages; the distance to it is the backlog."""
        max_offset = last.get_property(mc.PROPERTY_MAX_OFFSET)
        if max_offset is not None:
            acc_total = int(max_offset) - last.queue_offset
            if acc_total > 0:
                self.msg_acc_cnt = acc_total

    def get_max_span(self) -> int:
        """Last minus first cached offset (0 when nothing is cached).

        Java: ProcessQueue#getMaxSpan
        """
        with self._tree_lock:
            if not self.msg_tree_map:
                return 0
            return self.msg_tree_map.last_key() - self.msg_tree_map.first_key()

    def remove_message(self, msgs: Iterable[MessageExt]) -> int:
        """Drop consumed messages; return the offset that may now be committed.

        -1 if nothing was cached; otherwise, after removing, the smallest offset still cached, or
        ``queue_offset_max + 1`` when the cache is now empty. Messages not in the cache are ignored.

        Java: ProcessQueue#removeMessage
        """
        with self._tree_lock:
            self.last_consume_timestamp = self._now_ms()
            if not self.msg_tree_map:
                return -1
            result = self.queue_offset_max + 1
            removed_cnt = 0
            for msg in msgs:
                if self.msg_tree_map.remove(msg.queue_offset) is not None:
                    removed_cnt += 1
                    self.msg_size -= _body_length(msg)
            self.msg_count -= removed_cnt
            if self.msg_tree_map:
                result = self.msg_tree_map.first_key()
            return result

    def clean_expired_msg(
        self,
        send_message_back: Callable[[MessageExt, int], object],
        *,
        consume_timeout_minutes: int,
        consume_orderly: bool = False,
    ) -> list[MessageExt]:
        """Send back the oldest cached messages whose consumption started more than ``consume_timeout`` ago.

        Up to 16 times: if the first cached message has a ``CONSUME_START_TIME`` older than the timeout, call
        ``send_message_back(msg, 3)`` (the caller's ``DefaultMQPushConsumer#sendMessageBack``) and, if that did not
        raise and the message is still first, remove it. Stops at the first message that is not expired. A send that
        raises leaves the message cached, and the next round tries it again (as in Java). Orderly consumers skip the
        sweep. Returns the messages that were sent back and removed.

        Java: ProcessQueue#cleanExpiredMsg
        """
        if consume_orderly:
            return []
        cleaned: list[MessageExt] = []
        timeout_ms = consume_timeout_minutes * 60 * 1000
        for _ in range(min(len(self.msg_tree_map), CLEAN_EXPIRED_MSG_MAX_LOOP)):
            msg = self._first_expired_message(timeout_ms)
            if msg is None:
                break
            try:
                send_message_back(msg, EXPIRED_MSG_DELAY_LEVEL)
            except Exception:
                continue  # Java logs the failure and goes round again
            with self._tree_lock:
                if self.msg_tree_map and msg.queue_offset == self.msg_tree_map.first_key():
                    self.remove_message([msg])
                    cleaned.append(msg)
        return cleaned

    def _first_expired_message(self, timeout_ms: int) -> MessageExt | None:
        with self._tree_lock:
            if not self.msg_tree_map:
                return None
            first = self.msg_tree_map.first_value()
            started = first.get_property(mc.PROPERTY_CONSUME_START_TIMESTAMP)
            if started and self._now_ms() - int(started) > timeout_ms:
                return first
            return None

    # -- orderly consumption -------------------------------------------------------------------------------------------
    def take_messages(self, batch_size: int) -> list[MessageExt]:
        """Move up to ``batch_size`` messages from the head of the cache into the in-flight tree and return them.

        An empty result clears ``consuming``: the next ``put_message`` will dispatch a new consume request.

        Java: ProcessQueue#takeMessages
        """
        result: list[MessageExt] = []
        with self._tree_lock:
            self.last_consume_timestamp = self._now_ms()
            for offset, msg in self.msg_tree_map.poll_first_entries(batch_size):
                result.append(msg)
                self.consuming_msg_orderly_tree_map.put(offset, msg)
            if not result:
                self.consuming = False
        return result

    def commit(self) -> int:
        """Forget the in-flight messages as consumed; return the offset after the last of them (-1 if none).

        Java: ProcessQueue#commit
        """
        with self._tree_lock:
            in_flight = self.consuming_msg_orderly_tree_map
            if not in_flight:
                return -1
            offset = in_flight.last_key()
            self.msg_count -= len(in_flight)
            self.msg_size -= sum(_body_length(msg) for msg in in_flight.values())
            in_flight.clear()
            return offset + 1

    def make_message_to_consume_again(self, msgs: Iterable[MessageExt]) -> None:
        """Put these in-flight messages back into the cache, so the next ``take_messages`` returns them first.

        Java: ProcessQueue#makeMessageToConsumeAgain
        """
        with self._tree_lock:
            for msg in msgs:
                self.consuming_msg_orderly_tree_map.remove(msg.queue_offset)
                self.msg_tree_map.put(msg.queue_offset, msg)

    def rollback(self) -> None:
        """Put every in-flight message back into the cache.

        Java: ProcessQueue#rollback
        """
        with self._tree_lock:
            self.msg_tree_map.put_all(self.consuming_msg_orderly_tree_map)
            self.consuming_msg_orderly_tree_map.clear()

    # -- housekeeping --------------------------------------------------------------------------------------------------
    def has_temp_message(self) -> bool:
        """Whether anything is cached (in-flight orderly messages do not count).

        Java: ProcessQueue#hasTempMessage
        """
        with self._tree_lock:
            return bool(self.msg_tree_map)

    def clear(self) -> None:
        """Empty both trees and reset the counters and ``queue_offset_max``.

        Java: ProcessQueue#clear
        """
        with self._tree_lock:
            self.msg_tree_map.clear()
            self.consuming_msg_orderly_tree_map.clear()
            self.msg_count = 0
            self.msg_size = 0
            self.queue_offset_max = 0

    def fill_process_queue_info(self, info: ProcessQueueInfo) -> None:
        """Copy this queue's state into ``info`` (the tree fields only when that tree is non-empty, as in Java).

        Java: ProcessQueue#fillProcessQueueInfo
        """
        with self._tree_lock:
            if self.msg_tree_map:
                info.cached_msg_min_offset = self.msg_tree_map.first_key()
                info.cached_msg_max_offset = self.msg_tree_map.last_key()
                info.cached_msg_count = len(self.msg_tree_map)
                info.cached_msg_size_in_mib = self.msg_size // _MIB
            if self.consuming_msg_orderly_tree_map:
                info.transaction_msg_min_offset = self.consuming_msg_orderly_tree_map.first_key()
                info.transaction_msg_max_offset = self.consuming_msg_orderly_tree_map.last_key()
                info.transaction_msg_count = len(self.consuming_msg_orderly_tree_map)
            info.locked = self.locked
            info.try_unlock_times = self.try_unlock_times
            info.last_lock_timestamp = self.last_lock_timestamp
            info.dropped = self.dropped
            info.last_pull_timestamp = self.last_pull_timestamp
            info.last_consume_timestamp = self.last_consume_timestamp

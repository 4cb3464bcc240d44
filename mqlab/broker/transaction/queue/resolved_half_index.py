"""Which transactions were already committed or rolled back, read from the op queue.

Java: none (mqlab hardening, issue 22). 4.9.3 keeps no such record: every END_TRANSACTION that passes
``EndTransactionProcessor#checkPrepareMessage`` stores another copy. The op queue (``RMQ_SYS_TRANS_OP_HALF_TOPIC``)
already says which half queue offsets were resolved, so it is the source of truth; this index is a cache of it.

A transaction is named by the half record's UNIQ_KEY and born time, which the check's copies keep (a commit of
the original after its copy was committed is the same transaction); a record without UNIQ_KEY is named by its half
queue offset. The index learns a resolution twice: at once when the processor resolves a half message (the op
record reaches the op ConsumeQueue only after the reput, so a second END_TRANSACTION queued behind the first would
not see it there), and by reading the op queue from where it last stopped, which after a restart rebuilds it from
the files (abnormal recovery dispatches everything before the broker serves).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mqlab.broker.transaction.queue import transactional_message_util as util
from mqlab.client.consumer.pull_status import PullStatus
from mqlab.common.message import message_const as mc

if TYPE_CHECKING:
    from mqlab.broker.transaction.queue.transactional_message_bridge import TransactionalMessageBridge
    from mqlab.common.message.message_ext import MessageExt

OP_READ_BATCH = 32  # op records read per pull, as the check reads them (TransactionalMessageServiceImpl.OP_PULL_NUMS)
TransactionName = tuple[str, int] | int


def transaction_name(msg: MessageExt) -> TransactionName:
    """(UNIQ_KEY, born time) of a half record or of a copy of it; its half queue offset without UNIQ_KEY."""
    uniq = msg.get_property(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
    return (uniq, msg.born_timestamp) if uniq else msg.queue_offset


@dataclass(slots=True)
class _QueueIndex:
    read_to: int | None = None  # next op queue offset to read (None: not read yet)
    resolved: set[TransactionName] = field(default_factory=set)


class ResolvedHalfIndex:
    """Resolved transactions per half queue, cached from the op queue.

    Args:
        bridge: reads of the op and half queues.
    """

    def __init__(self, bridge: TransactionalMessageBridge):
        self.bridge = bridge
        self._queues: dict[int, _QueueIndex] = {}

    def is_resolved(self, half: MessageExt) -> bool:
        """Whether an op record (or a resolution made just now) names this half record's transaction."""
        index = self._catch_up(half.queue_id)
        return transaction_name(half) in index.resolved

    def mark_resolved(self, half: MessageExt) -> None:
        """Remember a resolution before its op record is dispatched."""
        self._queues.setdefault(half.queue_id, _QueueIndex()).resolved.add(transaction_name(half))

    def _catch_up(self, queue_id: int) -> _QueueIndex:
        """Read the op records written since the last read and note the transactions they resolve."""
        index = self._queues.setdefault(queue_id, _QueueIndex())
        store = self.bridge.store
        op_topic = util.build_op_topic()
        offset = index.read_to
        if offset is None:
            offset = store.get_min_offset_in_queue(op_topic, queue_id)
        end = store.get_max_offset_in_queue(op_topic, queue_id)
        while offset < end:
            result = self.bridge.get_op_message(queue_id, offset, OP_READ_BATCH)
            if result is None or result.next_begin_offset <= offset:
                break  # nothing readable now; the next call tries again from here
            if result.pull_status is PullStatus.FOUND and result.msg_found_list is not None:
                for op in result.msg_found_list:
                    self._note(index, queue_id, op)
            offset = result.next_begin_offset
        index.read_to = offset
        return index

    def _note(self, index: _QueueIndex, queue_id: int, op: MessageExt) -> None:
        if op.get_tags() != util.REMOVETAG:
            return
        text = (op.body or b"").decode(util.CHARSET, "replace")
        if not text.isdigit():
            return  # not an offset: the check ignores such a body too
        half = self.bridge.get_half_message(queue_id, int(text), 1)
        if half is not None and half.msg_found_list:
            index.resolved.add(transaction_name(half.msg_found_list[0]))
        else:
            index.resolved.add(int(text))  # the half record is gone (expired files): its offset still names it

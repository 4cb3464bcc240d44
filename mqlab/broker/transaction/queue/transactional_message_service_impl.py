"""Half messages in, commit/rollback lookups, and the periodic check of half messages nobody resolved.

``check`` walks the half queue from the internal group's offset. A half offset named by an op message (tag ``d``)
is done; an unresolved one old enough (``transactionTimeOut``, or its own CHECK_IMMUNITY_TIME_IN_SECONDS) is
copied to the end of the half queue and the producer group is asked about the copy (CHECK_TRANSACTION_STATE); one
checked ``transactionCheckMax`` times (or older than the store keeps files) goes to TRANS_CHECK_MAX_TIME_TOPIC. The
walk stops at the first message that is too young or was stored during this run (a copy it just made), so each
copy is looked at in a later run. Both queues' offsets are committed as consumer offsets of ``CID_RMQ_SYS_TRANS``.

Java: org.apache.rocketmq.broker.transaction.queue.TransactionalMessageServiceImpl (rocketmq-all-4.9.3)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mqlab.broker.transaction.operation_result import OperationResult
from mqlab.broker.transaction.queue import transactional_message_util as util
from mqlab.broker.transaction.queue.get_result import GetResult
from mqlab.broker.transaction.queue.resolved_half_index import ResolvedHalfIndex
from mqlab.client.consumer.pull_status import PullStatus
from mqlab.common.message import message_const as mc
from mqlab.common.message.message_queue import MessageQueue
from mqlab.common.protocol.response_code import ResponseCode
from mqlab.store.put_message_status import PutMessageStatus

if TYPE_CHECKING:
    from mqlab.broker.transaction.abstract_transactional_message_check_listener import (
        AbstractTransactionalMessageCheckListener,
    )
    from mqlab.broker.transaction.queue.transactional_message_bridge import TransactionalMessageBridge
    from mqlab.client.consumer.pull_result import PullResult
    from mqlab.common.message.message_ext import MessageExt
    from mqlab.common.protocol.header.end_transaction_request_header import EndTransactionRequestHeader
    from mqlab.runtime.runtime import Runtime
    from mqlab.runtime.scheduler import Future
    from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
    from mqlab.store.put_message_result import PutMessageResult

COMPONENT = "TransactionalMessageServiceImpl"
PULL_MSG_RETRY_NUMBER = 1  # half messages are read one at a time
MAX_PROCESS_TIME_LIMIT = 60000  # ms spent on one half queue per run
MAX_RETRY_COUNT_WHEN_HALF_NULL = 1
OP_PULL_NUMS = 32
# mqlab, simulator only: the virtual time one turn of the check loop that made no progress takes (a failed
# put-back, a re-pull of the op queue that found nothing new). Java's thread spins on the wall clock, which moves,
# so its MAX_PROCESS_TIME_LIMIT guard fires; the virtual clock moves only between events.
SIM_SPIN_PAUSE_MS = 1000
MS_PER_HOUR = 3600 * 1000
FIND_HALF_FAILED = "Find prepared transaction message failed"  # Java's remark for "no record at that offset"


@dataclass(slots=True)
class CheckSummary:
    """What one ``check`` run did (mqlab's return value, for tests and notebooks).

    Java: none (``check`` returns void and logs).
    """

    checked: list[int] = field(default_factory=list)  # half offsets whose copy was sent to the producer
    discarded: list[int] = field(default_factory=list)  # half offsets moved to TRANS_CHECK_MAX_TIME_TOPIC
    done: list[int] = field(default_factory=list)  # half offsets already resolved by an op message
    half_offset: tuple[int, int] | None = None  # committed half offset: (before, after)
    op_offset: tuple[int, int] | None = None  # committed op offset: (before, after)
    error: str | None = None


_DECIMAL = re.compile(r"[+-]?[0-9]+")


def _parse_java_integral(text: str, bits: int) -> int:
    """``Long.parseLong`` (64 bits) or ``Integer.parseInt`` (32 bits), -1 for anything they refuse.

    Java: TransactionalMessageServiceImpl#getLong / #getInt (which log the failure and return -1)
    """
    if _DECIMAL.fullmatch(text) is None:  # no blanks, no underscores: Java is stricter than int()
        return -1
    value = int(text)
    return value if -(2 ** (bits - 1)) <= value < 2 ** (bits - 1) else -1


def _get_long(text: str) -> int:
    return _parse_java_integral(text, 64)


class TransactionalMessageServiceImpl:
    """The transactional message service of a broker.

    Args:
        transactional_message_bridge: reads and writes of half and op messages, internal offsets.
    """

    def __init__(self, transactional_message_bridge: TransactionalMessageBridge):
        self.transactional_message_bridge = transactional_message_bridge
        self.op_queue_map: dict[MessageQueue, MessageQueue] = {}
        # mqlab: what was resolved already (a cache of the op queue), and the lock that makes "look up, store,
        # retire" one step for concurrent END_TRANSACTIONs of one half message
        self.resolved_half_index = ResolvedHalfIndex(transactional_message_bridge)
        self.end_transaction_lock = transactional_message_bridge.broker_controller.runtime.new_lock()
        # a check letting virtual time pass may see the periodic service fire: Java's one thread never overlaps
        self._checking = False

    @property
    def _runtime(self) -> Runtime:
        return self.transactional_message_bridge.broker_controller.runtime

    # -- prepare, commit, rollback ----------------------------------------------------------------------------
    def async_prepare_message(self, inner: MessageExtBrokerInner) -> Future[PutMessageResult]:
        """Store a half message. Java: TransactionalMessageServiceImpl#asyncPrepareMessage."""
        return self.transactional_message_bridge.async_put_half_message(inner)

    def prepare_message(self, inner: MessageExtBrokerInner) -> PutMessageResult:
        """Java: TransactionalMessageServiceImpl#prepareMessage."""
        return self.transactional_message_bridge.put_half_message(inner)

    def commit_message(self, request_header: EndTransactionRequestHeader) -> OperationResult:
        """The unresolved half message the commit names. Java: TransactionalMessageServiceImpl#commitMessage."""
        return self.get_unresolved_half_message(request_header.commit_log_offset or 0, committing=True)

    def rollback_message(self, request_header: EndTransactionRequestHeader) -> OperationResult:
        """The unresolved half message the rollback names. Java: TransactionalMessageServiceImpl#rollbackMessage."""
        return self.get_unresolved_half_message(request_header.commit_log_offset or 0, committing=False)

    def get_unresolved_half_message(self, commit_log_offset: int, *, committing: bool) -> OperationResult:
        """``get_half_message_by_offset``, then mqlab's refusals, answered as a missing half message.

        Stricter than 4.9.3, which commits any record found at the offset (see ``half_message_refusal``).

        Java: none (the lookup is TransactionalMessageServiceImpl#getHalfMessageByOffset)
        """
        result = self.get_half_message_by_offset(commit_log_offset)
        msg = result.prepare_message
        if msg is None:
            return result
        reason = self.half_message_refusal(msg, committing=committing)
        if reason is None:
            return result
        self._runtime.trace_event(COMPONENT, "endTransactionRefused", commitLogOffset=commit_log_offset, reason=reason)
        return OperationResult(response_code=ResponseCode.SYSTEM_ERROR, response_remark=FIND_HALF_FAILED)

    def half_message_refusal(self, msg: MessageExt, *, committing: bool) -> str | None:
        """Why END_TRANSACTION may not resolve ``msg``, or None.

        Refused: a record of any topic but ``RMQ_SYS_TRANS_HALF_TOPIC`` (a normal message carrying forged
        REAL_TOPIC / REAL_QID properties), a half message whose transaction was already committed or rolled back
        (``ResolvedHalfIndex``), and, for a commit, one whose real topic is unknown here or has no such write queue
        (the topic shrank since): it stays unresolved (a rollback still retires it; else the check asks again until
        it is discarded).

        Java: none (4.9.3 has none of these checks; ``mqlab.chaos.broken``'s ``trust-end-transaction`` restores that)
        """
        if msg.topic != util.build_half_topic():
            return f"not a half message (topic {msg.topic})"
        if self.resolved_half_index.is_resolved(msg):
            return "already resolved"
        if not committing:
            return None
        real_topic = msg.get_user_property(mc.PROPERTY_REAL_TOPIC) or ""
        real_qid = _parse_java_integral(msg.get_user_property(mc.PROPERTY_REAL_QUEUE_ID) or "", 32)
        topics = self.transactional_message_bridge.broker_controller.topic_config_manager
        config = topics.select_topic_config(real_topic)
        if config is None:
            return f"no topic {real_topic!r}"
        if not 0 <= real_qid < config.write_queue_nums:
            return f"no write queue {real_qid} in {real_topic} ({config.write_queue_nums} queues)"
        return None

    def get_half_message_by_offset(self, commit_log_offset: int) -> OperationResult:
        """The record at the offset, or SYSTEM_ERROR "Find prepared transaction message failed".

        Java: TransactionalMessageServiceImpl#getHalfMessageByOffset
        """
        try:
            msg = self.transactional_message_bridge.look_message_by_offset(commit_log_offset)
        except Exception:  # not the start of a record: Java's decode returns null
            msg = None
        if msg is not None:
            return OperationResult(prepare_message=msg, response_code=ResponseCode.SUCCESS)
        return OperationResult(response_code=ResponseCode.SYSTEM_ERROR, response_remark=FIND_HALF_FAILED)

    def delete_prepare_message(self, msg_ext: MessageExt) -> bool:
        """Write the op message that retires a half message (mqlab also notes it resolved at once).

        Java: TransactionalMessageServiceImpl#deletePrepareMessage
        """
        self.resolved_half_index.mark_resolved(msg_ext)
        return self.transactional_message_bridge.put_op_message(msg_ext, util.REMOVETAG)

    # -- the check --------------------------------------------------------------------------------------------
    def check(
        self, transaction_timeout: int, transaction_check_max: int, listener: AbstractTransactionalMessageCheckListener
    ) -> CheckSummary:
        """One pass over every half queue. Java: TransactionalMessageServiceImpl#check."""
        summary = CheckSummary()
        if self._checking:
            summary.error = "a check is already running"
            self._runtime.trace_event(COMPONENT, "checkSkipped", reason=summary.error)
            return summary
        self._checking = True
        try:
            queues = self.transactional_message_bridge.fetch_message_queues(util.build_half_topic())
            for mq in queues:
                self._check_queue(mq, transaction_timeout, transaction_check_max, listener, summary)
        except Exception as exc:  # Java: log.error("Check error", e); the run ends here
            summary.error = repr(exc)
            self._runtime.trace_event(COMPONENT, "checkError", error=repr(exc))
        finally:
            self._checking = False
        return summary

    def let_time_pass(self) -> bool:
        """A loop turn that made no progress: in a simulation, let ``SIM_SPIN_PAUSE_MS`` of virtual time pass.

        Other nodes and services run meanwhile (a full disk may free up), and the 60 s guard fires on the virtual
        clock as Java's does on the wall clock. On real threads nothing waits: the wall clock bounds the spin.
        Returns False when the broker's store shut down meanwhile (the process died): the check ends there.

        Java: none (the turn is the ``continue`` of TransactionalMessageServiceImpl#check)
        """
        if not self._runtime.simulated:
            return True
        self._runtime.scheduler.sleep(SIM_SPIN_PAUSE_MS)
        return not self.transactional_message_bridge.store.shutdown_flag

    def _check_queue(
        self,
        mq: MessageQueue,
        transaction_timeout: int,
        transaction_check_max: int,
        listener: AbstractTransactionalMessageCheckListener,
        summary: CheckSummary,
    ) -> None:
        """Check one half queue: op messages first, then the half messages from the committed offset.

        Java: the loop body of TransactionalMessageServiceImpl#check
        """
        bridge = self.transactional_message_bridge
        now = self._runtime.now_ms
        start_time = now()
        op_queue = self.get_op_queue(mq)
        half_offset = bridge.fetch_consume_offset(mq)
        op_offset = bridge.fetch_consume_offset(op_queue)
        self._runtime.trace_event(COMPONENT, "checkQueue", halfOffset=half_offset, opOffset=op_offset)
        if half_offset < 0 or op_offset < 0:
            return
        done_op_offset: list[int] = []
        remove_map: dict[int, int] = {}
        pull_result = self.fill_op_remove_map(remove_map, op_queue, op_offset, half_offset, done_op_offset)
        if pull_result is None:
            return
        get_message_null_count = 1
        new_offset = half_offset
        i = half_offset
        while True:
            if now() - start_time > MAX_PROCESS_TIME_LIMIT:
                break
            if i in remove_map:
                done_op_offset.append(remove_map.pop(i))
                summary.done.append(i)
            else:
                get_result = self.get_half_msg(mq, i)
                msg_ext = get_result.msg
                if msg_ext is None:
                    get_message_null_count += 1
                    if get_message_null_count - 1 > MAX_RETRY_COUNT_WHEN_HALF_NULL:
                        break
                    assert get_result.pull_result is not None
                    if get_result.pull_result.pull_status is PullStatus.NO_NEW_MSG:
                        break
                    i = get_result.pull_result.next_begin_offset  # an illegal offset: jump
                    new_offset = i
                    continue
                if self.need_discard(msg_ext, transaction_check_max) or self.need_skip(msg_ext):
                    listener.resolve_discard_msg(msg_ext)
                    summary.discarded.append(i)
                    new_offset = i + 1
                    i += 1
                    continue
                if msg_ext.store_timestamp >= start_time:
                    break  # stored during this run (a copy made above): looked at next time
                age = now() - msg_ext.born_timestamp
                check_immunity_time = transaction_timeout
                immunity_text = msg_ext.get_user_property(mc.PROPERTY_CHECK_IMMUNITY_TIME_IN_SECONDS)
                if immunity_text is not None:
                    check_immunity_time = self.get_immunity_time(immunity_text, transaction_timeout)
                    if age < check_immunity_time and self.check_prepare_queue_offset(
                        remove_map, done_op_offset, msg_ext
                    ):
                        new_offset = i + 1
                        i += 1
                        continue
                elif 0 <= age < check_immunity_time:
                    break  # too young: the rest of the queue is younger still
                op_msg = pull_result.msg_found_list
                is_need_check = (
                    (op_msg is None and age > check_immunity_time)
                    or (op_msg is not None and op_msg[-1].born_timestamp - start_time > transaction_timeout)
                    or age <= -1
                )
                if is_need_check:
                    if not self.put_back_half_msg_queue(msg_ext, i):
                        if not self.let_time_pass():
                            break
                        continue
                    summary.checked.append(i)
                    listener.resolve_half_msg(msg_ext)
                else:
                    had_ops = pull_result.msg_found_list is not None
                    # 4.9.3 does not guard this pull: a None here fails the whole run (caught by check).
                    pull_result = self.fill_op_remove_map(  # type: ignore[assignment]
                        remove_map, op_queue, pull_result.next_begin_offset, half_offset, done_op_offset
                    )
                    # Two empty op pulls in a row: the same message is looked at again with nothing changed (one
                    # exactly transactionTimeOut old spins here until the clock moves). After a pull that found op
                    # messages, the next turn decides with the empty one, as Java's does, without waiting.
                    stuck = not had_ops and pull_result is not None and pull_result.pull_status is not PullStatus.FOUND
                    if stuck and not self.let_time_pass():
                        break
                    continue
            new_offset = i + 1
            i += 1
        if new_offset != half_offset:
            bridge.update_consume_offset(mq, new_offset)
            summary.half_offset = (half_offset, new_offset)
        new_op_offset = self.calculate_op_offset(done_op_offset, op_offset)
        if new_op_offset != op_offset:
            bridge.update_consume_offset(op_queue, new_op_offset)
            summary.op_offset = (op_offset, new_op_offset)

    def need_discard(self, msg_ext: MessageExt, transaction_check_max: int) -> bool:
        """Checked ``transactionCheckMax`` times already? Otherwise count this check in TRANSACTION_CHECK_TIMES.

        Java: TransactionalMessageServiceImpl#needDiscard
        """
        check_times = msg_ext.get_property(mc.PROPERTY_TRANSACTION_CHECK_TIMES)
        check_time = 1
        if check_times is not None:
            check_time = self.get_int(check_times)
            if check_time >= transaction_check_max:
                return True
            check_time += 1
        msg_ext.put_user_property(mc.PROPERTY_TRANSACTION_CHECK_TIMES, str(check_time))
        return False

    def need_skip(self, msg_ext: MessageExt) -> bool:
        """Born longer ago than the store keeps files (``fileReservedTime`` hours). Java: #needSkip."""
        store_config = self.transactional_message_bridge.broker_controller.message_store_config
        return self._runtime.now_ms() - msg_ext.born_timestamp > store_config.file_reserved_time * MS_PER_HOUR

    def put_back_half_msg_queue(self, msg_ext: MessageExt, offset: int) -> bool:
        """Append a copy to the half queue; on success ``msg_ext`` now names the copy (offsets, offset msg id).

        Java: TransactionalMessageServiceImpl#putBackHalfMsgQueue
        """
        result = self.put_back_to_half_queue_return_result(msg_ext)
        if result is not None and result.put_message_status is PutMessageStatus.PUT_OK:
            append = result.append_message_result
            assert append is not None
            msg_ext.queue_offset = append.logics_offset
            msg_ext.commit_log_offset = append.wrote_offset
            msg_ext.msg_id = append.msg_id
            self._runtime.trace_event(
                COMPONENT,
                "putBackHalf",
                offset=offset,
                newOffset=msg_ext.queue_offset,
                commitLogOffset=msg_ext.commit_log_offset,
                checkTimes=msg_ext.get_property(mc.PROPERTY_TRANSACTION_CHECK_TIMES),
            )
            return True
        self._runtime.trace_event(COMPONENT, "putBackHalfFailed", offset=offset)
        return False

    def put_back_to_half_queue_return_result(self, msg_ext: MessageExt) -> PutMessageResult | None:
        """Java: TransactionalMessageServiceImpl#putBackToHalfQueueReturnResult."""
        try:
            inner = self.transactional_message_bridge.renew_half_message_inner(msg_ext)
            return self.transactional_message_bridge.put_message_return_result(inner)
        except Exception as exc:  # Java logs a warning and returns null
            self._runtime.trace_event(COMPONENT, "putBackError", error=repr(exc))
            return None

    def put_immunity_msg_back_to_half_queue(self, msg_ext: MessageExt) -> bool:
        """Java: TransactionalMessageServiceImpl#putImmunityMsgBackToHalfQueue."""
        inner = self.transactional_message_bridge.renew_immunity_half_message_inner(msg_ext)
        return self.transactional_message_bridge.put_message(inner)

    @staticmethod
    def get_immunity_time(text: str, transaction_timeout: int) -> int:
        """Seconds → ms; -1 or unparseable → ``transaction_timeout``. Java: #getImmunityTime."""
        value = _get_long(text)
        return transaction_timeout if value == -1 else value * 1000

    def fill_op_remove_map(
        self,
        remove_map: dict[int, int],
        op_queue: MessageQueue,
        pull_offset_of_op: int,
        mini_offset: int,
        done_op_offset: list[int],
    ) -> PullResult | None:
        """Read up to 32 op messages and note which half offsets they resolve.

        Half offsets at or after ``mini_offset`` go to ``remove_map`` (half → op offset), older ones straight to
        ``done_op_offset``.

        Java: TransactionalMessageServiceImpl#fillOpRemoveMap
        """
        pull_result = self.pull_op_msg(op_queue, pull_offset_of_op, OP_PULL_NUMS)
        if pull_result is None:
            return None
        if pull_result.pull_status in (PullStatus.OFFSET_ILLEGAL, PullStatus.NO_MATCHED_MSG):
            self.transactional_message_bridge.update_consume_offset(op_queue, pull_result.next_begin_offset)
            return pull_result
        if pull_result.pull_status is PullStatus.NO_NEW_MSG or pull_result.msg_found_list is None:
            return pull_result
        for op in pull_result.msg_found_list:
            queue_offset = _get_long((op.body or b"").decode(util.CHARSET, "replace"))
            if op.get_tags() == util.REMOVETAG:
                if queue_offset < mini_offset:
                    done_op_offset.append(op.queue_offset)
                else:
                    remove_map[queue_offset] = op.queue_offset
            else:
                self._runtime.trace_event(COMPONENT, "illegalOpTag", tags=op.get_tags())
        return pull_result

    def check_prepare_queue_offset(
        self, remove_map: dict[int, int], done_op_offset: list[int], msg_ext: MessageExt
    ) -> bool:
        """For a message in its immunity time: True (skip it) when resolved or re-put.

        True when the original half offset was resolved, or when a fresh immunity copy was written.

        Java: TransactionalMessageServiceImpl#checkPrepareQueueOffset
        """
        text = msg_ext.get_user_property(mc.PROPERTY_TRANSACTION_PREPARED_QUEUE_OFFSET)
        if text is None:
            return self.put_immunity_msg_back_to_half_queue(msg_ext)
        prepare_queue_offset = _get_long(text)
        if prepare_queue_offset == -1:
            return False
        if prepare_queue_offset in remove_map:
            done_op_offset.append(remove_map.pop(prepare_queue_offset))
            return True
        return self.put_immunity_msg_back_to_half_queue(msg_ext)

    def pull_half_msg(self, mq: MessageQueue, offset: int, nums: int) -> PullResult | None:
        """Java: TransactionalMessageServiceImpl#pullHalfMsg."""
        return self.transactional_message_bridge.get_half_message(mq.queue_id, offset, nums)

    def pull_op_msg(self, mq: MessageQueue, offset: int, nums: int) -> PullResult | None:
        """Java: TransactionalMessageServiceImpl#pullOpMsg."""
        return self.transactional_message_bridge.get_op_message(mq.queue_id, offset, nums)

    @staticmethod
    def get_int(text: str) -> int:
        """``Integer.parseInt`` or -1. Java: TransactionalMessageServiceImpl#getInt."""
        return _parse_java_integral(text, 32)

    @staticmethod
    def calculate_op_offset(done_offset: list[int], old_offset: int) -> int:
        """Advance past the consecutive run of done op offsets. Java: #calculateOpOffset."""
        done_offset.sort()
        new_offset = old_offset
        for offset in done_offset:
            if offset != new_offset:
                break
            new_offset += 1
        return new_offset

    def get_op_queue(self, mq: MessageQueue) -> MessageQueue:
        """Java: TransactionalMessageServiceImpl#getOpQueue."""
        op_queue = self.op_queue_map.get(mq)
        if op_queue is None:
            op_queue = self.op_queue_map[mq] = MessageQueue(util.build_op_topic(), mq.broker_name, mq.queue_id)
        return op_queue

    def get_half_msg(self, mq: MessageQueue, offset: int) -> GetResult:
        """Java: TransactionalMessageServiceImpl#getHalfMsg."""
        get_result = GetResult()
        result = self.pull_half_msg(mq, offset, PULL_MSG_RETRY_NUMBER)
        get_result.pull_result = result
        if result is None or result.msg_found_list is None:
            return get_result  # type: ignore[return-value]
        get_result.msg = result.msg_found_list[0]
        return get_result

"""Deliberately broken variants of the engine, for testing that the checker catches what it claims to catch.

Java: none (test-only seams). Each variant is a context manager that swaps one engine method for a wrong one and
puts the original back on exit; outside ``variant(name)`` nothing is changed, so the default engine is untouched.
A checker that cannot tell a broken engine from the real one checks nothing.

* ``skip-sync-flush``: a SYNC_FLUSH broker acknowledges every send without flushing (GroupCommitService never
  forces the CommitLog), so a power loss takes acknowledged messages with it.
* ``drop-send-back``: a concurrent consumer reports RECONSUME_LATER's send-back as done without sending anything,
  so a failed message is neither retried nor dead-lettered.
* ``commit-before-consume``: a concurrent consumer advances its offset when it hands messages to the listener,
  before the listener returns.
* ``orderly-out-of-order``: an orderly consumer takes the newest cached message of a queue instead of the oldest.
* ``sync-master-no-wait``: a SYNC_MASTER answers SEND_OK without waiting for its slave (it replicates as an
  ASYNC_MASTER does), so losing the master's machine takes acknowledged messages the slave had not received.
* ``ha-trust-slave-report``: the master's HA connection as in 4.9.3: the first report of any peer is taken
  unchecked and every report raises ``push2SlaveMaxOffset``, so one rogue report of ``2**62`` makes a SYNC_MASTER
  acknowledge sends no slave holds (HA-19).
* ``trust-end-transaction``: END_TRANSACTION as in 4.9.3: any record at the offset is committed into whatever
  REAL_TOPIC / REAL_QID it carries, and every commit that passes the producer-group and offset checks stores
  another copy (TXN-20).
* ``trust-offset-store-names``: a BROADCASTING consumer's offset store as in 4.9.3: the client id (instance name,
  unit name) and the group are joined into the offset file's path unchecked, so ``instance_name="../../x"`` writes
  the offsets file outside the offset store directory (HARD-15).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from mqlab.broker.transaction.queue.transactional_message_service_impl import TransactionalMessageServiceImpl
from mqlab.client import validators
from mqlab.client.impl.consumer.consume_message_concurrently_service import ConsumeMessageConcurrentlyService
from mqlab.client.impl.consumer.process_queue import ProcessQueue
from mqlab.store.commit_log import CommitLog
from mqlab.store.group_commit_service import GroupCommitService
from mqlab.store.ha.ha_connection import HAConnection
from mqlab.store.put_message_status import PutMessageStatus


def _ack_without_flush(self: GroupCommitService) -> int:
    requests, self.requests_read = self.requests_read, []
    for request in requests:
        request.wakeup_customer(PutMessageStatus.PUT_OK)
    return len(requests)


def _pretend_sent_back(self: ConsumeMessageConcurrentlyService, msg: Any, context: Any) -> bool:
    return True


def _commit_on_submit(original: Callable[..., None]) -> Callable[..., None]:
    def submit_consume_request(
        self: ConsumeMessageConcurrentlyService, msgs: list[Any], process_queue: Any, message_queue: Any, dispatch: bool
    ) -> None:
        offset = process_queue.remove_message(msgs)
        if offset >= 0 and not process_queue.dropped:
            self.default_mq_push_consumer_impl.offset_store.update_offset(message_queue, offset, True)
        original(self, msgs, process_queue, message_queue, dispatch)

    return submit_consume_request


def _no_replica_wait(self: CommitLog, result: Any, msg: Any) -> None:
    return None  # "already PUT_OK", as for an ASYNC_MASTER


def _trust_any_record(self: TransactionalMessageServiceImpl, msg: Any, *, committing: bool) -> None:
    return None  # 4.9.3: no half-topic, resolved or real-queue check


def _trust_slave_report(self: HAConnection, offset: int) -> int | None:
    self.slave_ack_offset = offset
    if self.slave_request_offset < 0:
        self.slave_request_offset = offset  # 4.9.3: the first report is not compared with the master's end
        self.write_socket_service.wakeup()
    elif offset > self.ha_service.store.get_max_phy_offset():
        self._close_locked("slave ack offset beyond the master's max offset")
        return None
    return offset  # 4.9.3: every report counts, whatever this connection was sent


def _accept_any_name(value: str, what: str) -> None:
    """4.9.3 checks no name that becomes part of the offset store's path."""


def _take_newest(self: ProcessQueue, batch_size: int) -> list[Any]:
    result: list[Any] = []
    with self._tree_lock:
        self.last_consume_timestamp = self._now_ms()
        for offset in list(reversed(self.msg_tree_map.keys()))[:batch_size]:
            msg = self.msg_tree_map.remove(offset)
            result.append(msg)
            self.consuming_msg_orderly_tree_map.put(offset, msg)
        if not result:
            self.consuming = False
    return result


# variant name -> (class, attribute, replacement factory taking the original)
VARIANTS: dict[str, tuple[Any, str, Callable[[Any], Any]]] = {  # owner: a class or a module
    "skip-sync-flush": (GroupCommitService, "run_once", lambda original: _ack_without_flush),
    "drop-send-back": (ConsumeMessageConcurrentlyService, "send_message_back", lambda original: _pretend_sent_back),
    "commit-before-consume": (ConsumeMessageConcurrentlyService, "submit_consume_request", _commit_on_submit),
    "orderly-out-of-order": (ProcessQueue, "take_messages", lambda original: _take_newest),
    "sync-master-no-wait": (CommitLog, "submit_replica_request", lambda original: _no_replica_wait),
    "ha-trust-slave-report": (HAConnection, "process_report", lambda original: _trust_slave_report),
    "trust-end-transaction": (
        TransactionalMessageServiceImpl,
        "half_message_refusal",
        lambda original: _trust_any_record,
    ),
    "trust-offset-store-names": (validators, "check_path_component", lambda original: _accept_any_name),
}


@contextmanager
def variant(name: str | None) -> Iterator[None]:
    """Run the body with the named broken variant in place (``None``: the real engine).

    Raises:
        ValueError: an unknown variant name.
    """
    if name is None:
        yield
        return
    if name not in VARIANTS:
        raise ValueError(f"unknown broken variant {name!r}; known: {', '.join(VARIANTS)}")
    cls, attribute, make = VARIANTS[name]
    original = cls.__dict__[attribute]
    setattr(cls, attribute, make(original))
    try:
        yield
    finally:
        setattr(cls, attribute, original)

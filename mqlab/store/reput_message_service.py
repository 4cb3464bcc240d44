"""Reads the CommitLog behind the writers and dispatches every new record (ConsumeQueue, index, long polling).

Java: org.apache.rocketmq.store.DefaultMessageStore$ReputMessageService (rocketmq-all-4.9.3)

A message is in the CommitLog as soon as the put returns, but consumers only see it once reput has built its
ConsumeQueue unit. ``run_once`` is Java's ``doReput``: from ``reput_from_offset`` up to the CommitLog's max offset,
check each record, dispatch it, tell the arriving listener, and jump over the blank end of each segment.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mqlab.common.service_thread import ServiceThread
from mqlab.store.config.broker_role import BrokerRole

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.commit_log import CommitLog
    from mqlab.store.config.message_store_config import MessageStoreConfig
    from mqlab.store.dispatch_request import DispatchRequest
    from mqlab.store.message_arriving_listener import MessageArrivingListener


_SLAVE = BrokerRole.SLAVE  # read per dispatched record (an Enum class attribute is a descriptor call in 3.11)
# How many CommitLog bytes one read copies at most. Java reads a slice of the mapping, without copying; mqlab copies,
# and a reput that is far behind would otherwise copy up to a whole segment (1 GiB by default) in one go.
READ_CHUNK = 16 << 20


class ReputMessageService(ServiceThread):
    """Dispatches the CommitLog every millisecond (Java sleeps 1 ms between rounds)."""

    wakeup_interrupts_wait = False

    def __init__(
        self,
        runtime: Runtime,
        config: MessageStoreConfig,
        commit_log: CommitLog,
        do_dispatch: Callable[[DispatchRequest], None],
        *,
        long_polling_enable: Callable[[], bool] = lambda: True,
    ):
        super().__init__(runtime)
        self.config = config
        self.commit_log = commit_log
        self.do_dispatch = do_dispatch
        self.long_polling_enable = long_polling_enable
        self.reput_from_offset = 0
        self.message_arriving_listener: MessageArrivingListener | None = None
        self.interval_ms = 1
        # At least one whole record: no record (nor the blank end of a segment) is longer than maxMessageSize + 8.
        self.read_chunk = max(READ_CHUNK, config.max_message_size + 8)

    def wait_interval_ms(self) -> int:
        """1 ms (Java: ``Thread.sleep(1)``)."""
        return self.interval_ms

    def behind(self) -> int:
        """Bytes not yet dispatched. Java: DefaultMessageStore$ReputMessageService#behind."""
        return self.commit_log.get_max_offset() - self.reput_from_offset

    def is_commit_log_available(self) -> bool:
        """Whether there is something to dispatch. Java: ReputMessageService#isCommitLogAvailable."""
        return self.reput_from_offset < self.commit_log.get_max_offset()

    def is_idle(self) -> bool:
        """Whether a round would dispatch nothing and move nothing: all of the CommitLog is dispatched.

        Java: none (``ServiceThread.is_idle``: lets the simulator skip the idle 1 ms rounds).
        """
        reput_from_offset = self.reput_from_offset
        commit_log = self.commit_log
        return commit_log.get_min_offset() <= reput_from_offset >= commit_log.get_max_offset()

    def run_once(self) -> int:
        """Dispatch everything new; returns the number of records dispatched.

        Java: DefaultMessageStore$ReputMessageService#doReput
        """
        commit_log = self.commit_log
        min_offset = commit_log.get_min_offset()
        if self.reput_from_offset < min_offset:
            self.reput_from_offset = min_offset
        dispatched = 0
        do_next = True
        while do_next and self.is_commit_log_available():
            if self.config.duplication_enable and self.reput_from_offset >= commit_log.confirm_offset:
                break
            chunk = self.read_chunk
            result = commit_log.get_data(self.reput_from_offset, max_size=chunk)
            if result is None:
                break
            start_offset = self.reput_from_offset = result.start_offset
            data, read_size = result.data, 0
            end = len(data)
            capped = end == chunk  # more may follow in the segment: a record at the end may be cut in two
            # Looked up once per window, not once per record: the same bound methods and listener each time.
            check, do_dispatch = commit_log.check_message_and_return_size, self.do_dispatch
            notify = self._notify_arriving if self.message_arriving_listener is not None else None
            while read_size < end and do_next:
                request = check(data, read_size, False, False, base=start_offset)
                if not request.success and capped and self._cut_at_chunk_end(data, read_size):
                    break  # read again from this record: the next chunk starts with it
                size = request.msg_size if request.buffer_size == -1 else request.buffer_size
                if request.success:
                    if size > 0:
                        do_dispatch(request)
                        if notify is not None:  # no call at all without a listener
                            notify(request)
                        self.reput_from_offset += size
                        read_size += size
                        dispatched += 1
                    else:  # the blank record: continue with the next segment
                        self.reput_from_offset = commit_log.roll_next_file(self.reput_from_offset)
                        read_size = len(data)
                elif size > 0:
                    self.runtime.trace_event(
                        "ReputMessageService", "skipBadRecord", offset=self.reput_from_offset, size=size
                    )
                    self.reput_from_offset += size
                    read_size += size
                else:
                    do_next = False
                    if self.config.broker_role is not BrokerRole.SLAVE:
                        # A master skips the rest of what it read: the bytes there cannot be a record. Java reads
                        # to the segment's readable end at once; past a capped read, that end lies further on.
                        self.runtime.trace_event(
                            "ReputMessageService",
                            "skipUnreadable",
                            offset=self.reput_from_offset,
                            reason=request.reason,
                        )
                        if capped:
                            self.reput_from_offset = commit_log.readable_end(self.reput_from_offset)
                        else:
                            self.reput_from_offset += len(data) - read_size
        if dispatched and self.runtime.trace.enabled:
            self.runtime.trace_event(
                "ReputMessageService", "doReput", dispatched=dispatched, reputFromOffset=self.reput_from_offset
            )
        return dispatched

    def _cut_at_chunk_end(self, data: bytes, pos: int) -> bool:
        """Whether the record at ``pos`` goes on past the end of a capped read (its TOTALSIZE says so).

        A TOTALSIZE above the read size cannot be a record's: that one is left to the record check, which calls
        it garbage, so a corrupt size never makes reput read the same bytes again and again.
        """
        remaining = len(data) - pos
        if remaining < 4:
            return True
        total = int.from_bytes(data[pos : pos + 4], "big", signed=True)
        return remaining < total <= self.read_chunk

    def _notify_arriving(self, request: DispatchRequest) -> None:
        listener = self.message_arriving_listener
        if listener is not None and self.config.broker_role is not _SLAVE and self.long_polling_enable():
            listener.arriving(
                request.topic,
                request.queue_id,
                request.consume_queue_offset + 1,
                request.tags_code,
                request.store_timestamp,
                request.bit_map,
                request.properties_map,
            )

    def get_service_name(self) -> str:
        """Thread name. Java: ReputMessageService#getServiceName."""
        return "ReputMessageService"

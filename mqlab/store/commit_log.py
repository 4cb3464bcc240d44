"""Append-only log shared by every topic; every message lands here first.

All topics share one sequence of fixed-size segments (a ``MappedFileQueue``). Appends are serialised by the
put-message lock; a reader finds a record by its physical offset and learns its size from its first 4 bytes.

Java: org.apache.rocketmq.store.CommitLog (rocketmq-all-4.9.3)
Promoted inner classes: DefaultAppendMessageCallback, MessageExtEncoder, GroupCommitService, GroupCommitRequest,
FlushRealTimeService, CommitRealTimeService (each in its own module)
Left out: DLedger, LMQ multi-dispatch
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from zlib_ng.zlib_ng import crc32 as _crc32

from mqlab.common import util_all
from mqlab.common.bounded_cache import BoundedCache
from mqlab.common.message import message_const as mc
from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message_decoder import message_properties2string, string2message_properties
from mqlab.common.message.message_errors import MessageFormatError
from mqlab.common.message.message_ext_batch import MessageExtBatch
from mqlab.common.mix_all import parse_java_integral
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.common.topic.topic_validator import RMQ_SYS_SCHEDULE_TOPIC
from mqlab.runtime.scheduler import CompletedFuture
from mqlab.store.append_message_status import AppendMessageStatus
from mqlab.store.commit_real_time_service import CommitRealTimeService
from mqlab.store.config.broker_role import BrokerRole
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.config.message_store_config import MULTI_PATH_SPLITTER
from mqlab.store.default_append_message_callback import DefaultAppendMessageCallback
from mqlab.store.dispatch_request import DispatchRequest
from mqlab.store.flush_disk_watcher import FlushDiskWatcher
from mqlab.store.flush_real_time_service import FlushRealTimeService
from mqlab.store.group_commit_request import GroupCommitRequest
from mqlab.store.group_commit_service import GroupCommitService
from mqlab.store.mapped_file import last_non_zero
from mqlab.store.mapped_file_queue import MappedFileQueue
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.store.message_ext_encoder import MessageExtEncoder
from mqlab.store.put_message_result import PutMessageResult
from mqlab.store.put_message_status import PutMessageStatus
from mqlab.store.quarantine import quarantine_commit_log_cut
from mqlab.store.select_mapped_buffer_result import SelectMappedBufferResult
from mqlab.store.store_errors import StoreLoadError

if TYPE_CHECKING:
    from mqlab.runtime.runtime import Runtime
    from mqlab.store.config.message_store_config import MessageStoreConfig
    from mqlab.store.store_checkpoint import StoreCheckpoint
    from mqlab.store.transient_store_pool import TransientStorePool

MESSAGE_MAGIC_CODE = layout.MESSAGE_MAGIC_CODE
BLANK_MAGIC_CODE = layout.BLANK_MAGIC_CODE
_TRAN_MASK = int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE)
_TRAN_PREPARED = int(MessageSysFlag.TRANSACTION_PREPARED_TYPE)
_TRAN_COMMIT = int(MessageSysFlag.TRANSACTION_COMMIT_TYPE)
_TRAN_ROLLBACK = int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE)
_BORN_V6 = int(MessageSysFlag.BORNHOST_V6_FLAG)
_STORE_V6 = int(MessageSysFlag.STOREHOSTADDRESS_V6_FLAG)
_INT = struct.Struct(">i")
_LONG = struct.Struct(">q")
_INT_MAX = 0x7FFFFFFF  # UtilAll#crc32 clears the top bit so the CRC fits a positive int
_HEAD8 = struct.Struct(">ii")  # TOTALSIZE and MAGICCODE
_APPEND_OK = AppendMessageStatus.PUT_OK
_PUT_OK = PutMessageStatus.PUT_OK  # read once per put: an Enum class attribute is a descriptor call in 3.11
_SYNC_FLUSH = FlushDiskType.SYNC_FLUSH
_END_OF_FILE = AppendMessageStatus.END_OF_FILE
_SYNC_MASTER = BrokerRole.SYNC_MASTER  # read once per put, like the members above


class CommitLog:
    """The CommitLog of one store.

    Args:
        config: the store configuration (paths, sizes, flush settings).
        runtime: clock, scheduler, futures and trace.
        checkpoint: updated with the store time of flushed data.
        transient_store_pool: when enabled, new segments borrow a write buffer from it.
    """

    def __init__(
        self,
        config: MessageStoreConfig,
        runtime: Runtime,
        checkpoint: StoreCheckpoint,
        transient_store_pool: TransientStorePool | None = None,
    ):
        self.config = config
        self.runtime = runtime
        self._now_ms = runtime.clock.now_ms  # the clock's own method: one frame less than Runtime.now_ms per call
        self.checkpoint = checkpoint
        self.transient_store_pool = transient_store_pool
        if MULTI_PATH_SPLITTER in config.store_path_commit_log:
            raise StoreLoadError(
                f"storePathCommitLog lists several directories ({config.store_path_commit_log!r}); "
                "mqlab supports one CommitLog directory (4.9.3's multi-path CommitLog is left out)"
            )
        use_pool = transient_store_pool is not None and config.is_transient_store_pool_enable()
        self.mapped_file_queue = MappedFileQueue(
            config.store_path_commit_log,
            config.mapped_file_size_commit_log,
            runtime=runtime,
            transient_store_pool_provider=(lambda: transient_store_pool) if use_pool else None,
        )
        self.topic_queue_table: dict[str, int] = {}
        self.append_message_callback = DefaultAppendMessageCallback(config.max_message_size, self.topic_queue_table)
        self.encoder = MessageExtEncoder(config.max_message_size)
        self.put_message_lock = threading.RLock()
        self.begin_time_in_lock = 0
        self.confirm_offset = -1
        self.flush_disk_watcher = FlushDiskWatcher(runtime)
        self.flush_commit_log_service: GroupCommitService | FlushRealTimeService
        if config.flush_disk_type is FlushDiskType.SYNC_FLUSH:
            self.flush_commit_log_service = GroupCommitService(runtime, self.mapped_file_queue, checkpoint)
        else:
            self.flush_commit_log_service = FlushRealTimeService(runtime, config, self.mapped_file_queue, checkpoint)
        self.commit_log_service = CommitRealTimeService(
            runtime, config, self.mapped_file_queue, self.flush_commit_log_service
        )
        # Set by the store when it has one: rewrites delayed messages and computes their deliver time.
        self.schedule_message_service: DelayLevelService | None = None

    # -- life cycle ----------------------------------------------------------------------------------------------
    def load(self) -> None:
        """Map the existing segments. Java: CommitLog#load."""
        self.mapped_file_queue.load()

    def start(self) -> None:
        """Start the flush service (and the commit service with TransientStorePool). Java: CommitLog#start."""
        self.flush_commit_log_service.start()
        if self.config.is_transient_store_pool_enable():
            self.commit_log_service.start()

    def shutdown(self) -> None:
        """Stop the services (each flushes what is left). Java: CommitLog#shutdown."""
        if self.config.is_transient_store_pool_enable():
            self.commit_log_service.shutdown()
            if self.runtime.simulated:
                self.commit_log_service.on_stopped()
        self.flush_commit_log_service.shutdown()
        if self.runtime.simulated:
            self.flush_commit_log_service.on_stopped()

    def flush(self) -> int:
        """Commit and flush one segment each (where the committed and flushed offsets are); returns the flushed offset.

        Java: CommitLog#flush
        """
        self.mapped_file_queue.commit(0)
        self.mapped_file_queue.flush(0)
        return self.mapped_file_queue.flushed_where

    # -- offsets -------------------------------------------------------------------------------------------------
    def get_max_offset(self) -> int:
        """End of the readable data. Java: CommitLog#getMaxOffset."""
        return self.mapped_file_queue.get_max_offset()

    def get_min_offset(self) -> int:
        """Start of the first segment still available (-1 when empty). Java: CommitLog#getMinOffset."""
        first = self.mapped_file_queue.get_first_mapped_file()
        if first is None:
            return -1
        if first.available:
            return first.file_from_offset
        return self.roll_next_file(first.file_from_offset)

    def roll_next_file(self, offset: int) -> int:
        """Start of the segment after the one holding ``offset``. Java: CommitLog#rollNextFile."""
        size = self.config.mapped_file_size_commit_log
        return offset + size - offset % size

    def remove_queue_from_topic_queue_table(self, topic: str, queue_id: int) -> None:
        """Forget a queue's next queue offset (its topic was deleted: a new one starts at 0).

        Java: CommitLog#removeQueueFromTopicQueueTable
        """
        with self.put_message_lock:
            self.topic_queue_table.pop(f"{topic}-{queue_id}", None)

    def remain_how_many_data_to_flush(self) -> int:
        """Bytes not yet flushed. Java: CommitLog#remainHowManyDataToFlush."""
        return self.mapped_file_queue.remain_how_many_data_to_flush()

    # -- putting -------------------------------------------------------------------------------------------------
    def _completed(self, value: Any) -> CompletedFuture[Any]:
        return CompletedFuture(value)

    def async_put_message(self, msg: MessageExtBrokerInner):
        """Append one message; the returned future completes once the flush policy is satisfied.

        Java: CommitLog#asyncPutMessage
        """
        msg.store_timestamp = self._now_ms()
        body = msg.body
        # UtilAll#crc32, inlined (once per put): zlib-ng's CRC with the top bit cleared, 0 for no body.
        msg.body_crc = _crc32(body) & _INT_MAX if body else 0
        if self.schedule_message_service is not None:
            self.handle_delay_level(msg)
        if msg.born_host.is_ipv6:
            msg.sys_flag |= _BORN_V6
        if msg.store_host.is_ipv6:
            msg.sys_flag |= _STORE_V6
        encoded = self.encoder.encode(msg)
        if isinstance(encoded, PutMessageResult):
            return self._completed(encoded)
        msg.encoded_buff = encoded
        return self._put_under_lock(msg, self.mapped_file_queue.get_last_mapped_file)

    def async_put_messages(self, batch: MessageExtBatch):
        """Append a batch (all in one segment); illegal for transactional or delayed batches.

        Java: CommitLog#asyncPutMessages
        """
        batch.store_timestamp = self.runtime.now_ms()
        if batch.sys_flag & _TRAN_MASK:
            return self._completed(PutMessageResult(PutMessageStatus.MESSAGE_ILLEGAL))
        if batch.get_delay_time_level() > 0:
            return self._completed(PutMessageResult(PutMessageStatus.MESSAGE_ILLEGAL))
        if batch.born_host.is_ipv6:
            batch.sys_flag |= _BORN_V6
        if batch.store_host.is_ipv6:
            batch.sys_flag |= _STORE_V6
        # A batch over maxMessageSize raises MessageSizeExceededError out of the put, as Java's encoder throws a
        # RuntimeException there: the remoting layer answers SYSTEM_ERROR, which the producer retries (AUDIT-2).
        batch.encoded_buff, _count = self.encoder.encode_batch(batch)
        return self._put_under_lock(batch, self.mapped_file_queue.get_last_mapped_file)

    def _put_under_lock(self, msg: Any, last_file):
        unlock_mapped_file = None
        with self.put_message_lock:
            begin = self._now_ms()
            self.begin_time_in_lock = begin
            try:
                msg.store_timestamp = begin
                mapped_file = last_file()
                if mapped_file is None or mapped_file.wrote_position == mapped_file.file_size:  # #isFull
                    mapped_file = self.mapped_file_queue.get_last_mapped_file(0, need_create=True)
                if mapped_file is None:
                    return self._completed(PutMessageResult(PutMessageStatus.CREATE_MAPEDFILE_FAILED))
                result = mapped_file.append_message(msg, self.append_message_callback)
                status = result.status
                if status is _END_OF_FILE:
                    unlock_mapped_file = mapped_file
                    self.runtime.trace_event(
                        "CommitLog", "endOfFile", file=mapped_file.file.name, blank=result.wrote_bytes
                    )
                    mapped_file = self.mapped_file_queue.get_last_mapped_file(0, need_create=True)
                    if mapped_file is None:
                        return self._completed(PutMessageResult(PutMessageStatus.CREATE_MAPEDFILE_FAILED, result))
                    result = mapped_file.append_message(msg, self.append_message_callback)
                    status = result.status
                if status is not _APPEND_OK:
                    if status in (
                        AppendMessageStatus.MESSAGE_SIZE_EXCEEDED,
                        AppendMessageStatus.PROPERTIES_SIZE_EXCEEDED,
                    ):
                        return self._completed(PutMessageResult(PutMessageStatus.MESSAGE_ILLEGAL, result))
                    return self._completed(PutMessageResult(PutMessageStatus.UNKNOWN_ERROR, result))
            finally:
                self.begin_time_in_lock = 0
        del unlock_mapped_file  # warm-mapped-file unlocking (mlock) has no equivalent here
        if self.runtime.trace.enabled:
            self.runtime.trace_event(
                "CommitLog",
                "putMessage",
                topic=msg.topic,
                queueId=msg.queue_id,
                queueOffset=result.logics_offset,
                wroteOffset=result.wrote_offset,
                size=result.wrote_bytes,
            )
        put_result = PutMessageResult(_PUT_OK, result)
        # Java combines the flush future and the replica future (thenCombine): the put is answered when both are
        # over, each failure status overwrites PUT_OK, and the replica's is applied last, so it wins. ASYNC_FLUSH on
        # an ASYNC_MASTER (or a store without an HA service) has nothing to wait for and answers at once.
        # SYNC_FLUSH waits for the flush, SYNC_MASTER for a slave's acknowledgement (docs/spec/store-ha.md), and
        # both together wait for both.
        flush_wait = self.submit_flush_request(result, msg)
        replica_wait = self.submit_replica_request(result, msg)
        if flush_wait is None and replica_wait is None:  # the common case, without building a list per put
            return CompletedFuture(put_result)
        waits = [f for f in (flush_wait, replica_wait) if f is not None]
        combined = self.runtime.scheduler.new_future()
        on_done = self._complete_when_all_done(put_result, combined, waits)
        for future in waits:
            future.add_done_callback(on_done)
        return combined

    def submit_flush_request(self, result, msg: Any):
        """SYNC_FLUSH with WAIT: queue a group commit and return its future; otherwise wake the flusher.

        Java: CommitLog#submitFlushRequest (returns ``None`` for "already PUT_OK")
        """
        if self.config.flush_disk_type is _SYNC_FLUSH:
            service = self.flush_commit_log_service
            if msg.is_wait_store_msg_ok():
                request = GroupCommitRequest(
                    result.wrote_offset + result.wrote_bytes,
                    self.runtime.now_ms() + self.config.sync_flush_timeout,
                    self.runtime.scheduler.new_future(),
                )
                self.flush_disk_watcher.add(request)
                assert isinstance(service, GroupCommitService)
                service.put_request(request)
                return request.future()
            service.wakeup()
            return None
        if self.config.is_transient_store_pool_enable():
            self.commit_log_service.wakeup()
        else:
            self.flush_commit_log_service.wakeup()
        return None

    # -- reading -------------------------------------------------------------------------------------------------
    def get_data(
        self, offset: int, return_first_on_not_found: bool = False, *, max_size: int | None = None
    ) -> SelectMappedBufferResult | None:
        """Readable bytes from ``offset`` to the end of its segment, at most ``max_size`` of them.

        Java: CommitLog#getData (a slice of the mapping; mqlab copies, so a reader may ask for less than the rest of
        a segment that can be 1 GiB long)
        """
        size = self.config.mapped_file_size_commit_log
        mapped_file = self.mapped_file_queue.find_mapped_file_by_offset(offset, return_first_on_not_found)
        if mapped_file is None:
            return None
        pos = offset % size
        if max_size is not None:
            readable = mapped_file.get_read_position() - pos
            if readable > max_size:
                return mapped_file.select_mapped_buffer(pos, max_size)
        return mapped_file.select_mapped_buffer(pos)

    def readable_end(self, offset: int) -> int:
        """Where the readable bytes of the segment holding ``offset`` end (``offset`` itself if there is none)."""
        mapped_file = self.mapped_file_queue.find_mapped_file_by_offset(offset)
        if mapped_file is None:
            return offset
        return mapped_file.file_from_offset + mapped_file.get_read_position()

    def get_message(self, offset: int, size: int) -> SelectMappedBufferResult | None:
        """Exactly ``size`` bytes at ``offset`` (one record). Java: CommitLog#getMessage."""
        mapped_file = self.mapped_file_queue.find_mapped_file_by_offset(offset, offset == 0)
        if mapped_file is None or offset < mapped_file.file_from_offset:
            # Java asks for "the first segment if not found" when offset == 0 and then reads that segment at
            # position 0: once segment 0 is deleted that returns the bytes of another record. mqlab answers "gone".
            return None
        return mapped_file.select_mapped_buffer(offset % self.config.mapped_file_size_commit_log, size)

    def pickup_store_timestamp(self, offset: int, size: int) -> int:
        """STORETIMESTAMP of the record at ``offset`` (-1 if not readable). Java: CommitLog#pickupStoreTimestamp."""
        if offset < self.get_min_offset():
            return -1
        result = self.get_message(offset, size)
        if result is None:
            return -1
        (sys_flag,) = _INT.unpack_from(result.data, layout.SYSFLAG_POSITION)
        return _LONG.unpack_from(result.data, layout.store_timestamp_position(sys_flag & _BORN_V6))[0]

    # -- checking records (recovery and reput) -------------------------------------------------------------------
    def check_message_and_return_size(
        self, buf: Any, pos: int, check_crc: bool, read_body: bool = True, *, base: int = 0
    ) -> DispatchRequest:
        """Judge the bytes at ``pos``: a record (size > 0), the blank end of a segment (0) or garbage (-1).

        Java: CommitLog#checkMessageAndReturnSize. Where Java only logs, ``reason`` says what was wrong.
        """
        if pos + 8 > len(buf):
            return DispatchRequest(-1, False, reason=f"only {len(buf) - pos} bytes left at {base + pos}")
        total, magic = _HEAD8.unpack_from(buf, pos)
        if magic == BLANK_MAGIC_CODE:
            return DispatchRequest(0, True)
        if magic == 0 and total == 0:
            return DispatchRequest(-1, False, reason="")  # never-written (zero) bytes: the end of the data
        if magic != MESSAGE_MAGIC_CODE:
            return DispatchRequest(-1, False, reason=f"no record at {base + pos} (magic {magic & 0xFFFFFFFF:#010x})")
        fields = layout.decode_dispatch_fields(buf, pos, total)
        if fields is None:
            # Unusual records (IPv6 hosts) and broken ones: the full decoder, which also explains what is wrong.
            return self._check_decoded_record(buf, pos, total, check_crc, read_body, base)
        (
            body_crc,
            queue_id,
            queue_offset,
            physical_offset,
            sys_flag,
            store_timestamp,
            prepared,
            body_start,
            body_length,
            topic_start,
            topic_length,
            properties_start,
            properties_length,
        ) = fields
        # UtilAll#crc32, inlined (once per record in reput and recovery)
        if check_crc and body_length > 0 and _crc32(buf[body_start : body_start + body_length]) & _INT_MAX != body_crc:
            return DispatchRequest(-1, False, reason=f"body CRC mismatch in the record at {base + pos}")
        raw_topic = buf[topic_start : topic_start + topic_length]  # bytes: ``buf`` is a copy or the mapping
        topic = _TOPIC_CACHE.get(raw_topic) if type(raw_topic) is bytes else None  # _decode_topic's hit, inlined
        return self._dispatch_request(
            total,
            topic if topic is not None else _decode_topic(raw_topic),
            queue_id,
            physical_offset,
            store_timestamp,
            queue_offset,
            sys_flag,
            prepared,
            buf[properties_start : properties_start + properties_length],
        )

    def _check_decoded_record(
        self, buf: Any, pos: int, total: int, check_crc: bool, read_body: bool, base: int
    ) -> DispatchRequest:
        """``check_message_and_return_size`` through ``decode_raw``: any host width, and the reason of a failure."""
        try:
            raw = layout.decode_raw(buf, pos, read_body=read_body or check_crc, base=base)
        except MessageFormatError as exc:
            size = total if "TOTALSIZE says" in str(exc) and total > 0 and pos + total <= len(buf) else -1
            return DispatchRequest(size, False, reason=str(exc))
        if check_crc and raw.body_length > 0 and util_all.crc32(raw.body) != raw.body_crc:
            return DispatchRequest(-1, False, reason=f"body CRC mismatch in the record at {base + pos}")
        return self._dispatch_request(
            raw.total_size,
            _decode_topic(raw.topic),
            raw.queue_id,
            raw.physical_offset,
            raw.store_timestamp,
            raw.queue_offset,
            raw.sys_flag,
            raw.prepared_transaction_offset,
            raw.properties,
        )

    def _dispatch_request(
        self,
        total_size: int,
        topic: str,
        queue_id: int,
        physical_offset: int,
        store_timestamp: int,
        queue_offset: int,
        sys_flag: int,
        prepared_transaction_offset: int,
        properties_bytes: Any,
    ) -> DispatchRequest:
        """The request for a checked record: properties parsed, keys and tags code picked out."""
        properties = None
        tags_code = 0
        keys = ""
        uniq_key = None
        if properties_bytes:
            properties = string2message_properties(str(properties_bytes, "utf-8", "replace"), dict)
            keys = properties.get(mc.PROPERTY_KEYS)
            uniq_key = properties.get(mc.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)
            tags = properties.get(mc.PROPERTY_TAGS)
            if tags:
                tags_code = MessageExtBrokerInner.tags_string2tags_code(tags)
            if topic == RMQ_SYS_SCHEDULE_TOPIC:
                delay = properties.get(mc.PROPERTY_DELAY_TIME_LEVEL)
                if delay is not None:
                    try:
                        level = parse_java_integral(delay)
                    except ValueError:
                        # Java's Integer.parseInt throws inside checkMessageAndReturnSize, whose catch answers
                        # (-1, false): recovery ends at this record and a master's reput skips what it read.
                        reason = f"{topic} record at {physical_offset} has DELAY {delay!r}, not a number"
                        return DispatchRequest(-1, False, reason=reason)
                    tags_code = self._delay_tags_code(level, store_timestamp, tags_code)
        # Positional: once per record, and keyword arguments cost a dataclass __init__ about twice as much.
        return DispatchRequest(
            total_size,  # msg_size
            True,  # success
            topic,
            queue_id,
            physical_offset,  # commit_log_offset
            tags_code,
            store_timestamp,
            queue_offset,  # consume_queue_offset
            keys,
            uniq_key,
            sys_flag,
            prepared_transaction_offset,
            properties,  # properties_map
        )

    def _delay_tags_code(self, level: int, store_timestamp: int, tags_code: int) -> int:
        """For SCHEDULE_TOPIC_XXXX the tags code is the deliver time (needs the schedule service's levels)."""
        service = self.schedule_message_service
        if service is None:
            return tags_code
        level = min(level, service.get_max_delay_level())
        if level > 0:
            return service.compute_deliver_timestamp(level, store_timestamp)
        return tags_code

    def handle_delay_level(self, msg: MessageExtBrokerInner) -> None:
        """A delayed message goes to SCHEDULE_TOPIC_XXXX queue ``level - 1``, remembering its real topic and queue.

        Only for normal and committed messages with ``DELAY`` > 0 and a schedule service; the level is clamped to
        the highest configured one, ``REAL_TOPIC``/``REAL_QID`` are added and the properties string is serialised
        again from the (HashMap) property map.

        Java: the delay block at the start of CommitLog#asyncPutMessage
        """
        service = self.schedule_message_service
        tran_type = msg.sys_flag & _TRAN_MASK
        if service is None or tran_type not in (0, _TRAN_COMMIT) or msg.get_delay_time_level() <= 0:
            return
        if msg.get_delay_time_level() > service.get_max_delay_level():
            msg.set_delay_time_level(service.get_max_delay_level())
        level = msg.get_delay_time_level()
        msg.put_property(mc.PROPERTY_REAL_TOPIC, msg.topic or "")
        msg.put_property(mc.PROPERTY_REAL_QUEUE_ID, str(msg.queue_id))
        msg.properties_string = message_properties2string(msg.properties)
        msg.topic = RMQ_SYS_SCHEDULE_TOPIC
        msg.queue_id = level - 1  # ScheduleMessageService#delayLevel2QueueId
        self.runtime.trace_event("CommitLog", "delayToScheduleTopic", level=level, queueId=msg.queue_id)

    # -- recovery ------------------------------------------------------------------------------------------------
    def _scan(self, start_index: int, check_crc: bool, on_record: Callable[[DispatchRequest], None] | None):
        """Walk records from segment ``start_index``; return (stop offset, the failing request or None)."""
        files = self.mapped_file_queue.mapped_files
        index = start_index
        mapped_file = files[index]
        buf, base = mapped_file.slice_byte_buffer(), mapped_file.file_from_offset
        pos = 0
        while True:
            request = self.check_message_and_return_size(buf, pos, check_crc, base=base)
            if request.success and request.msg_size > 0:
                if on_record is not None:
                    on_record(request)
                pos += request.msg_size
            elif request.success:
                index += 1
                if index >= len(files):
                    break
                mapped_file = files[index]
                buf, base = mapped_file.slice_byte_buffer(), mapped_file.file_from_offset
                pos = 0
            else:
                return mapped_file.file_from_offset + pos, request
        return mapped_file.file_from_offset + pos, None

    def recover_normally(
        self, max_phy_offset_of_consume_queue: int, truncate_logics: Callable[[int], None]
    ) -> RecoveryOutcome:
        """After a clean shutdown: check the last three segments and cut after the last good record.

        Java: CommitLog#recoverNormally

        Returns:
            What recovery did.
        """
        files = self.mapped_file_queue.mapped_files
        if not files:
            return self._recover_empty(truncate_logics)
        process_offset, failure = self._scan(max(len(files) - 3, 0), self.config.check_crc_on_recover, None)
        return self._finish_recovery(
            "normal", process_offset, failure, max_phy_offset_of_consume_queue, truncate_logics
        )

    def recover_abnormally(
        self,
        max_phy_offset_of_consume_queue: int,
        truncate_logics: Callable[[int], None],
        do_dispatch: Callable[[DispatchRequest], None],
        min_timestamp: int,
    ) -> RecoveryOutcome:
        """After a crash: start at the newest segment whose first record is older than the checkpoint, re-dispatch.

        Java: CommitLog#recoverAbnormally (and #isMappedFileMatchedRecover)
        """
        files = self.mapped_file_queue.mapped_files
        if not files:
            return self._recover_empty(truncate_logics)
        index = len(files) - 1
        while index >= 0 and not self.is_mapped_file_matched_recover(files[index], min_timestamp):
            index -= 1
        index = max(index, 0)
        self.runtime.trace_event("CommitLog", "recoverAbnormallyFrom", file=files[index].file.name)

        def redispatch(request: DispatchRequest) -> None:
            if request.commit_log_offset < self.confirm_offset:
                do_dispatch(request)

        # Java checks duplicationEnable per record; it does not change during recovery, so it is read once here.
        on_record = redispatch if self.config.duplication_enable else do_dispatch
        process_offset, failure = self._scan(index, self.config.check_crc_on_recover, on_record)
        return self._finish_recovery(
            "abnormal", process_offset, failure, max_phy_offset_of_consume_queue, truncate_logics
        )

    def is_mapped_file_matched_recover(self, mapped_file, min_timestamp: int) -> bool:
        """Whether the segment's first record is a message stored at or before ``min_timestamp``.

        Java: CommitLog#isMappedFileMatchedRecover (``min_timestamp`` is the checkpoint's, chosen by the caller)
        """
        buf = mapped_file.slice_byte_buffer()
        if _INT.unpack_from(buf, layout.MESSAGE_MAGIC_CODE_POSITION)[0] != MESSAGE_MAGIC_CODE:
            return False
        (sys_flag,) = _INT.unpack_from(buf, layout.SYSFLAG_POSITION)
        (store_timestamp,) = _LONG.unpack_from(buf, layout.store_timestamp_position(sys_flag & _BORN_V6))
        return store_timestamp != 0 and store_timestamp <= min_timestamp

    def _recover_empty(self, truncate_logics: Callable[[int], None]):
        self.mapped_file_queue.flushed_where = 0
        self.mapped_file_queue.committed_where = 0
        return RecoveryOutcome("empty", 0, None, [], destroy_logics=True)

    def _finish_recovery(self, mode, process_offset, failure, max_phy_offset_of_consume_queue, truncate_logics):
        mfq = self.mapped_file_queue
        dropped_bytes = max(mfq.get_max_wrote_position() - process_offset, 0)
        last = mfq.get_last_mapped_file()
        if last is not None and last.wrote_position == last.file_size:
            # Loaded files count as full: measure what really follows the stop point instead.
            dropped_bytes = self._non_zero_tail(process_offset)
        reason = failure.reason if failure is not None and failure.reason else None
        kept = None
        if dropped_bytes > 0:
            # mqlab: what 4.9.3 would erase and delete is moved to the quarantine first (HARD-5).
            entry = quarantine_commit_log_cut(
                self.config.store_path_root_dir,
                mfq,
                process_offset,
                reason=reason,
                mode=mode,
                now_ms=self.runtime.now_ms(),
            )
            kept = str(entry.relative_to(Path(self.config.store_path_root_dir))) if entry is not None else None
        mfq.flushed_where = process_offset
        mfq.committed_where = process_offset
        removed = mfq.truncate_dirty_files(process_offset)
        if max_phy_offset_of_consume_queue >= process_offset:
            truncate_logics(process_offset)
        outcome = RecoveryOutcome(mode, process_offset, reason, removed, dropped_bytes, quarantined=kept)
        self.runtime.trace_event(
            "CommitLog",
            "recovered",
            mode=mode,
            maxOffset=process_offset,
            stoppedBecause=outcome.stopped_because or "end of data",
            removedFiles=len(removed),
            quarantined=kept,
        )
        return outcome

    def _non_zero_tail(self, offset: int) -> int:
        """Bytes from ``offset`` up to the last non-zero byte of each later segment (what truncation cuts)."""
        dropped = 0
        size = self.config.mapped_file_size_commit_log
        for mapped_file in self.mapped_file_queue.mapped_files:
            start = max(offset - mapped_file.file_from_offset, 0)
            if start < size:
                dropped += max(last_non_zero(mapped_file.slice_byte_buffer(), start, size) - start, 0)
        return dropped

    @staticmethod
    def _complete_when_all_done(put_result: PutMessageResult, combined, waits: list) -> Callable[[Any], None]:
        """The callback that answers the put once every wait is over (Java: the ``thenCombine`` function)."""

        def on_done(_future) -> None:
            if all(f.done() for f in waits):
                failed = [status for status in (f.result(0) for f in waits) if status is not _PUT_OK]
                put_result.put_message_status = failed[-1] if failed else _PUT_OK
                combined.set_result(put_result)

        return on_done

    # The store's HAService when it replicates (docs/spec/store-ha.md), set by DefaultMessageStore; None: no slave
    # is waited for, whatever the role.
    ha_service: Any = None

    def submit_replica_request(self, result, msg: Any):
        """SYNC_MASTER with WAIT: wait for a slave (or SLAVE_NOT_AVAILABLE at once); other roles: ``None``.

        Java: CommitLog#submitReplicaRequest (returns ``None`` for "already PUT_OK")
        """
        ha_service = self.ha_service
        if ha_service is None or self.config.broker_role is not _SYNC_MASTER:
            return None
        if not msg.is_wait_store_msg_ok():
            return None
        next_offset = result.wrote_offset + result.wrote_bytes
        if not ha_service.is_slave_ok(next_offset):
            self.runtime.trace_event("CommitLog", "slaveNotAvailable", nextOffset=next_offset)
            return CompletedFuture(PutMessageStatus.SLAVE_NOT_AVAILABLE)
        request = GroupCommitRequest(
            next_offset, self._now_ms() + self.config.slave_timeout, self.runtime.scheduler.new_future()
        )
        ha_service.put_request(request)
        ha_service.wakeup_all_writers()
        return request.future()

    def append_data(self, start_offset: int, data: bytes) -> bool:
        """Append replicated bytes at the end of the CommitLog (a slave); ``False`` when they do not fit.

        Java: CommitLog#appendData
        """
        with self.put_message_lock:
            mapped_file = self.mapped_file_queue.get_last_mapped_file(start_offset, need_create=True)
            if mapped_file is None:
                return False
            return mapped_file.append_message_bytes(data)


# Topic names decoded from record bytes: a store sees few topics, and each record would decode its own copy.
_TOPIC_CACHE: BoundedCache[bytes, str] = BoundedCache()


def _decode_topic(raw: Any) -> str:
    """The topic string of a record's TOPIC bytes (memoised; bounded, emptied when full)."""
    if type(raw) is not bytes:
        raw = bytes(raw)  # a slice of a bytearray or memoryview: not usable as a key
    topic = _TOPIC_CACHE.get(raw)
    if topic is None:
        topic = _TOPIC_CACHE.put(raw, raw.decode("utf-8", "replace"))
    return topic


class DelayLevelService(Protocol):
    """What the CommitLog needs of ScheduleMessageService: the delay levels."""

    def get_max_delay_level(self) -> int:
        """Number of configured levels (18 by default)."""
        ...

    def compute_deliver_timestamp(self, delay_level: int, store_timestamp: int) -> int:
        """``store_timestamp`` plus the level's delay."""
        ...


class RecoveryOutcome:
    """What recovery did: mode, where the CommitLog now ends, why the scan stopped, what was cut."""

    def __init__(
        self,
        mode: str,
        max_offset: int,
        stopped_because: str | None,
        removed_files: list[str],
        dropped_bytes: int = 0,
        destroy_logics: bool = False,
        quarantined: str | None = None,
    ):
        self.mode = mode
        self.max_offset = max_offset
        self.stopped_because = stopped_because
        self.removed_files = removed_files
        self.dropped_bytes = dropped_bytes
        self.destroy_logics = destroy_logics
        self.quarantined = quarantined  # where the cut bytes were kept, relative to the store root

    def __repr__(self) -> str:
        return (
            f"RecoveryOutcome(mode={self.mode}, max_offset={self.max_offset}, "
            f"stopped_because={self.stopped_because!r}, removed_files={self.removed_files}, "
            f"dropped_bytes={self.dropped_bytes}, quarantined={self.quarantined!r})"
        )

"""Writes one pre-encoded record (or batch) into a CommitLog segment, or the blank record when it does not fit.

Java: org.apache.rocketmq.store.CommitLog$DefaultAppendMessageCallback (rocketmq-all-4.9.3)

Runs inside the put lock. It fixes the three fields only known now: QUEUEOFFSET (from the topic-queue table),
PHYSICALOFFSET (segment start + position) and STORETIMESTAMP (taken when the lock was acquired). A record must
leave at least 8 bytes after it; otherwise an 8-byte blank record ``[int bytesLeft][int 0xCBD43194]`` ends the
segment and the caller retries in a new one.
"""

from __future__ import annotations

import struct
from typing import Any

from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message_decoder import create_message_id
from mqlab.common.message.message_ext_batch import MessageExtBatch
from mqlab.common.sysflag.message_sys_flag import MessageSysFlag
from mqlab.store.append_message_result import AppendMessageResult
from mqlab.store.append_message_status import AppendMessageStatus

END_FILE_MIN_BLANK_LENGTH = 4 + 4
_LONG = struct.Struct(">q")
_BLANK = struct.Struct(">ii")
_QUEUE_OFFSET_POS = layout.QUEUE_OFFSET_POSITION
_PHYSICAL_OFFSET_POS = layout.MESSAGE_PHYSIC_OFFSET_POSITION
_STORE_TS_POS = {flags: layout.store_timestamp_position(flags) for flags in (0, 0x10)}
# QUEUEOFFSET and PHYSICALOFFSET are adjacent longs: one pack writes both.
_QUEUE_AND_PHYSICAL_OFFSET = struct.Struct(">qq")
assert _PHYSICAL_OFFSET_POS == _QUEUE_OFFSET_POS + 8
_PUT_OK = AppendMessageStatus.PUT_OK
_TRAN_MASK = int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE)
_NO_QUEUE_OFFSET = (int(MessageSysFlag.TRANSACTION_PREPARED_TYPE), int(MessageSysFlag.TRANSACTION_ROLLBACK_TYPE))


def topic_queue_key(topic: str, queue_id: int) -> str:
    """Key of the topic-queue table: ``"<topic>-<queueId>"``.

    Java: CommitLog#generateKey
    """
    return f"{topic}-{queue_id}"


class DefaultAppendMessageCallback:
    """Appends into a segment buffer, updating ``topic_queue_table`` (topic-queue key → next queue offset)."""

    def __init__(self, max_message_size: int, topic_queue_table: dict[str, int]):
        self.max_message_size = max_message_size
        self.topic_queue_table = topic_queue_table

    def do_append(
        self, file_from_offset: int, buffer: Any, position: int, max_blank: int, msg: Any
    ) -> AppendMessageResult:
        """Dispatch to the single-message or the batch variant (``MappedFile.append_message`` calls them directly).

        Java: CommitLog$DefaultAppendMessageCallback#doAppend (both overloads)
        """
        if isinstance(msg, MessageExtBatch):
            return self.do_append_batch(file_from_offset, buffer, position, max_blank, msg)
        return self.do_append_single(file_from_offset, buffer, position, max_blank, msg)

    def _end_of_file(self, buffer: Any, position: int, max_blank: int, wrote_offset: int, msg: Any, queue_offset: int):
        _BLANK.pack_into(buffer, position, max_blank, layout.BLANK_MAGIC_CODE)
        # Only 8 bytes are written, but the whole rest of the segment counts as used.
        return AppendMessageResult(
            AppendMessageStatus.END_OF_FILE,
            wrote_offset,
            max_blank,
            lambda: create_message_id(msg.store_host, wrote_offset),
            msg.store_timestamp,
            queue_offset,
        )

    def do_append_single(self, file_from_offset: int, buffer: Any, position: int, max_blank: int, msg: Any):
        """Append one record. Java: CommitLog$DefaultAppendMessageCallback#doAppend(MessageExtBrokerInner)."""
        wrote_offset = file_from_offset + position
        key = f"{msg.topic}-{msg.queue_id}"  # topic_queue_key(), inlined on the hot path
        table = self.topic_queue_table
        queue_offset = table.get(key)
        if queue_offset is None:
            queue_offset = table[key] = 0
        in_queue = (msg.sys_flag & _TRAN_MASK) not in _NO_QUEUE_OFFSET
        if not in_queue:
            queue_offset = 0  # half and rollback messages never enter a ConsumeQueue
        data = msg.encoded_buff
        msg_len = len(data)
        if msg_len + END_FILE_MIN_BLANK_LENGTH > max_blank:
            return self._end_of_file(buffer, position, max_blank, wrote_offset, msg, queue_offset)
        end = position + msg_len
        buffer[position:end] = data
        _QUEUE_AND_PHYSICAL_OFFSET.pack_into(buffer, position + _QUEUE_OFFSET_POS, queue_offset, wrote_offset)
        store_timestamp = msg.store_timestamp
        _LONG.pack_into(buffer, position + _STORE_TS_POS[msg.sys_flag & 0x10], store_timestamp)
        msg.encoded_buff = None
        store_host = msg.store_host
        result = AppendMessageResult(
            _PUT_OK,
            wrote_offset,
            msg_len,
            lambda: create_message_id(store_host, wrote_offset),
            store_timestamp,
            queue_offset,
        )
        if in_queue:
            table[key] = queue_offset + 1
        return result

    def do_append_batch(
        self, file_from_offset: int, buffer: Any, position: int, max_blank: int, batch: MessageExtBatch
    ):
        """Append every record of a batch, or none. Java: CommitLog$DefaultAppendMessageCallback#doAppend(batch)."""
        wrote_offset = file_from_offset + position
        key = topic_queue_key(batch.topic or "", batch.queue_id)
        table = self.topic_queue_table
        queue_offset = table.get(key)
        if queue_offset is None:
            queue_offset = table[key] = 0
        begin_queue_offset = queue_offset
        data = bytearray(batch.encoded_buff or b"")
        if len(data) + END_FILE_MIN_BLANK_LENGTH > max_blank:
            return self._end_of_file(buffer, position, max_blank, wrote_offset, batch, begin_queue_offset)
        store_ts_pos = _STORE_TS_POS[batch.sys_flag & 0x10]
        physical, pos, count = [], 0, 0
        while pos < len(data):
            (msg_len,) = struct.unpack_from(">i", data, pos)
            if msg_len > self.max_message_size:
                return AppendMessageResult(AppendMessageStatus.MESSAGE_SIZE_EXCEEDED)
            _LONG.pack_into(data, pos + _QUEUE_OFFSET_POS, queue_offset)
            _LONG.pack_into(data, pos + _PHYSICAL_OFFSET_POS, wrote_offset + pos)
            _LONG.pack_into(data, pos + store_ts_pos, batch.store_timestamp)
            physical.append(wrote_offset + pos)
            queue_offset += 1
            count += 1
            pos += msg_len
        buffer[position : position + len(data)] = data
        batch.encoded_buff = None
        store_host = batch.store_host
        result = AppendMessageResult(
            AppendMessageStatus.PUT_OK,
            wrote_offset,
            len(data),
            lambda: ",".join(create_message_id(store_host, p) for p in physical),
            batch.store_timestamp,
            begin_queue_offset,
            msg_num=count,
        )
        table[key] = queue_offset
        return result

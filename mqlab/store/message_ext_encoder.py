"""Encodes a message into its CommitLog record before the put lock is taken.

Java: org.apache.rocketmq.store.CommitLog$MessageExtEncoder (rocketmq-all-4.9.3)

QUEUEOFFSET and PHYSICALOFFSET are written as 0 and STORETIMESTAMP provisionally: ``doAppend`` patches all three
inside the lock, once the record's place is known. For a batch, every inner message becomes a full record; the
batch-level properties (``WAIT``, ``CLUSTER``, ...) are appended to each inner message's own properties, with a
``0x02`` separator inserted when the inner properties do not already end with one (4.9.3 behaviour).
"""

from __future__ import annotations

import struct

from mqlab.common import util_all
from mqlab.common.bounded_cache import BoundedCache
from mqlab.common.message import message_record_layout as layout
from mqlab.common.message.message_decoder import message_properties2string
from mqlab.common.message.message_ext_batch import MessageExtBatch
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.store.put_message_result import PutMessageResult
from mqlab.store.put_message_status import PutMessageStatus

_BATCH_HEAD = struct.Struct(">iiiii")  # inner message: TOTALSIZE, MAGICCODE, BODYCRC, FLAG, BODYLEN
_PROPERTY_SEPARATOR = 0x02


# UTF-8 bytes of each topic seen: a store sees few topics, and every put would encode its topic again.
_TOPIC_BYTES: BoundedCache[str, bytes] = BoundedCache()


class MessageSizeExceededError(ValueError):
    """A batch whose records exceed ``maxMessageSize`` (Java throws a RuntimeException with this text)."""


class MessageExtEncoder:
    """Pre-encodes records (one per put thread in Java; stateless here)."""

    def __init__(self, max_message_size: int):
        self.max_message_size = max_message_size

    def encode(self, msg: MessageExtBrokerInner) -> bytes | PutMessageResult:
        """The record bytes, or the failed ``PutMessageResult`` (properties or whole record too large).

        Java: CommitLog$MessageExtEncoder#encode(MessageExtBrokerInner)
        """
        properties = msg.properties_string.encode("utf-8") if msg.properties_string else b""
        if len(properties) > layout.PROPERTIES_MAX_BYTES:
            return PutMessageResult(PutMessageStatus.PROPERTIES_SIZE_EXCEEDED)
        topic_name = msg.topic or ""
        topic = _TOPIC_BYTES.get(topic_name)
        if topic is None:
            topic = _TOPIC_BYTES.put(topic_name, topic_name.encode("utf-8"))
        body = msg.body or b""
        length = layout.cal_msg_length(msg.sys_flag, len(body), len(topic), len(properties))
        if length > self.max_message_size:
            return PutMessageResult(PutMessageStatus.MESSAGE_ILLEGAL)
        # QUEUEOFFSET and PHYSICALOFFSET are 0 here; doAppend patches them (and STORETIMESTAMP) in the lock.
        return layout.pack(
            msg.queue_id,
            msg.flag,
            0,
            0,
            msg.sys_flag,
            msg.born_timestamp,
            msg.born_host.field_bytes,
            msg.store_timestamp,
            msg.store_host.field_bytes,
            msg.reconsume_times,
            msg.prepared_transaction_offset,
            body,
            topic,
            properties,
            msg.body_crc,
        )

    def encode_batch(self, batch: MessageExtBatch) -> tuple[bytes, int]:
        """All inner records of a batch, concatenated, and how many there are.

        Java: CommitLog$MessageExtEncoder#encode(MessageExtBatch, PutMessageContext)

        Raises:
            MessageSizeExceededError: one record, or the whole batch, is larger than ``maxMessageSize``.
        """
        batch_props = message_properties2string(batch.properties).encode("utf-8")
        if len(batch_props) > layout.PROPERTIES_MAX_BYTES:
            raise MessageSizeExceededError("Properties size of messageExtBatch exceeded!")
        data = batch.body or b""
        topic = (batch.topic or "").encode("utf-8")
        out, total, count, pos = [], 0, 0, 0
        while pos < len(data):
            _size, _magic, _crc, flag, body_len = _BATCH_HEAD.unpack_from(data, pos)
            body = data[pos + _BATCH_HEAD.size : pos + _BATCH_HEAD.size + body_len]
            pos += _BATCH_HEAD.size + body_len
            (props_len,) = struct.unpack_from(">h", data, pos)
            props = data[pos + 2 : pos + 2 + props_len]
            pos += 2 + props_len
            if props_len > 0 and batch_props and props[-1] != _PROPERTY_SEPARATOR:
                props += bytes([_PROPERTY_SEPARATOR])
            props += batch_props
            length = layout.cal_msg_length(batch.sys_flag, len(body), len(topic), len(props))
            total += length
            if length > self.max_message_size or total > self.max_message_size:
                raise MessageSizeExceededError("message size exceeded")
            out.append(
                layout.pack(
                    batch.queue_id,
                    flag,
                    0,
                    0,
                    batch.sys_flag,
                    batch.born_timestamp,
                    batch.born_host.field_bytes,
                    batch.store_timestamp,
                    batch.store_host.field_bytes,
                    batch.reconsume_times,
                    0,
                    body,
                    topic,
                    props,
                    util_all.crc32(body),
                )
            )
            count += 1
        return b"".join(out), count

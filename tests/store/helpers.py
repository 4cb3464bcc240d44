"""Builders and readers shared by the store tests: messages as the broker hands them to the store, and decoders
that look at segment files the way a learner would (record by record, unit by unit)."""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mqlab.common.jdk.inet_socket_address import InetSocketAddress
from mqlab.common.jdk.string_hash import java_string_hash
from mqlab.common.message import message_decoder
from mqlab.common.message.message import Message
from mqlab.common.message.message_batch import MessageBatch
from mqlab.common.message.message_ext import MessageExt
from mqlab.common.message.message_ext_batch import MessageExtBatch
from mqlab.common.message.message_record_layout import BLANK_MAGIC_CODE, MESSAGE_MAGIC_CODE
from mqlab.runtime.runtime import Runtime
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.config.message_store_config import MessageStoreConfig
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from mqlab.store.message_filter import MessageFilter

BORN_HOST = InetSocketAddress("10.0.0.2", 55555)
STORE_HOST = InetSocketAddress("192.168.1.10", 10911)
BORN_HOST_V6 = InetSocketAddress("1050:0:0:0:5:600:300c:326b", 123)
STORE_HOST_V6 = InetSocketAddress("::1", 124)
TOPIC = "TopicTest"
UNIT = struct.Struct(">qiq")
# Small segments so a few dozen messages cross several files.
CL_SIZE = 4096
CQ_SIZE = 400  # 20 units per ConsumeQueue file


def small_config(root: Path, **fields: object) -> MessageStoreConfig:
    """A config under ``root`` with 4 KiB CommitLog segments and 400-byte ConsumeQueue files (SYNC_FLUSH)."""
    settings: dict[str, object] = {
        "mapped_file_size_commit_log": CL_SIZE,
        "mapped_file_size_consume_queue": CQ_SIZE,
        "flush_disk_type": FlushDiskType.SYNC_FLUSH,
    }
    settings.update(fields)
    return MessageStoreConfig.under(root, **settings)


def body_of(i: int, size: int | None = None) -> bytes:
    """A recognisable body: ``msg-<i>`` padded (or cut) to ``size`` bytes when given."""
    text = f"msg-{i}:".encode()
    if size is None:
        return text + b"Once, there was a chance for me!"
    return (text * (size // len(text) + 1))[:size]


def inner(
    runtime: Runtime,
    i: int = 0,
    *,
    topic: str = TOPIC,
    queue_id: int = 0,
    tags: str | None = "TagA",
    keys: str | None = None,
    body: bytes | None = None,
    wait: bool = True,
    born_host: InetSocketAddress = BORN_HOST,
    store_host: InetSocketAddress = STORE_HOST,
    sys_flag: int = 0,
    properties: dict[str, str] | None = None,
) -> MessageExtBrokerInner:
    """What the broker stores for a client's ``Message(topic, tags, keys, body)`` sent to ``queue_id``."""
    msg = Message(topic, tags, keys if keys is not None else f"k{i}", body if body is not None else body_of(i))
    msg.set_wait_store_msg_ok(wait)
    for name, value in (properties or {}).items():
        msg.put_property(name, value)
    return MessageExtBrokerInner.from_client_message(
        msg,
        queue_id=queue_id,
        born_host=born_host,
        store_host=store_host,
        born_timestamp=runtime.now_ms(),
        sys_flag=sys_flag,
    )


def batch(
    runtime: Runtime,
    messages: Iterable[Message] | int,
    *,
    topic: str = TOPIC,
    queue_id: int = 0,
    batch_properties: dict[str, str] | None = None,
    born_host: InetSocketAddress = BORN_HOST,
    store_host: InetSocketAddress = STORE_HOST,
    first: int = 0,
) -> MessageExtBatch:
    """A ``MessageExtBatch`` as the broker builds it from a SEND_BATCH_MESSAGE request.

    ``messages`` may be a count: then ``Message(topic, "TagA", "k<i>", body_of(i))`` for ``first, first+1, ...``.
    The batch-level properties default to ``CLUSTER=DefaultCluster`` (what the broker adds).
    """
    if isinstance(messages, int):
        messages = [Message(topic, "TagA", f"k{first + i}", body_of(first + i)) for i in range(messages)]
    messages = list(messages)
    wrapped = MessageBatch.generate_from_list(messages)
    result = MessageExtBatch.bare()
    result.topic = topic
    result.queue_id = queue_id
    result.body = wrapped.encode()
    for name, value in (batch_properties if batch_properties is not None else {"CLUSTER": "DefaultCluster"}).items():
        result.put_property(name, value)
    result.born_timestamp = runtime.now_ms()
    result.born_host = born_host
    result.store_host = store_host
    return result


@dataclass(frozen=True, slots=True)
class SegmentScan:
    """What a CommitLog segment holds: its records (position, message) and where the data ends."""

    records: list[tuple[int, MessageExt]]
    blank_at: int | None  # position of the blank record, if the segment ends in one
    blank_size: int | None  # its TOTALSIZE
    end: int  # first position after the last record (or the blank record's position)


def scan_segment(path: Path) -> SegmentScan:
    """Decode a CommitLog segment file record by record with ``MessageDecoder#decode`` (CRC checked)."""
    data = path.read_bytes()
    records: list[tuple[int, MessageExt]] = []
    pos = 0
    while pos + 8 <= len(data):
        total, magic = struct.unpack_from(">ii", data, pos)
        if magic == BLANK_MAGIC_CODE:
            return SegmentScan(records, pos, total, pos)
        if magic != MESSAGE_MAGIC_CODE:
            break
        msg = message_decoder.decode(data, pos, check_crc=True, where=path.name)
        assert msg.store_size == total
        records.append((pos, msg))
        pos += total
    return SegmentScan(records, None, None, pos)


def segment_files(store_or_dir: DefaultMessageStore | Path) -> list[Path]:
    """The CommitLog segment files in name order."""
    if isinstance(store_or_dir, DefaultMessageStore):
        directory = Path(store_or_dir.config.store_path_commit_log)
    else:
        directory = store_or_dir
    return sorted(p for p in directory.iterdir() if p.is_file())


def cq_units(path: Path, limit: int | None = None) -> list[tuple[int, int, int]]:
    """The 20-byte units of a ConsumeQueue file, up to the first all-zero unit (or ``limit`` bytes)."""
    data = path.read_bytes()[:limit]
    units = []
    for pos in range(0, len(data) - len(data) % 20, 20):
        unit = UNIT.unpack_from(data, pos)
        if unit == (0, 0, 0):
            break
        units.append(unit)
    return units


def tags_code(tags: str | None) -> int:
    """The ConsumeQueue tags code of a TAGS value (Java ``String#hashCode``, 0 for none)."""
    return java_string_hash(tags) if tags else 0


def read_queue(
    store: DefaultMessageStore,
    queue_id: int = 0,
    *,
    topic: str = TOPIC,
    start: int = 0,
    message_filter: MessageFilter | None = None,
    batch_size: int = 32,
) -> list[MessageExt]:
    """Every message ``get_message`` returns from ``start`` to the end of the queue, following nextBeginOffset."""
    found: list[MessageExt] = []
    offset = start
    for _ in range(100_000):
        result = store.get_message("test-group", topic, queue_id, offset, batch_size, message_filter)
        assert result is not None
        if result.status.name in ("OFFSET_OVERFLOW_ONE", "NO_MESSAGE_IN_QUEUE"):
            return found
        found += message_decoder.decodes(result.message_bytes(), strict=True)
        if result.next_begin_offset == offset:
            return found
        offset = result.next_begin_offset
    raise AssertionError("get_message never reached the end of the queue")


def keys_of(messages: Iterable[MessageExt]) -> list[str | None]:
    """The KEYS property of each message."""
    return [m.get_keys() for m in messages]


def assert_consistent(store: DefaultMessageStore) -> None:
    """Every ConsumeQueue unit points inside the CommitLog at a record with that queue offset, size and tags code."""
    assert store.commit_log is not None
    max_phy = store.get_max_phy_offset()
    for queue in store.iter_consume_queues():
        low, high = queue.get_min_offset_in_queue(), queue.get_max_offset_in_queue()
        for offset in range(low, high):
            buffer = queue.get_index_buffer(offset)
            assert buffer is not None, (queue.topic, queue.queue_id, offset)
            phy, size, code = UNIT.unpack_from(buffer.data, 0)
            assert phy + size <= max_phy, f"{queue.topic}-{queue.queue_id} unit {offset} points past the CommitLog"
            stored = store.look_message_by_offset(phy, size)
            assert stored is not None
            assert (stored.topic, stored.queue_id, stored.queue_offset) == (queue.topic, queue.queue_id, offset)
            assert stored.store_size == size
            if queue.topic != "SCHEDULE_TOPIC_XXXX":  # there the tags code is the deliver time
                assert code == tags_code(stored.get_tags())

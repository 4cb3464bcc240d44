"""Builders and readers for the delay-message tests: delayed sends, schedule-queue units, delivered copies."""

from __future__ import annotations

from mqlab.common.message.message_ext import MessageExt
from mqlab.common.topic.topic_validator import RMQ_SYS_SCHEDULE_TOPIC
from mqlab.runtime.runtime import Runtime
from mqlab.store.consume_queue import CQ_STORE_UNIT_SIZE, UNIT
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.message_ext_broker_inner import MessageExtBrokerInner
from tests.store.helpers import TOPIC, inner, read_queue


def delayed(
    runtime: Runtime, i: int, level: int, *, topic: str = TOPIC, queue_id: int = 0, **kw
) -> MessageExtBrokerInner:
    """What the broker stores for a client's message ``i`` sent with ``msg.setDelayTimeLevel(level)``."""
    properties = dict(kw.pop("properties", {}) or {})
    properties["DELAY"] = str(level)
    return inner(runtime, i, topic=topic, queue_id=queue_id, properties=properties, **kw)


def put_delayed(store: DefaultMessageStore, i: int, level: int, **kw) -> int:
    """Put a delayed message; return its offset in the schedule queue."""
    result = store.put_message(delayed(store.runtime, i, level, **kw))
    assert result.is_ok(), result
    return result.append_message_result.logics_offset


def schedule_units(store: DefaultMessageStore, level: int) -> list[tuple[int, int, int]]:
    """The ``(commitLogOffset, size, tagsCode)`` units of SCHEDULE_TOPIC_XXXX queue ``level - 1``."""
    queue = store.find_consume_queue(RMQ_SYS_SCHEDULE_TOPIC, level - 1)
    buffer = queue.get_index_buffer(queue.get_min_offset_in_queue())
    if buffer is None:
        return []
    return [UNIT.unpack_from(buffer.data, pos) for pos in range(0, buffer.size, CQ_STORE_UNIT_SIZE)]


def schedule_messages(store: DefaultMessageStore, level: int) -> list[MessageExt]:
    """The stored messages of SCHEDULE_TOPIC_XXXX queue ``level - 1``."""
    return read_queue(store, level - 1, topic=RMQ_SYS_SCHEDULE_TOPIC)


def delivered(store: DefaultMessageStore, queue_id: int = 0, *, topic: str = TOPIC) -> list[MessageExt]:
    """The messages of a real queue (the delivered copies)."""
    return read_queue(store, queue_id, topic=topic)

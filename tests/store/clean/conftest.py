"""Fixtures for the cleaning tests: a store holding exactly one message per CommitLog segment.

As in 4.9.3's DefaultMessageStoreCleanFilesTest, every message fills its own CommitLog segment (here a 2,500-byte
body in 4 KiB segments: a second one never fits), and ConsumeQueue files hold 7 units (140 bytes, Java's 128
rounded up to whole units), so "n segments deleted" means "n messages gone" and ``n // 7`` ConsumeQueue files.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mqlab.common.message import message_decoder
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.mapped_file_queue import MappedFileQueue
from mqlab.store.put_message_status import PutMessageStatus
from tests.store.helpers import TOPIC, body_of, inner

BIG_BODY = 2500
CQ_UNITS_PER_FILE = 7
HOUR_MS = 3_600_000


@pytest.fixture
def one_per_file(make_store) -> Callable[..., DefaultMessageStore]:
    """``one_per_file(**config_fields)``: a started store whose segments hold one message each."""

    def factory(**fields: object) -> DefaultMessageStore:
        settings: dict[str, object] = {"mapped_file_size_consume_queue": 128}
        settings.update(fields)
        return make_store(**settings)

    return factory


def put_big(store: DefaultMessageStore, i: int, *, queue_id: int = 0) -> int:
    """Store message ``i`` (one segment's worth) on ``queue_id``; return its queue offset."""
    result = store.put_message(inner(store.runtime, i, queue_id=queue_id, body=body_of(i, BIG_BODY)))
    assert result.put_message_status is PutMessageStatus.PUT_OK, result
    return result.append_message_result.logics_offset


def put_many(store: DefaultMessageStore, count: int, *, first: int = 0, queue_id: int = 0) -> None:
    for i in range(first, first + count):
        put_big(store, i, queue_id=queue_id)
    store.runtime.scheduler.sleep(10)  # let reput build the ConsumeQueue units


def expire(mfq: MappedFileQueue, count: int, age_ms: int) -> None:
    """Make the first ``count`` segments ``age_ms`` old (Java's test uses ``File#setLastModified``)."""
    now = mfq.runtime.now_ms()
    for mapped_file in mfq.mapped_files[:count]:
        mapped_file.last_modified_ms = now - age_ms


def bodies(store: DefaultMessageStore, queue_id: int, offset: int) -> list[bytes]:
    """Every body from ``offset`` to the end of the queue (a read stops at a ConsumeQueue file's end: loop)."""
    found: list[bytes] = []
    while offset < store.get_max_offset_in_queue(TOPIC, queue_id):
        result = store.get_message("g", TOPIC, queue_id, offset, 32)
        found += [m.body for m in message_decoder.decodes(result.message_bytes())]
        offset = result.next_begin_offset
    return found

"""DefaultMessageStore against a dict-of-lists model, across puts, batches, reput, gets, flushes, clean restarts and
crashes, on 4 KiB CommitLog segments and 400-byte ConsumeQueue files, with SYNC_FLUSH and ASYNC_FLUSH.

Invariants: an acknowledged SYNC_FLUSH message (PUT_OK after its flush) is never lost, except the record a crash
tears in half; no ConsumeQueue unit points past the CommitLog; queue offsets are dense and follow the model;
everything readable before a clean shutdown is readable after it; after a crash exactly the messages whose
records were flushed survive, and every one of them is readable again.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from mqlab.common.message.message import Message
from mqlab.common.message.message_decoder import decodes
from mqlab.runtime import SimulatedWorld
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.crash import simulate_crash
from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.get_message_status import GetMessageStatus as S
from mqlab.store.message_filter import TagsMessageFilter
from mqlab.store.put_message_status import PutMessageStatus
from tests.store.helpers import UNIT, assert_consistent, batch, inner, read_queue, small_config
from tests.store_model import ModelMessage, StoreModel
from tests.strategies import store_bodies, store_subscriptions, store_tags, store_time_steps

pytestmark = pytest.mark.spec("REC-7", "REC-8", "REC-9", "STORE-9", "STORE-13", "CQ-2", "GET-6", "GET-7", "GET-12")

QUEUES = [("TopicTest", 0), ("TopicTest", 1), ("Other", 0)]
queues = st.sampled_from(QUEUES)
# Every synchronous put ends in an msync; on a RAM-backed file system that costs microseconds instead of a disk
# round trip, which keeps hundreds of examples within CI time. Elsewhere the default temp directory is used.
SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


class StoreMachine(RuleBasedStateMachine):
    """One store directory per example; the model is the truth."""

    flush_disk_type = FlushDiskType.SYNC_FLUSH

    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="mqlab-stateful-", dir=SCRATCH))
        self.world = SimulatedWorld(seed=11)
        self.rt = self.world.runtime("broker-a", ip="192.168.1.10")
        self.model = StoreModel()
        self.sequence = 0
        self.store = self.open_store()

    def open_store(self) -> DefaultMessageStore:
        store = DefaultMessageStore(small_config(self.root, flush_disk_type=self.flush_disk_type), self.rt)
        store.load()
        store.start()
        return store

    def teardown(self) -> None:
        try:
            self.store.shutdown()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    @property
    def sync(self) -> bool:
        return self.flush_disk_type is FlushDiskType.SYNC_FLUSH

    def next_key(self) -> str:
        self.sequence += 1
        return f"m{self.sequence}"

    def flushed_where(self) -> int:
        return self.store.commit_log.mapped_file_queue.flushed_where

    # -- writing -------------------------------------------------------------------------------------------------
    @rule(queue=queues, tags=store_tags, body=store_bodies, wait=st.booleans())
    def put(self, queue, tags, body, wait):
        topic, queue_id = queue
        key = self.next_key()
        msg = inner(self.rt, topic=topic, queue_id=queue_id, tags=tags, keys=key, body=body, wait=wait)
        result = self.store.put_message(msg)
        # FLUSH_DISK_TIMEOUT: stored, but doCommit's two flushes did not reach it (STORE-13); not acknowledged.
        assert result.put_message_status in (PutMessageStatus.PUT_OK, PutMessageStatus.FLUSH_DISK_TIMEOUT), result
        append = result.append_message_result
        assert append.logics_offset == self.model.next_offset(topic, queue_id)
        durable = self.sync and wait and result.put_message_status is PutMessageStatus.PUT_OK
        if durable:
            assert self.flushed_where() >= append.wrote_offset + append.wrote_bytes
        self.model.put(topic, queue_id, ModelMessage(key, tags, body, append.wrote_offset, append.wrote_bytes, durable))

    @rule(queue=queues, count=st.integers(1, 4), tags=store_tags, body=st.binary(max_size=120))
    def put_batch(self, queue, count, tags, body):
        topic, queue_id = queue
        keys = [self.next_key() for _ in range(count)]
        messages = [Message(topic, tags, key, body) for key in keys]
        result = self.store.put_messages(batch(self.rt, messages, topic=topic, queue_id=queue_id))
        assert result.put_message_status in (PutMessageStatus.PUT_OK, PutMessageStatus.FLUSH_DISK_TIMEOUT), result
        append = result.append_message_result
        assert (append.logics_offset, append.msg_num) == (self.model.next_offset(topic, queue_id), count)
        offsets = [int(msg_id[-16:], 16) for msg_id in append.msg_id.split(",")]
        assert offsets[0] == append.wrote_offset
        ends = [*offsets[1:], append.wrote_offset + append.wrote_bytes]
        # The batch carries no WAIT property: a sync store waits for its flush.
        durable = self.sync and result.put_message_status is PutMessageStatus.PUT_OK
        if durable:
            assert self.flushed_where() >= ends[-1]
        for key, start, end in zip(keys, offsets, ends, strict=True):
            self.model.put(topic, queue_id, ModelMessage(key, tags, body, start, end - start, durable))

    # -- time, dispatch and flushing -------------------------------------------------------------------------------
    @rule(ms=store_time_steps)
    def advance(self, ms):
        self.world.run_for(ms)

    @rule()
    def reput_once(self):
        self.store.reput_message_service.run_once()
        assert self.store.dispatch_behind_bytes() == 0

    @rule()
    def flush(self):
        before = self.flushed_where()
        assert self.store.commit_log.flush() >= before
        self.store.flush_consume_queue_service.run_once()

    # -- reading ---------------------------------------------------------------------------------------------------
    @rule(queue=queues, start=st.integers(0, 50), max_nums=st.integers(1, 40), subscription=store_subscriptions)
    def get(self, queue, start, max_nums, subscription):
        topic, queue_id = queue
        visible = self.store.get_max_offset_in_queue(topic, queue_id)
        known = self.model.messages(topic, queue_id)
        assert visible <= len(known)
        message_filter = TagsMessageFilter(subscription) if subscription is not None else None
        result = self.store.get_message("group", topic, queue_id, start, max_nums, message_filter)
        if visible == 0:
            assert (result.status, result.next_begin_offset) == (S.NO_MESSAGE_IN_QUEUE, 0)
            return
        if start == visible:
            assert (result.status, result.next_begin_offset) == (S.OFFSET_OVERFLOW_ONE, start)
            return
        if start > visible:
            assert (result.status, result.next_begin_offset) == (S.OFFSET_OVERFLOW_BADLY, 0)
            return
        assert start < result.next_begin_offset <= visible
        assert result.message_count <= max_nums
        wanted = None if message_filter is None or message_filter.sub_all else message_filter.tags_set
        expected = self.model.matching(topic, queue_id, start, result.next_begin_offset, wanted)
        got = decodes(result.message_bytes(), strict=True)
        assert [m.get_keys() for m in got] == [m.key for m in expected]
        assert [(m.body or b"") for m in got] == [m.body for m in expected]
        assert result.status is (S.FOUND if expected else S.NO_MATCHED_MESSAGE)
        assert [known.index(m) for m in expected] == result.message_queue_offset

    # -- restarts --------------------------------------------------------------------------------------------------
    @rule()
    def clean_restart(self):
        readable = {q: [m.get_keys() for m in read_queue(self.store, q[1], topic=q[0])] for q in QUEUES}
        self.store.shutdown()
        assert not (self.root / "abort").exists()
        self.store = self.open_store()
        assert self.store.recovery_report.last_exit_ok
        for queue, keys in readable.items():
            after = [m.get_keys() for m in read_queue(self.store, queue[1], topic=queue[0])]
            assert after[: len(keys)] == keys
            assert after == [m.key for m in self.model.messages(*queue)]
        assert_consistent(self.store)

    @rule(tear=st.booleans())
    def crash(self, tear):
        flushed = self.flushed_where()
        end_before = self.store.get_max_phy_offset()
        report = simulate_crash(self.store, tear_last_record=tear)
        durable_end = flushed if report.torn_record_offset is None else min(flushed, report.torn_record_offset)
        self.store = self.open_store()
        recovered_end = self.store.get_max_phy_offset()
        assert recovered_end <= max(flushed, end_before)
        lost = self.model.crash(recovered_end)
        for message in lost:
            assert message.end > durable_end, f"{message.key} was flushed before the crash but is gone"
            if message.durable:
                assert report.torn_record_offset is not None, f"acknowledged {message.key} lost"
                assert message.commit_log_offset >= report.torn_record_offset
        for queue in QUEUES:
            keys = [m.get_keys() for m in read_queue(self.store, queue[1], topic=queue[0])]
            assert keys == [m.key for m in self.model.messages(*queue)]
        assert_consistent(self.store)

    # -- invariants ------------------------------------------------------------------------------------------------
    @invariant()
    def queue_offsets_are_dense_and_units_stay_inside_the_commit_log(self):
        max_phy = self.store.get_max_phy_offset()
        table = self.store.commit_log.topic_queue_table
        for (topic, queue_id), known in self.model.queues.items():
            queue = self.store.find_consume_queue(topic, queue_id)
            visible = queue.get_max_offset_in_queue()
            assert queue.get_min_offset_in_queue() == 0
            assert visible <= len(known)
            assert table.get(f"{topic}-{queue_id}", 0) == len(known)
            if visible:
                phy, size, code = UNIT.unpack_from(queue.get_index_buffer(visible - 1).data, 0)
                expected = known[visible - 1]
                assert (phy, size, code) == (expected.commit_log_offset, expected.size, expected.tags_code)
                assert phy + size <= max_phy


class AsyncStoreMachine(StoreMachine):
    """The same rules on an ASYNC_FLUSH store: nothing is durable until a flush round has run."""

    flush_disk_type = FlushDiskType.ASYNC_FLUSH


BOUNDS = settings(max_examples=40, stateful_step_count=30, deadline=None)

TestSyncFlushStore = StoreMachine.TestCase
TestSyncFlushStore.settings = BOUNDS
TestAsyncFlushStore = AsyncStoreMachine.TestCase
TestAsyncFlushStore.settings = BOUNDS

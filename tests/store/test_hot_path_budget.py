"""Guards on the cost of the store's hot paths: put and reput (issue 25, item 6).

Wall-clock figures move with the machine's load; what a put or a dispatched record executes does not. These tests
count the Python function calls one put and one dispatched record make, and look for statements that have no
business running once per message (an ``import`` inside a function runs the import machinery at every call: the
replica check of every put did that once). The budgets are today's counts; a change that adds a step to the Java
call chain raises them on purpose, and the new figure goes here with the reason.
"""

from __future__ import annotations

import dis
import sys
import types
from collections.abc import Callable

from mqlab.common.message.message_ext_batch import MessageExtBatch
from mqlab.store.append_message_result import AppendMessageResult
from mqlab.store.append_message_status import AppendMessageStatus
from mqlab.store.config.flush_disk_type import FlushDiskType
from mqlab.store.mapped_file import MappedFile
from mqlab.store.put_message_status import PutMessageStatus

from .helpers import TOPIC, inner

PUT_CALLS_BUDGET = 37  # Python functions per put in the simulator: 36.3 now, 39.3 before issue 25, item 6
REPUT_CALLS_BUDGET = 25  # per dispatched record, index on: 24.3 now, 27.3 before
_MB = 1 << 20


def _profile(run: Callable[[], object]) -> list[types.CodeType]:
    """The code object of every Python function called while ``run`` runs, once per call."""
    codes: list[types.CodeType] = []

    def hook(frame, event, _arg) -> None:
        if event == "call":
            codes.append(frame.f_code)

    sys.setprofile(hook)
    try:
        run()
    finally:
        sys.setprofile(None)
    return codes


def _async_store(make_store):
    return make_store(
        flush_disk_type=FlushDiskType.ASYNC_FLUSH,
        mapped_file_size_commit_log=4 * _MB,
        mapped_file_size_consume_queue=_MB,
    )


def _put(store, rt, first: int, count: int) -> None:
    for i in range(first, first + count):
        msg = inner(rt, i, queue_id=i % 4, keys=f"ORDER-{i:08d}")
        assert store.put_message(msg).put_message_status is PutMessageStatus.PUT_OK


def test_put_calls_within_budget(make_store, rt):
    store = _async_store(make_store)
    _put(store, rt, 0, 20)  # the first puts create the segment, the topic-queue entries, the caches
    messages = [inner(rt, i, queue_id=i % 4, keys=f"ORDER-{i:08d}") for i in range(20, 120)]

    def put_all() -> None:
        for msg in messages:
            store.put_message(msg)

    per_put = len(_profile(put_all)) / len(messages)
    assert per_put <= PUT_CALLS_BUDGET, f"a put makes {per_put:.1f} Python calls, budget {PUT_CALLS_BUDGET}"


def test_reput_calls_within_budget(make_store, rt):
    store = _async_store(make_store)
    service = store.reput_message_service
    _put(store, rt, 0, 20)
    service.run_once()  # dispatch the warm-up records (index file, ConsumeQueue files, caches)
    _put(store, rt, 20, 100)
    dispatched: list[int] = []
    per_record = len(_profile(lambda: dispatched.append(service.run_once()))) / 100
    assert dispatched == [100]
    assert store.get_max_offset_in_queue(TOPIC, 0) == 30  # 120 puts over 4 queues
    assert per_record <= REPUT_CALLS_BUDGET, f"a record costs {per_record:.1f} calls, budget {REPUT_CALLS_BUDGET}"


def test_no_import_statement_runs_per_put_or_record(make_store, rt):
    store = _async_store(make_store)
    _put(store, rt, 0, 20)
    codes = set(_profile(lambda: _put(store, rt, 20, 10)))
    codes |= set(_profile(store.reput_message_service.run_once))
    importing = sorted(
        f"{code.co_qualname} ({code.co_filename.rsplit('/mqlab/', 1)[-1]})"
        for code in codes
        if "/mqlab/" in code.co_filename and any(i.opname == "IMPORT_NAME" for i in dis.get_instructions(code))
    )
    assert importing == []


class _KindRecorder:
    """An append callback with the protocol's two named variants only, recording which one ran."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def do_append_single(self, file_from_offset, buffer, position, max_blank, msg):
        self.calls.append("single")
        return AppendMessageResult(AppendMessageStatus.PUT_OK, file_from_offset + position, 10, None, 5)

    def do_append_batch(self, file_from_offset, buffer, position, max_blank, batch):
        self.calls.append("batch")
        return AppendMessageResult(AppendMessageStatus.PUT_OK, file_from_offset + position, 20, None, 6)


def test_mapped_file_picks_the_callback_variant_by_message_kind(rt, tmp_path):
    """Java: MappedFile#appendMessagesInner chooses the doAppend overload by the message's class."""
    mapped_file = MappedFile(tmp_path / f"{0:020d}", 4096, runtime=rt)
    try:
        callback = _KindRecorder()
        mapped_file.append_message(inner(rt, 1), callback)
        mapped_file.append_messages(MessageExtBatch(topic=TOPIC), callback)
        assert callback.calls == ["single", "batch"]
        assert mapped_file.wrote_position == 30
        assert mapped_file.store_timestamp == 6
    finally:
        mapped_file.close()

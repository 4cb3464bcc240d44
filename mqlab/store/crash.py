"""Kill a store the way a power cut would, for tests and the crash-recovery notebook.

Java: none (teaching helper). A real crash leaves the ``abort`` file behind and loses whatever the operating system
had not written to disk. Because mqlab's segments are memory-mapped, a killed Python process would still leave its
unflushed bytes in the page cache; :func:`simulate_crash` therefore erases, in every segment, the bytes past the
flushed position (what a power cut would lose), can tear the last record in half, and then closes the files without
the clean-shutdown steps.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from mqlab.store.default_message_store import DefaultMessageStore
from mqlab.store.mapped_file import MappedFile


@dataclass(slots=True)
class CrashReport:
    """What the crash destroyed."""

    commit_log_bytes_lost: int
    consume_queue_bytes_lost: int
    torn_record_offset: int | None


def _erase_unflushed(mapped_file: MappedFile) -> int:
    start, end = mapped_file.flushed_position, mapped_file.wrote_position
    if end > start:
        mapped_file.mapped_byte_buffer[start:end] = bytes(end - start)
    return max(end - start, 0)


def simulate_crash(
    store: DefaultMessageStore, *, lose_unflushed: bool = True, tear_last_record: bool = False
) -> CrashReport:
    """Stop ``store`` abruptly: no final flush, no dispatch catch-up, ``abort`` file left in place.

    Args:
        store: a loaded (usually started) store.
        lose_unflushed: erase bytes written after each segment's flushed position, as a power cut would.
        tear_last_record: additionally keep only the first half of the last CommitLog record, as if the machine
            died while writing it.
    """
    assert store.commit_log is not None
    torn = None
    if tear_last_record:
        torn = _tear_last_record(store)
    cl_lost = cq_lost = 0
    if lose_unflushed:
        for mapped_file in store.commit_log.mapped_file_queue.mapped_files:
            cl_lost += _erase_unflushed(mapped_file)
        for queue in store.iter_consume_queues():
            for mapped_file in queue.mapped_file_queue.mapped_files:
                cq_lost += _erase_unflushed(mapped_file)
    # Stop the threads without any of their final flushes.
    for service in (
        store.reput_message_service,
        store.flush_consume_queue_service,
        store.commit_log.flush_commit_log_service,
        store.commit_log.commit_log_service,
    ):
        if service is not None:
            service.make_stop()
            service.shutdown()
    store.shutdown_flag = True
    _forget_unflushed_checkpoint(store)
    store._close_files()
    store.runtime.trace_event("DefaultMessageStore", "crash", commitLogBytesLost=cl_lost, consumeQueueBytesLost=cq_lost)
    return CrashReport(cl_lost, cq_lost, torn)


def _forget_unflushed_checkpoint(store: DefaultMessageStore) -> None:
    """Put the checkpoint's fields back to what its file holds.

    The timestamps in memory run ahead of the file, which only changes on ``StoreCheckpoint#flush``. Closing the
    files flushes the checkpoint; without this step a crash would persist timestamps whose ConsumeQueue units were
    never flushed, and abnormal recovery would then start too late and skip rebuilding them.
    """
    checkpoint = store.store_checkpoint
    if checkpoint is None or not checkpoint.path.exists():
        return
    head = checkpoint.path.read_bytes()[:24]
    if len(head) == 24:
        physic, logics, index = struct.unpack(">qqq", head)
        checkpoint.physic_msg_timestamp = physic
        checkpoint.logics_msg_timestamp = logics
        checkpoint.index_msg_timestamp = index


def _tear_last_record(store: DefaultMessageStore) -> int | None:
    """Zero the second half of the last record in the CommitLog; return its offset."""
    assert store.commit_log is not None
    commit_log = store.commit_log
    last = commit_log.mapped_file_queue.get_last_mapped_file()
    if last is None or last.wrote_position == 0:
        return None
    buf, pos, last_pos = last.mapped_byte_buffer, 0, None
    while pos < last.wrote_position:
        request = commit_log.check_message_and_return_size(buf, pos, False, False)
        if not request.success or request.msg_size <= 0:
            break
        last_pos, pos = pos, pos + request.msg_size
    if last_pos is None:
        return None
    size = pos - last_pos
    half = last_pos + size // 2
    buf[half:pos] = bytes(pos - half)
    if last.flushed_position > half:
        last.flushed_position = half  # the torn half never reached the disk
    return last.file_from_offset + last_pos

"""MappedFile: one fixed-size segment, its three positions, flushing rules and life cycle (after 4.9.3's
MappedFileTest, plus the position rules of MappedFile#isAbleToFlush)."""

import os
import sys

import pytest

from mqlab.store import mapped_file as mapped_file_module
from mqlab.store.mapped_file import OS_PAGE_SIZE, MappedFile
from mqlab.store.store_errors import MappedFileCreateError
from mqlab.store.transient_store_pool import TransientStorePool

STORE_MESSAGE = b"Once, there was a chance for me!"


@pytest.fixture
def segment(tmp_path, rt):
    made = []

    def factory(name="00000000000000000000", size=64 * 1024, pool=None):
        mapped_file = MappedFile(tmp_path / "seg" / name, size, runtime=rt, transient_store_pool=pool)
        made.append(mapped_file)
        return mapped_file

    yield factory
    for mapped_file in made:
        mapped_file.close()


@pytest.mark.spec("STORE-1")
def test_a_new_segment_has_its_full_size_on_disk_and_starts_at_the_offset_in_its_name(segment):
    mapped_file = segment("00000000000000004096", size=4096)
    assert mapped_file.file_from_offset == 4096
    assert os.path.getsize(mapped_file.file) == 4096
    assert (mapped_file.wrote_position, mapped_file.committed_position, mapped_file.flushed_position) == (0, 0, 0)


@pytest.mark.spec("STORE-1")
def test_a_segment_name_that_is_not_an_offset_is_refused(tmp_path, rt):
    with pytest.raises(MappedFileCreateError, match="not an offset"):
        MappedFile(tmp_path / "commitlog-a", 4096, runtime=rt)


@pytest.mark.spec("STORE-2")
def test_select_mapped_buffer_reads_back_what_was_appended_and_the_file_can_then_be_destroyed(segment):
    # 4.9.3 MappedFileTest#testSelectMappedBuffer
    mapped_file = segment("000")
    assert mapped_file.append_message_bytes(STORE_MESSAGE)
    result = mapped_file.select_mapped_buffer(0)
    assert result is not None
    assert result.data == STORE_MESSAGE
    assert result.start_offset == 0
    mapped_file.shutdown(mapped_file.runtime.now_ms(), 1000)
    assert not mapped_file.available
    assert mapped_file.is_cleanup_over()
    assert mapped_file.destroy(1000)
    assert not mapped_file.file.exists()


@pytest.mark.spec("STORE-2")
def test_only_appended_bytes_are_readable(segment):
    mapped_file = segment(size=4096)
    mapped_file.append_message_bytes(b"a" * 100)
    assert mapped_file.get_read_position() == 100
    assert mapped_file.select_mapped_buffer(0, 100).data == b"a" * 100
    assert mapped_file.select_mapped_buffer(0, 101) is None
    assert mapped_file.select_mapped_buffer(100) is None  # nothing from the wrote position on
    assert mapped_file.select_mapped_buffer(40).data == b"a" * 60


@pytest.mark.spec("STORE-2")
def test_appends_fill_the_segment_until_it_is_full_and_never_grow_it(segment):
    mapped_file = segment(size=1024)
    for _ in range(64):
        assert mapped_file.append_message_bytes(b"0123456789abcdef")
    assert mapped_file.is_full()
    assert not mapped_file.append_message_bytes(b"x")
    assert mapped_file.wrote_position == 1024
    assert os.path.getsize(mapped_file.file) == 1024


@pytest.mark.spec("STORE-3")
@pytest.mark.parametrize(
    ("written", "flushed_first", "least_pages", "able"),
    [
        (1, 0, 0, True),  # leastPages 0: any new byte
        (0, 0, 0, False),
        (3 * OS_PAGE_SIZE + 100, 0, 4, False),  # 3 new pages < 4
        (4 * OS_PAGE_SIZE, 0, 4, True),
        (5 * OS_PAGE_SIZE - 1, OS_PAGE_SIZE - 1, 4, True),  # pages are counted as write/4096 - flushed/4096
        (5 * OS_PAGE_SIZE - 1, OS_PAGE_SIZE, 4, False),
    ],
)
def test_is_able_to_flush_counts_whole_os_pages(segment, written, flushed_first, least_pages, able):
    mapped_file = segment(size=64 * 1024)
    mapped_file.append_message_bytes(b"x" * flushed_first)
    mapped_file.flush(0)
    mapped_file.append_message_bytes(b"y" * (written - flushed_first))
    assert mapped_file.is_able_to_flush(least_pages) is able


@pytest.mark.spec("STORE-3")
def test_a_full_segment_is_always_able_to_flush(segment):
    mapped_file = segment(size=1024)
    mapped_file.append_message_bytes(b"z" * 1024)
    assert mapped_file.is_able_to_flush(4)


@pytest.mark.spec("STORE-3")
def test_flush_moves_the_flushed_position_only_when_enough_pages_are_dirty(segment):
    mapped_file = segment(size=64 * 1024)
    mapped_file.append_message_bytes(b"a" * (2 * OS_PAGE_SIZE))
    assert mapped_file.flush(4) == 0
    mapped_file.append_message_bytes(b"b" * (2 * OS_PAGE_SIZE))
    assert mapped_file.flush(4) == 4 * OS_PAGE_SIZE
    mapped_file.append_message_bytes(b"c")
    assert mapped_file.flush(4) == 4 * OS_PAGE_SIZE
    assert mapped_file.flush(0) == 4 * OS_PAGE_SIZE + 1


@pytest.mark.spec("STORE-22")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fdatasync stands in for msync on Linux only")
def test_flush_forces_the_segment_file_with_fdatasync_on_linux(segment, monkeypatch):
    mapped_file = segment(size=64 * 1024)
    synced = []
    monkeypatch.setattr(mapped_file_module, "_FDATASYNC", lambda fd: synced.append(os.fstat(fd).st_ino))
    mapped_file.append_message_bytes(b"a" * 10)
    assert mapped_file.flush(0) == 10
    assert synced == [mapped_file.file.stat().st_ino]
    mapped_file.append_message_bytes(b"b")
    assert mapped_file.flush(4) == 10  # not enough pages: nothing forced
    assert len(synced) == 1


@pytest.mark.spec("STORE-22")
def test_force_without_fdatasync_flushes_the_mapping(segment, monkeypatch):
    mapped_file = segment(size=64 * 1024)
    monkeypatch.setattr(mapped_file_module, "_FDATASYNC", None)
    mapped_file.append_message_bytes(b"a" * 10)
    assert mapped_file.flush(0) == 10
    mapped_file.force()
    with open(mapped_file.file, "rb") as f:
        assert f.read(10) == b"a" * 10


@pytest.mark.spec("STORE-17")
def test_with_a_write_buffer_bytes_are_readable_only_after_commit(segment):
    pool = TransientStorePool(2, 8192)
    pool.init()
    mapped_file = segment(size=8192, pool=pool)
    assert pool.available_buffer_nums() == 1
    # Records reach the buffer through the append callback; write into it directly here.
    mapped_file.write_buffer[0:5] = b"hello"
    mapped_file.wrote_position = 5
    assert mapped_file.get_read_position() == 0
    assert mapped_file.select_mapped_buffer(0, 5) is None
    assert mapped_file.is_able_to_commit(0)
    assert mapped_file.commit(0) == 5
    assert mapped_file.select_mapped_buffer(0, 5).data == b"hello"
    assert mapped_file.flush(0) == 5
    assert mapped_file.file.read_bytes()[:5] == b"hello"


@pytest.mark.spec("STORE-17")
def test_a_fully_committed_segment_returns_its_write_buffer_to_the_pool(segment):
    pool = TransientStorePool(1, 1024)
    pool.init()
    mapped_file = segment(size=1024, pool=pool)
    assert pool.available_buffer_nums() == 0
    mapped_file.write_buffer[:] = b"q" * 1024
    mapped_file.wrote_position = 1024
    assert mapped_file.commit(4) == 1024  # a full segment may always commit
    assert mapped_file.write_buffer is None
    assert pool.available_buffer_nums() == 1
    assert mapped_file.get_read_position() == 1024


@pytest.mark.spec("STORE-2")
def test_without_a_write_buffer_commit_is_the_wrote_position(segment):
    mapped_file = segment(size=1024)
    mapped_file.append_message_bytes(b"abc")
    assert mapped_file.commit(0) == 3
    assert mapped_file.committed_position == 0  # nothing to copy: Java leaves it alone too


def test_last_modified_time_is_virtual_time_in_a_simulation(segment, world):
    mapped_file = segment(size=1024)
    world.run_for(1234)
    mapped_file.append_message_bytes(b"abc")
    assert mapped_file.get_last_modified_timestamp() == world.now_ms()
    mapped_file.flush(0)
    assert int(os.path.getmtime(mapped_file.file) * 1000) == world.now_ms()


def test_a_held_segment_is_cleaned_up_only_when_released_or_after_the_forcible_interval(segment, world):
    mapped_file = segment(size=1024)
    assert mapped_file.hold()
    assert not mapped_file.destroy(1000)  # first attempt: unavailable, but a reader still holds it
    assert mapped_file.file.exists()
    assert not mapped_file.hold()  # nobody new gets in
    world.run_for(999)
    assert not mapped_file.destroy(1000)
    world.run_for(1)
    assert mapped_file.destroy(1000)  # forced once intervalForcibly has passed
    assert not mapped_file.file.exists()


def test_a_released_reference_lets_the_pending_destroy_finish(segment):
    mapped_file = segment(size=1024)
    assert mapped_file.hold()
    assert not mapped_file.destroy(120_000)
    mapped_file.release()
    assert mapped_file.is_cleanup_over()
    assert mapped_file.destroy(120_000)


def test_warming_a_segment_keeps_what_was_written(segment):
    mapped_file = segment(size=3 * OS_PAGE_SIZE)
    mapped_file.append_message_bytes(b"keep")
    mapped_file.warm_mapped_file()
    assert mapped_file.select_mapped_buffer(0).data == b"keep"
